"""The games' own screens: one module (and kv file) per game, named by the game's ``GameInfo.screen``.

A module ``companion.ui.games.<screen>`` defines ``SCREEN``, a :class:`BaseScreen` subclass; the
app shows it as ``game:<key>``. A game without one gets the plain game page.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from kivy.lang import Builder

from companion.games import registered


def screen_class(game: str) -> Any | None:
    """The screen class of the game registered as *game*, its kv loaded; None while it has none."""
    info = registered(game)
    name = info.screen if info is not None else None
    if name is None:
        return None
    module = importlib.import_module(f"companion.ui.games.{name}")
    kv = Path(module.__file__ or "").with_suffix(".kv")
    if kv.exists() and str(kv) not in Builder.files:
        Builder.load_file(str(kv))
    return module.SCREEN
