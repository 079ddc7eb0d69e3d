"""Profiles for outside testers, generated from the pod file and a session export:
TRex STL (trex.py), Spirent TestCenter through its REST API (spirent.py), BNG Blaster (bngblaster.py).
docs/linerate.md says how to run each in a lab."""
