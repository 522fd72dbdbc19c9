"""The games' own screens: one module (and kv file) per game, found by the game's key.

A module ``companion.ui.games.<name>`` defines ``SCREEN``, a :class:`BaseScreen` subclass; the
app shows it as ``game:<key>``. A game without a module yet gets the plain game page.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from kivy.lang import Builder

MODULES: dict[str, str] = {
    "dragons-gold": "dragons_gold",
    "volatio": "volatio",
    "gold": "gold",
    "drakon": "drakon",
}


def screen_class(game: str) -> Any | None:
    """The game's screen class, its kv loaded; None while the game has none."""
    name = MODULES.get(game)
    if name is None or not (Path(__file__).parent / f"{name}.py").exists():
        return None
    module = importlib.import_module(f"companion.ui.games.{name}")
    kv = Path(module.__file__ or "").with_suffix(".kv")
    if kv.exists() and str(kv) not in Builder.files:
        Builder.load_file(str(kv))
    return module.SCREEN
