"""A name typed by touch: the app's own letter keyboard, for a kiosk that has no other.

Kivy's docked :class:`~kivy.uix.vkeyboard.VKeyboard` was the other way. It was not chosen
because Kivy 2.3.1 ships no Hungarian or Russian layout; docked, it is scaled to the window's
width, so its 5 rows are about 46 px high at 800x480 and 41 px at 720x1280, under the 48 px
a wet finger needs; its keys are drawn on a canvas, so a journey cannot tap them as widgets
nor the layout checker measure them; and ``keyboard_mode`` is one setting for the whole
process and for every text field. This keyboard is made of the app's own buttons. It types
into nothing but itself, so no system keyboard or Kivy keyboard is ever asked for.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from kivy.lang import Builder
from kivy.properties import BooleanProperty, ListProperty, ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.modalview import ModalView
from kivy.uix.widget import Widget

from companion.ui.lang import TR
from companion.ui.theme import MIN_TOUCH_PX, THEME
from companion.ui.widgets import TouchButton

ALPHABETS: dict[str, tuple[str, ...]] = {
    "en": ("qwertyuiop", "asdfghjkl", "zxcvbnm-'"),
    "hu": ("qwertzuiopőú", "asdfghjkléáű", "íyxcvbnmöüó-"),  # the Hungarian QWERTZ, with every accent
    "ru": ("йцукенгшщзхъ", "фывапролджэ", "ячсмитьбюё-"),  # ЙЦУКЕН
}
"""The letter rows of each alphabet, lower case; shift gives ``str.upper``."""
MAX_NAME_LEN = 16


def layout_for(lang: str) -> str:
    """The keyboard layout (a key of :data:`ALPHABETS`) of the app's language *lang*: its own
    layout where there is one, else the English one."""
    return lang if lang in ALPHABETS else "en"


def starts_word(typed: str) -> bool:
    """True where the next letter begins a word (a name is capitalised there by itself)."""
    return not typed or typed[-1] in " -"


class NameKeyboard(ModalView):  # type: ignore[misc]
    """Letters for a player's name; Add hands the name to ``add`` and stays open for the next.

    ``add(name)`` returns None when the player was added, or the refusal to show (the name is
    taken, the table is full); a refused name stays typed. Done adds what is typed, if
    anything, and closes. The first letter of each word is a capital unless shift is tapped
    off. Each opening starts on the layout of the app's language (:func:`layout_for`); the
    layout keys switch it for as long as it stays open. A USB keyboard, where there is one,
    types here too. Main thread only.
    """

    typed = StringProperty("")
    alphabet = StringProperty("en")
    shift = BooleanProperty(True)
    message = StringProperty("")
    refused = BooleanProperty(False)
    colour = StringProperty("")
    """The next player's colour, by its name (shown translated on the colour key)."""
    colour_rgba = ListProperty([0.3, 0.3, 0.3, 1])
    add: Callable[[str], str | None] = ObjectProperty(lambda _name: None)
    next_colour: Callable[[], None] = ObjectProperty(lambda: None)

    def __init__(self, **kwargs: Any) -> None:
        self.letter_keys: list[TouchButton] = []  # before Kivy's __init__, which builds them (on_kv_post)
        super().__init__(**kwargs)
        self.fbind("alphabet", lambda *_: self._build_rows())
        self.fbind("shift", lambda *_: self._label_keys())

    def on_kv_post(self, _base: Any) -> None:
        self._build_rows()

    # -- opening and closing ----------------------------------------------------------------

    def open(self, *args: Any, **kwargs: Any) -> None:
        from kivy.core.window import Window

        self.size_hint = (1, None)
        self.height = min(Window.height, THEME.u * 10)
        self.typed, self.message, self.refused = "", "", False
        self.shift = True
        self.alphabet = layout_for(TR.lang)  # each opening: the app's language's letters
        Window.bind(on_textinput=self._on_textinput, on_key_down=self._on_key_down)
        super().open(*args, **kwargs)

    def on_dismiss(self) -> None:
        from kivy.core.window import Window

        Window.unbind(on_textinput=self._on_textinput, on_key_down=self._on_key_down)

    # -- typing -------------------------------------------------------------------------------

    def press(self, letter: str) -> None:
        if len(self.typed) >= MAX_NAME_LEN:
            self._say(TR._("{count} letters at most").format(count=MAX_NAME_LEN), refused=True)
            return
        if letter == " " and starts_word(self.typed):
            return  # no leading or double spaces: a name is trimmed anyway
        self.typed += letter.upper() if self.shift else letter
        self.shift = starts_word(self.typed)
        self._say("")

    def back(self) -> None:
        self.typed = self.typed[:-1]
        self.shift = starts_word(self.typed)
        self._say("")

    def toggle_shift(self) -> None:
        self.shift = not self.shift

    def choose_alphabet(self, alphabet: str) -> None:
        self.alphabet = alphabet

    def add_typed(self) -> bool:
        """Add what is typed; True when it was added."""
        name = self.typed.strip()
        if not name:
            self._say(TR._("Type a name first"), refused=True)
            return False
        refusal = self.add(name)
        if refusal is not None:
            self._say(refusal, refused=True)
            return False
        self.typed = ""
        self.shift = True
        self._say(TR._("{name} is at the table").format(name=name))
        return True

    def done(self) -> None:
        if self.typed.strip() and not self.add_typed():
            return  # refused: the name stays, with the reason
        self.dismiss()

    def _say(self, text: str, refused: bool = False) -> None:
        self.message, self.refused = text, refused

    # -- a USB keyboard, where there is one ----------------------------------------------------

    def _on_textinput(self, _window: Any, text: str) -> bool:
        for char in text:
            if char.isalpha() or char in " -'":
                self.typed += char if len(self.typed) < MAX_NAME_LEN else ""
        self.shift = starts_word(self.typed)
        return True

    def _on_key_down(self, _window: Any, key: int, *_args: Any) -> bool:
        if key == 8:  # backspace
            self.back()
            return True
        if key in (13, 271):  # enter, keypad enter
            self.add_typed()
            return True
        return False

    # -- the keys ---------------------------------------------------------------------------

    def _build_rows(self) -> None:
        """The letter rows of the alphabet chosen; every key of an alphabet is as wide as the
        others, a shorter row is centred."""
        box = self.ids.rows
        box.clear_widgets()
        self.letter_keys = []
        rows = ALPHABETS[self.alphabet]
        widest = max(len(r) for r in rows)
        for letters in rows:
            row = BoxLayout(spacing=THEME.u * 0.1)
            side = (widest - len(letters)) / 2
            if side:
                row.add_widget(Widget(size_hint_x=side))
            for letter in letters:
                key = TouchButton()
                key.size_hint_min_x = MIN_TOUCH_PX  # twelve keys a row in 720 px still fit
                # One size for every letter of a row (a wide Ш would shrink alone), set after the
                # kv rule's own size.
                key.bind(width=lambda k, w: setattr(k, "base_font_size", min(THEME.u * 0.6, w * 0.55)))
                key.letter = letter
                key.bind(on_release=lambda b: self.press(b.letter))
                row.add_widget(key)
                self.letter_keys.append(key)
            if side:
                row.add_widget(Widget(size_hint_x=side))
            box.add_widget(row)
        self._label_keys()

    def _label_keys(self) -> None:
        for key in self.letter_keys:
            key.text = key.letter.upper() if self.shift else key.letter


KV_FILE = Path(__file__).with_suffix(".kv")
if str(KV_FILE) not in Builder.files:
    Builder.load_file(str(KV_FILE))
