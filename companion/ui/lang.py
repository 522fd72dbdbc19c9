"""Run-time language switching for kv: ``text: tr._("Start")`` re-evaluates on a switch.

The observable pattern from Kivy's own i18n example: kv binds to ``tr._``; switching the
language calls every bound callback, so each expression is evaluated again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kivy.lang import Observable

from companion.i18n import translation
from companion.ui.theme import THEME


class Lang(Observable):  # type: ignore[misc]
    """``tr._(msgid)`` for kv; the language now in use is ``tr.lang`` (and ``THEME.language``,
    which kv can bind to)."""

    observers: list[tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any]]]

    def __init__(self, lang: str = "en", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.observers = []
        self._catalogue = translation(lang)
        self.lang = lang

    def _(self, text: str) -> str:
        return self._catalogue.gettext(text)

    def fbind(self, name: str, func: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        if name == "_":  # the builder binds with one argument: its own tuple for call_fn
            self.observers.append((func, args[0] if len(args) == 1 else args, kwargs))
            return None
        return super().fbind(name, func, *args, **kwargs)

    def funbind(self, name: str, func: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        if name == "_":
            key = (func, args[0] if len(args) == 1 else args, kwargs)
            if key in self.observers:
                self.observers.remove(key)
            return None
        return super().funbind(name, func, *args, **kwargs)

    def switch(self, lang: str) -> None:
        """Every bound text is evaluated again in *lang*. Main thread only."""
        self._catalogue = translation(lang)
        self.lang = lang
        THEME.language = lang
        for observer in list(self.observers):
            func, largs, _kwargs = observer
            try:
                func(largs, None, None)
            except ReferenceError:  # the widget the rule was bound for is gone (a closed popup)
                self.observers.remove(observer)


TR = Lang()
