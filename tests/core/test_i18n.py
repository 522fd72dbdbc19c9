"""The catalogues: every text of the app translated in en, hu and ru, and the .mo files current."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from companion.i18n import LANGUAGES, translation

ROOT = Path(__file__).resolve().parents[2]


def test_i18n_every_msgid_translated_and_mo_current() -> None:
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "i18n.py"), "--check"], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_i18n_catalogues_load_and_differ() -> None:
    texts = {lang: translation(lang).gettext("Settings") for lang in LANGUAGES}
    assert texts == {"en": "Settings", "hu": "Beállítások", "ru": "Настройки"}


def test_i18n_font_draws_every_letter_of_every_catalogue() -> None:
    """DejaVu Sans (shipped in Kivy's wheel) must hold a glyph for each character the app shows."""
    import kivy
    from babel.messages.pofile import read_po
    from fontTools.ttLib import TTFont

    from companion.i18n import LOCALE_DIR

    font = Path(kivy.__file__).parent / "data" / "fonts" / "DejaVuSans.ttf"
    cmap = TTFont(str(font)).getBestCmap()
    missing: set[str] = set()
    for lang in LANGUAGES:
        with open(LOCALE_DIR / lang / "LC_MESSAGES" / "companion.po", "rb") as f:
            for message in read_po(f):
                missing |= {c for c in f"{message.id}{message.string}" if not c.isspace() and ord(c) not in cmap}
    assert missing == set()
    assert all(ord(c) in cmap for c in "őŐűŰáéíóöúüЖжЩщЁё−●⌫↶↷×")
