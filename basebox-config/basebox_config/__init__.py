"""basebox-config: renders the pod's static switch configuration (the fold) for
baseboxd (systemd-networkd files) and for the emulated switch (OpenFlow 1.3)."""

from .fold import AccessPort, CoreGroup, Fold, Port, RenderError, Steer, Target

__all__ = ["AccessPort", "CoreGroup", "Fold", "Port", "RenderError", "Steer", "Target"]
