"""Texts the screens translate from data rather than from a literal: listed here so that the
catalogue extractor (``scripts/i18n.py``) finds them. Nothing imports this module."""

from __future__ import annotations


def N_(text: str) -> str:  # noqa: N802 - gettext's own name for "mark, don't translate yet"
    return text


MSGIDS = [
    # status strip
    N_("real"), N_("mock"), N_("off"), N_("none"), N_("connected"), N_("ok"),
    N_("connecting"), N_("disconnected"), N_("no answer"), N_("version mismatch"), N_("on"),
    # settings options
    N_("auto"), N_("active"), N_("tonal"), N_("en"), N_("hu"), N_("ru"),
    # Dragon's Gold discs (the colours below name the gems)
    N_("silver"), N_("gold"),
    # player colours
    N_("red"), N_("blue"), N_("green"), N_("yellow"), N_("purple"), N_("orange"), N_("white"), N_("black"),
    # settings rows
    N_("Language"), N_("GPIO"), N_("Buzzer"), N_("Buzzer pin"), N_("Status LED pin"), N_("Button pin"),
    N_("Negotiation (s)"), N_("Market (s)"), N_("Accessory port"), N_("Camera"), N_("Admin PIN"),
    N_("Volume"), N_("First warning"), N_("Second warning"), N_("Negotiation"), N_("Market"),
    N_("Time per player"), N_("Time added each turn"), N_("Venue"),
    # settings headings
    N_("Timers"), N_("Turn clock"), N_("Devices"),
    # the kiosk's host actions (Settings, behind the admin PIN)
    N_("This table"), N_("Shut down"), N_("Leave kiosk mode"),
    # the resume note
    N_("the machine restarted since this session was saved: running timers were recomputed from the wall "
       "clock"),
]
