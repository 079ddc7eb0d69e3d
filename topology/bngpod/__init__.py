"""bngpod: the pod description, its generators and the emulated pod."""

__version__ = "0.1.0"
