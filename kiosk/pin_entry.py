"""Asking the host for a new admin PIN on the terminal (twice, not echoed) or on standard input.

A script or a test gives the PIN as one line on standard input; a person at a terminal types
it twice. The PIN goes straight to :func:`kiosk.pin.hash_pin` and is never printed.
"""

from __future__ import annotations

import getpass
import sys
from typing import TextIO

from kiosk.pin import PinError, is_pin


def ask_new_pin(stdin: TextIO | None = None) -> str:
    """A new admin PIN.

    :raises PinError: for no PIN, two entries that differ, or one that is not 4 to 8 digits.
    """
    stream = sys.stdin if stdin is None else stdin
    if stream.isatty():
        first = getpass.getpass("New admin PIN (4 to 8 digits): ")
        if getpass.getpass("The same PIN again: ") != first:
            raise PinError("PIN: the two entries differ; nothing was changed")
    else:
        first = stream.readline().rstrip("\r\n")
        if not first:
            raise PinError("PIN: none given: type it at the prompt, or give it as one line on standard input")
    if not is_pin(first):
        raise PinError("PIN: must be 4 to 8 digits (the PIN itself is not shown)")
    return first
