"""Sizes, colours and the font: one place for what makes the app readable at the table.

The touch unit ``u`` is the smallest control's side in pixels: about 9 mm on both 7" panels
(48 px on the 800x480 display, 72 px on the 720x1280 one), scaled from the window's short side.
"""

from __future__ import annotations

from pathlib import Path

import kivy
from kivy.core.text import LabelBase
from kivy.event import EventDispatcher
from kivy.properties import ListProperty, NumericProperty, StringProperty

MIN_TOUCH_PX = 48
FONT_NAME = "CompanionSans"
# DejaVu Sans ships with Kivy and covers Latin-2 (ő, ű) and Cyrillic.
FONT_FILE = str(Path(kivy.__file__).parent / "data" / "fonts" / "DejaVuSans.ttf")
FONT_BOLD = FONT_FILE  # the wheel ships one weight; bold is drawn by the label


def rgb(hex_colour: str, alpha: float = 1.0) -> list[float]:
    h = hex_colour.lstrip("#")
    return [int(h[i:i + 2], 16) / 255 for i in (0, 2, 4)] + [alpha]


class Theme(EventDispatcher):  # type: ignore[misc]
    u = NumericProperty(MIN_TOUCH_PX)
    language = StringProperty("en")
    background = ListProperty(rgb("#000000"))
    surface = ListProperty(rgb("#1c1c1c"))
    text = ListProperty(rgb("#ffffff"))
    muted = ListProperty(rgb("#bdbdbd"))
    primary = ListProperty(rgb("#ffd21f"))  # sand yellow: black text on it
    on_primary = ListProperty(rgb("#000000"))
    amber = ListProperty(rgb("#ff9f00"))
    red = ListProperty(rgb("#ff2d2d"))
    green = ListProperty(rgb("#2ecc40"))

    def fit_window(self, width: float, height: float) -> None:
        self.u = max(MIN_TOUCH_PX, round(min(width, height) * 0.1))


PLAYER_RGB: dict[str, str] = {
    "red": "#e53935", "blue": "#1e88e5", "green": "#43a047", "yellow": "#fdd835",
    "purple": "#8e24aa", "orange": "#fb8c00", "white": "#fafafa", "black": "#424242",
}

THEME = Theme()


def register_font() -> None:
    LabelBase.register(FONT_NAME, FONT_FILE)
