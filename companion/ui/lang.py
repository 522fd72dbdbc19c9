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
    which kv can bind to).

    Each kv rule that reads ``tr._`` is an observer kept under the uid that :meth:`fbind`
    returns, so the builder unbinds it by that uid when its widget's rules go. An observer is
    found again by its uid or by the identity of its callback and arguments, never by comparing
    them: the arguments hold weak proxies of widgets, and a dead proxy cannot be compared.
    """

    observers: dict[int, tuple[Callable[..., Any], Any, dict[str, Any]]]

    def __init__(self, lang: str = "en", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.observers = {}
        self._next_uid = 1
        self._catalogue = translation(lang)
        self.lang = lang

    def _(self, text: str) -> str:
        return self._catalogue.gettext(text)

    def fbind(self, name: str, func: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        if name == "_":  # the builder binds with one argument: its own tuple for call_fn
            uid = self._next_uid
            self._next_uid += 1
            self.observers[uid] = (func, args[0] if len(args) == 1 else args, kwargs)
            return uid
        return super().fbind(name, func, *args, **kwargs)

    def funbind(self, name: str, func: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        if name == "_":
            largs = args[0] if len(args) == 1 else args
            for uid, (f, a, _kw) in list(self.observers.items()):
                if f is func and a is largs:
                    del self.observers[uid]
                    break
            return None
        return super().funbind(name, func, *args, **kwargs)

    def unbind_uid(self, name: str, uid: int) -> Any:
        if name == "_":
            self.observers.pop(uid, None)
            return None
        return super().unbind_uid(name, uid)

    def switch(self, lang: str) -> None:
        """Every bound text is evaluated again in *lang*; observers whose widget is gone are
        dropped. Main thread only."""
        self._catalogue = translation(lang)
        self.lang = lang
        THEME.language = lang
        for uid, (func, largs, _kwargs) in list(self.observers.items()):
            try:
                func(largs, None, None)
            except ReferenceError:  # the widget the rule was bound for is gone (a closed popup)
                self.observers.pop(uid, None)


TR = Lang()
