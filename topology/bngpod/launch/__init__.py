"""Launchers of the emulated pod's daemons, one module each: `dp` (bng-dp per instance and
its sizing), `cp` (bng-cp), `freeradius` (the pod's RADIUS servers) and `inet` (the inet
host's servers). Each starts its daemon from the generated directory through the
supervisor (recorded in the state file) and waits until it is ready."""
