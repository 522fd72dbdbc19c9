"""The run-time language switch: kv rules bound to ``tr._`` follow a switch, and rules of
widgets that are gone (a closed popup) neither crash it nor pile up."""

from __future__ import annotations

import gc
import os

os.environ.setdefault("KIVY_NO_ARGS", "1")
os.environ.setdefault("KIVY_NO_FILELOG", "1")

from kivy.lang import Builder  # noqa: E402
from kivy.properties import StringProperty  # noqa: E402
from kivy.uix.widget import Widget  # noqa: E402

from companion.ui.lang import Lang  # noqa: E402


class Caption(Widget):  # type: ignore[misc]
    text = StringProperty("")


CURRENT = Lang("en")
"""The Lang the next :func:`make` binds to (kv imports it by name)."""


def make(tr: Lang) -> Caption:
    global CURRENT
    CURRENT = tr
    widget = Builder.load_string("#:import tr tests.ui.test_lang.CURRENT\nCaption:\n    text: tr._('Start')\n")
    assert isinstance(widget, Caption)
    return widget


def test_lang_switch_survives_widgets_that_are_gone() -> None:
    tr = Lang("en")
    kept = make(tr)
    for _ in range(5):  # popups opened and closed
        gone = make(tr)
        del gone
    gc.collect()
    tr.switch("ru")
    assert kept.text == "Старт"
    tr.switch("hu")
    tr.switch("ru")
    assert kept.text == "Старт"
    assert len(tr.observers) == 1  # the dead ones were dropped on the first switch
    tr.switch("en")
    assert kept.text == "Start"


def test_lang_unbinding_a_rule_drops_its_observer() -> None:
    tr = Lang("en")
    widget = make(tr)
    assert len(tr.observers) == 1
    Builder.unbind_widget(widget.uid)
    assert tr.observers == {}
    tr.switch("hu")
    assert widget.text == "Start"  # no longer follows the language
