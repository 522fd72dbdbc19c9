"""The bridge's errors: one root, each concrete error also a builtin a caller would catch."""

from __future__ import annotations


class BridgeError(Exception):
    """Root of every error the hardware adapters raise on purpose."""


class GPIOUnavailable(BridgeError, RuntimeError):
    """Real GPIO was asked for and no pin factory works on this machine."""


class PinConflict(BridgeError, ValueError):
    """A pin cannot be used as configured (in use, invalid, or unable to do what is asked)."""
