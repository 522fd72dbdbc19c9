"""Journeys through the Home screen, by taps alone: names typed on the app's own keyboard, the
language kept over a restart, the games' player counts, and chips that hold still."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tests.ui.kit import find, result, screen, start_game, tap, until
from tests.ui.layout import faults


def key(view: Any, text: str) -> Any:
    """The one button of *view* (the keyboard) showing *text*."""
    hits = [w for w in view.walk() if getattr(w, "text", None) == text and hasattr(w, "trigger_action")]
    assert len(hits) == 1, (text, len(hits))
    return hits[0]


async def tap_at(app: Any, pos: tuple[float, float]) -> None:
    """A tap at a point of the window, wherever the widgets under it are now."""
    async for _ in app.do_touch_down_up(pos=pos, duration=0.05):
        pass
    await app.wait_clock_frames(2)


async def type_letters(app: Any, keyboard: Any, letters: str) -> None:
    """Tap each letter's key; the case the keys show is the case typed (shift is automatic at
    the start of a word)."""
    for letter in letters:
        if letter == " ":
            await tap(app, keyboard.ids.space)
            continue
        shown = letter.upper() if keyboard.shift else letter.lower()
        if shown != letter:
            await tap(app, keyboard.ids.shift)
        await tap(app, key(keyboard, letter))


async def type_names(app: Any, names: Iterable[str]) -> None:
    """From Home: Add player, each name then Add, and Done."""
    home = screen(app, "home")
    await tap(app, home.ids.add_player)
    keyboard = home.keyboard
    assert keyboard is not None, "the keyboard did not open"
    for name in names:
        alphabet = "ru" if any("а" <= c.lower() <= "я" or c.lower() == "ё" for c in name) else \
            "hu" if any(c in "áéíóöőúüűÁÉÍÓÖŐÚÜŰ" for c in name) else "en"
        await tap(app, keyboard.ids[f"abc_{alphabet}"])
        await type_letters(app, keyboard, name)
        await tap(app, keyboard.ids.add)
        assert keyboard.typed == "", (name, keyboard.message)
    await tap(app, keyboard.ids.done)
    await until(app, lambda: home.keyboard is None)


def home_faults(app: Any) -> list[str]:
    """The layout checker's faults on what is on top, the status strip (not this screen's) left out."""
    return faults(_window(), skip=app.strip)


def _window() -> Any:
    from kivy.core.window import Window

    return Window


def names(app: Any) -> list[str]:
    return [p.name for p in screen(app, "home").players]


async def home_keyboard(app: Any) -> None:
    """Tap the name field, type a name with an accent, Add: the player is at the table with that
    exact name. No other keyboard opens, and every key is big enough."""
    from kivy.uix.textinput import TextInput
    from kivy.uix.vkeyboard import VKeyboard

    home = screen(app, "home")
    await tap(app, home.ids.name_input)
    keyboard = home.keyboard

    assert keyboard is not None and keyboard.parent is not None, "the keyboard did not open"
    window = _window()
    assert not any(isinstance(w, VKeyboard) for w in window.children), "Kivy's keyboard opened too"
    shown = [w for child in window.children for w in child.walk()]
    assert not any(isinstance(w, TextInput) and w.focus for w in shown), "a text field took the focus"
    assert home_faults(app) == [], home_faults(app)
    await tap(app, keyboard.ids.abc_hu)
    assert home_faults(app) == [], home_faults(app)
    for letter in "Dávidd":  # the D is a capital by itself: the first letter of a word
        await tap(app, key(keyboard, letter))
    await tap(app, keyboard.ids.back)
    assert keyboard.typed == "Dávid", keyboard.typed
    await tap(app, keyboard.ids.add)
    assert names(app) == ["Dávid"], names(app)
    assert keyboard.parent is not None and keyboard.typed == ""  # open for the next name
    await tap(app, keyboard.ids.add)  # nothing typed: refused, with the reason
    assert names(app) == ["Dávid"] and keyboard.refused and keyboard.message, keyboard.message
    await tap(app, keyboard.ids.abc_ru)
    assert home_faults(app) == [], home_faults(app)
    await type_letters(app, keyboard, "Юля")
    await tap(app, keyboard.ids.done)  # Done adds what is typed, and closes
    await until(app, lambda: home.keyboard is None)
    assert keyboard.parent is None
    assert names(app) == ["Dávid", "Юля"], names(app)
    chips = [w.text for w in home.ids.players.walk() if type(w).__name__ == "TouchButton"]
    assert "Dávid" in chips and "Юля" in chips, chips
    await tap(app, home.ids.start)  # the sand-timer, with the two
    assert [p.name for p in app.svc.session.players] == ["Dávid", "Юля"]
    result(names=names(app))


async def home_language_saved(app: Any) -> None:
    """Tap Magyar: the app speaks Hungarian, and the config says so (for the next start)."""
    await tap(app, find(app, "TouchButton", "Magyar"))
    assert find(app, "TouchButton", "Időzítő") is not None
    result(config=app.svc.config_path.read_text(encoding="utf-8"))


async def home_language_restored(app: Any) -> None:
    """A new process on the same config: it comes up in Hungarian."""
    from companion.ui.lang import TR

    assert find(app, "TouchButton", "Időzítő") is not None
    assert screen(app, "home").ids.lang_hu.selected
    result(lang=TR.lang)


async def home_language_unsaved(app: Any) -> None:
    """The config cannot be written: the switch still happens, the status line says it is not
    kept, and nothing breaks."""
    from companion.ui.lang import TR

    before = app.svc.config_path.read_text(encoding="utf-8")
    await tap(app, find(app, "TouchButton", "Русский"))
    assert TR.lang == "ru" and find(app, "TouchButton", "Таймер") is not None
    assert app.strip.note == TR._("The language is not saved: the config file cannot be written"), app.strip.note
    assert app.svc.config_path.read_text(encoding="utf-8") == before
    await tap(app, find(app, "TouchButton", "English"))  # and the app goes on
    assert find(app, "TouchButton", "Timer") is not None
    result(ok=True)


async def home_player_counts(app: Any) -> None:
    """Start is refused at once, with the game's range, for too few or too many players; the
    Start button shows the chosen game's range before anyone taps it."""
    from companion.ui.lang import TR

    home = screen(app, "home")
    note = home.ids.start_note
    assert note.text == "" and home.count_ok  # the sand-timer takes any count
    await type_names(app, ["Anna", "Bence"])
    await tap(app, find(app, "TouchButton", "Dragon's Gold"))
    assert note.text == TR._("{low}–{high} players").format(low=3, high=6), note.text
    assert not home.count_ok and not home.ids.start.primary  # Start is not the yellow button now
    await tap(app, home.ids.start)
    assert app.manager.current == "home" and app.svc.session is None and app.svc.store.open_session() is None
    said = [app.strip.note]
    assert said[0] == "Dragon's Gold is for 3 to 6 players (2 at the table)", said
    await type_names(app, ["Csilla", "Dávid"])
    await tap(app, find(app, "TouchButton", "Gold!"))
    assert note.text == TR._("{low}–{high} players").format(low=2, high=3), note.text
    await tap(app, home.ids.start)
    assert app.manager.current == "home" and app.svc.session is None
    said.append(app.strip.note)
    assert said[1] == "Gold! is for 2 to 3 players (4 at the table)", said
    await tap(app, find(app, "TouchButton", "Dragon's Gold"))
    assert home.count_ok
    await tap(app, home.ids.start)
    assert app.manager.current == "game:dragons-gold"
    assert [p.name for p in app.svc.session.players] == ["Anna", "Bence", "Csilla", "Dávid"]
    result(said=said)


def _recent(app: Any) -> dict[str, Any]:
    return {w.recent_name: w for w in screen(app, "home").ids.recent.children}


def _chip(app: Any, text: str) -> Any:
    return next(w for w in screen(app, "home").ids.players.walk() if getattr(w, "text", None) == text
                and hasattr(w, "trigger_action"))


def _slots(app: Any) -> list[tuple[float, float]]:
    """Where each chip of the players' grid is, in order."""
    return [_where(c) for c in reversed(screen(app, "home").ids.players.children)]


def _where(widget: Any) -> tuple[float, float]:
    x, y = widget.to_window(*widget.center)
    return round(x), round(y)


async def home_stable_chips(app: Any) -> None:
    """Recent players' chips hold still while tapped (four taps at the same four spots add the
    three who are not at the table, each once); a tap on ✕ leaves a chip in place that brings the
    player back; a tap on a player's name only changes their colour."""
    home = screen(app, "home")
    await type_names(app, ["Anna", "Bence", "Csilla", "Dávid"])
    await tap(app, home.ids.start)  # a sand-timer game: the four are now recent players
    await tap(app, find(app, "TouchButton", "Home"))
    recent = _recent(app)
    assert sorted(recent) == ["Anna", "Bence", "Csilla", "Dávid"], sorted(recent)
    assert all(c.disabled and c.text.startswith("✓") for c in recent.values())  # all at the table
    spots = {name: _where(chip) for name, chip in recent.items()}

    # Each ✕ takes one player off; their chip stays in its place, and nothing else moves.
    slots = _slots(app)
    crosses = {w.player: _where(w) for w in home.ids.players.walk() if hasattr(w, "player")}
    for i, name in enumerate(("Anna", "Bence", "Csilla", "Dávid")):
        await tap_at(app, crosses[name])
        assert name not in names(app)
        assert _slots(app) == slots
        assert [c.children[-1].text for c in reversed(home.ids.players.children)][i] == f"↶ {name}"
    assert names(app) == []
    await tap(app, _chip(app, "↶ Bence"))  # undo: Bence is back, in his place
    assert names(app) == ["Bence"]
    assert {n: _where(c) for n, c in _recent(app).items()} == spots  # the recent row never moved

    # Four taps on the four spots: the three others join, once each; Bence's chip does nothing.
    order = sorted(spots, key=lambda n: spots[n][0])
    for name in order:
        await tap_at(app, spots[name])
        assert {n: _where(c) for n, c in _recent(app).items()} == spots
    assert sorted(names(app)) == ["Anna", "Bence", "Csilla", "Dávid"], names(app)
    assert names(app)[0] == "Bence" and len(set(names(app))) == 4

    # A stray tap on a name changes the colour, never removes.
    before = {p.name: p.colour for p in home.players}
    await tap(app, _chip(app, "Anna"))
    after = {p.name: p.colour for p in home.players}
    assert sorted(after) == sorted(before) and after["Anna"] != before["Anna"]
    assert len(set(after.values())) == 4, after  # still no two alike
    assert home_faults(app) == [], home_faults(app)
    result(names=names(app))


async def home_fifth_game(app: Any) -> None:
    """A game added to the registry (the driver adds tests/support/toy_game when the test asks):
    Home offers it with its player range, Start opens its page, the history can filter by it."""
    import os

    from companion.ui.lang import TR

    home = screen(app, "home")
    assert home_faults(app) == [], home_faults(app)
    await type_names(app, ["Anna", "Bence"])
    await tap(app, find(app, "TouchButton", "Toy Race"))
    _window().screenshot(name=os.environ["TOY_SCREENSHOT"])
    assert home.game == "toy-race", home.game
    assert home.ids.start_note.text == TR._("{low}–{high} players").format(low=2, high=4), home.ids.start_note.text
    assert home_faults(app) == [], home_faults(app)
    await tap(app, home.ids.start)
    await until(app, lambda: app.manager.current == "game:toy-race", what="the toy game's page")
    assert app.svc.session.game == "toy-race"
    history = screen(app, "history")
    history.refresh()
    result(page=app.manager.current, filters=[w.text for w in reversed(history.ids.filters.children)])


async def home_start_over(app: Any) -> None:
    """Start with a game in play (a move made, no result yet): the first tap turns Start into a
    red "Start over" and says which game it would end, the game going on meanwhile; the second
    starts the new game. A game with no move yet is left without asking."""
    from companion.ui.theme import THEME

    home = await start_game(app, "Drakon", ("Anna", "Bence", "Csilla"))
    drakon = screen(app, "game:drakon")
    plus = next(w for w in drakon.cards["Anna"].ids.stepper.walk() if getattr(w, "text", "") == "+")
    await tap(app, plus)  # a move: Anna has a coin
    first_id = app.svc.session.id
    await tap(app, find(app, "TouchButton", "Home"))
    await tap(app, find(app, "TouchButton", "Dragon's Gold"))
    assert home.ids.start.text == "Start"
    await tap(app, home.ids.start)
    asked = {"game": app.svc.session.game, "same": app.svc.session.id == first_id, "page": app.manager.current,
             "button": home.ids.start.text, "red": list(home.ids.start.fill) == list(THEME.red),
             "note": app.strip.note}
    assert home_faults(app) == [], home_faults(app)
    await tap(app, home.ids.start)
    await until(app, lambda: app.manager.current == "game:dragons-gold", what="Dragon's Gold's page")
    started = app.svc.session.game
    await tap(app, find(app, "TouchButton", "Home"))  # Dragon's Gold with no move yet
    assert home.ids.start.text == "Start"
    await tap(app, find(app, "TouchButton", "Gold!"))
    await tap(app, home.ids.start)
    await until(app, lambda: app.manager.current == "game:gold", what="Gold!'s page")
    result(asked=asked, started=started, then=app.svc.session.game)


async def home_long_name(app: Any) -> None:
    """A name as long as the keyboard takes (16 letters), too wide for its chip even at the
    smallest text: one line ending in …, on Home and on Dragon's Gold's scoring page, and no
    layout fault."""
    long = "W" + "w" * 15
    await type_names(app, [long, "Anna", "Bence"])

    def shown(view: Any) -> list[tuple[bool, bool, bool]]:
        """For each label showing the long name: shortened, on one line, not overflowing."""
        return [(w.shorten, w.texture_size[1] <= w.height + 0.5, not w.overflows)
                for w in view.walk() if getattr(w, "text", None) == long and hasattr(w, "shorten")]

    home = screen(app, "home")
    on_home = shown(home)
    assert home_faults(app) == [], home_faults(app)
    await tap(app, find(app, "TouchButton", "Dragon's Gold"))
    await tap(app, home.ids.start)
    game = screen(app, "game:dragons-gold")
    await tap(app, game.ids.page_score)
    await app.wait_clock_frames(3)
    result(home=on_home, scoring=shown(game), faults=home_faults(app))


async def home_keyboard_follows_the_language(app: Any) -> None:
    """The name keyboard opens on the layout of the app's language, each time it opens: Latin in
    English, Cyrillic after a switch to Русский (even after it was open in English), the
    Hungarian one in Magyar; its layout keys still switch it while it is open."""
    from companion.ui.keyboard import ALPHABETS

    home = screen(app, "home")

    async def opened() -> tuple[str, str]:
        """Tap the name field; the keyboard's layout and its first row as its keys show it."""
        await tap(app, home.ids.name_input)
        keyboard = home.keyboard
        assert keyboard is not None and keyboard.parent is not None, "the keyboard did not open"
        first_row = "".join(k.letter for k in keyboard.letter_keys[:len(ALPHABETS[keyboard.alphabet][0])])
        return keyboard.alphabet, first_row

    async def close() -> None:
        assert home.keyboard is not None
        await tap(app, home.keyboard.ids.done)
        await until(app, lambda: home.keyboard is None)

    seen = {"en": await opened()}
    await close()
    for lang, title in (("ru", "Русский"), ("hu", "Magyar")):
        await tap(app, find(app, "TouchButton", title))
        seen[lang] = await opened()
        await close()
    await tap(app, find(app, "TouchButton", "Русский"))
    alphabet, _row = await opened()
    keyboard = home.keyboard
    await tap(app, keyboard.ids.abc_en)  # still switchable: a Latin name at a Russian table
    await type_letters(app, keyboard, "John")
    await tap(app, keyboard.ids.done)
    await until(app, lambda: home.keyboard is None)
    assert names(app) == ["John"], names(app)
    again = await opened()  # a new opening starts on the language's layout again
    await close()
    result(seen=seen, switched=alphabet, again=again)


JOURNEYS = {f.__name__: f for f in (home_keyboard, home_language_saved, home_language_restored,
                                     home_language_unsaved, home_player_counts, home_stable_chips,
                                     home_fifth_game, home_start_over, home_long_name,
                                     home_keyboard_follows_the_language)}
