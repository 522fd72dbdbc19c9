"""Languages: gettext catalogues for English, Hungarian and Russian, switchable at run time.

The catalogues live in ``companion/locale/LANG/LC_MESSAGES/companion.po`` (the source)
and ``.mo`` (compiled by ``scripts/i18n``); every user-facing string of the app is a
msgid in all three. English has a catalogue of its own too, so a missing English text
shows up in the same test as a missing Hungarian one.
"""

from __future__ import annotations

import gettext
from pathlib import Path

DOMAIN = "companion"
LOCALE_DIR = Path(__file__).with_name("locale")
LANGUAGES: dict[str, str] = {"en": "English", "hu": "Magyar", "ru": "Русский"}


def translation(lang: str) -> gettext.NullTranslations:
    """The catalogue for *lang*; an unknown language falls back to the msgids (English).

    :raises OSError: never: a missing catalogue falls back too (the tests make sure none is).
    """
    return gettext.translation(DOMAIN, LOCALE_DIR, languages=[lang], fallback=True)


def N_(text: str) -> str:  # noqa: N802 - gettext's own name for "mark, don't translate yet"
    """*text* itself, marked for the catalogue (``scripts/i18n.py`` collects the texts given to it):
    a name kept as data, such as a game's title, translated where a screen shows it."""
    return text
