"""The three scoring screens filled from a photo of the table (tests/ui/photo_scenes.py), through
real touches: the popup shows what the camera's reader reads in the same photo, each correction
is a tap on a piece (in the photo or in the list) and a tap on its value, Cancel applies nothing,
"Use these" applies what was read plus the corrections through the screen's own checks, and
one undo takes it back."""

from __future__ import annotations

from typing import Any

import cv2

from companion.games import table_photo
from companion.games.dragons_gold import photo as dg_pieces
from companion.games.drakon import photo as drakon_pieces
from companion.games.gold import photo as gold_pieces
from companion.games.table_photo import Call, PieceRules
from companion.ui.lang import TR
from companion.ui.photo import PhotoPopup
from tests.ui.kit import hold, result, screen, start_game, tap, until
from vision.library import Library
from vision.reading import read

Shown = tuple[str | None, str | None, str | None, Call, tuple[tuple[float, float], ...]]


def direct_reading(app: Any, rules: PieceRules) -> list[Shown]:
    """What the vision code reads in the camera's photo, called as the game calls it:
    ``(kind, face, front, call, outline)`` a piece, matched pieces first, then the unknown."""
    photo = cv2.imread(str(app.svc.config["camera.source"]))
    library = Library.load(app.svc.config.database_path.parent / "vision" / "library")
    found = read(photo, library)
    doc = found.to_json()
    for item, piece in zip(doc["pieces"] + doc["unknown"], found.pieces + found.unknown, strict=True):
        item["outline_px"] = [[round(x, 1), round(y, 1)] for x, y in piece.outline_px]
    pieces = table_photo.parse_reading(doc)
    return [(p.kind, p.face, p.front, table_photo.first_call(p, rules).call, p.outline_px) for p in pieces]


def shown(popup: PhotoPopup) -> list[Shown]:
    return [(c.piece.kind, c.piece.face, c.piece.front, c.call, c.piece.outline_px) for c in popup.tally.calls()]


def clipped(app: Any) -> list[str]:
    """Texts in the window that do not fit their label (what the screenshot test fails on)."""
    from companion.ui.widgets import FitLabel

    return [w.text for top in app.root_window.children for w in top.walk()
            if isinstance(w, FitLabel) and w.text and w.opacity > 0 and w.overflows]


async def open_photo(app: Any, taker: Any, button: Any) -> PhotoPopup:
    """Tap the screen's Photo button and wait for the camera's answer in its popup."""
    before = taker.popup
    await tap(app, button)
    await until(app, lambda: taker.popup is not before and taker.popup is not None
                and taker.popup.parent is not None, timeout=60)
    popup: PhotoPopup = taker.popup
    await until(app, lambda: popup.ids.photo.width > 100 and popup.ids.rows.height > 0)
    await app.wait_clock_frames(2)
    assert not clipped(app), clipped(app)
    return popup


def find_piece(popup: PhotoPopup, kind: str | None, face: str | None = None, front: str | None = None) -> int:
    """The index of the one piece of the photo that the camera read as *kind*/*face*/*front*."""
    hits = [i for i, p in enumerate(popup.tally.pieces) if (p.kind, p.face, p.front) == (kind, face, front)]
    assert len(hits) == 1, (kind, face, front, [s[:4] for s in shown(popup)])
    return hits[0]


async def tap_in_photo(app: Any, popup: PhotoPopup, index: int) -> Any:
    """Tap piece *index* where it lies in the photo; returns the picker that opens."""
    view = popup.ids.photo
    x, y = view.to_window(*view.piece_center(index))
    async for _ in app.do_touch_down_up(pos=(x, y), duration=0.05):
        pass
    await app.wait_clock_frames(2)
    return await picker_of(app, popup, index)


async def tap_in_list(app: Any, popup: PhotoPopup, index: int) -> Any:
    """Tap piece *index*'s row in the list beside the photo; returns the picker that opens."""
    row = popup.rows[index]
    popup.ids.rows.parent.scroll_to(row, animate=False)
    await app.wait_clock_frames(2)
    await tap(app, row)
    return await picker_of(app, popup, index)


async def picker_of(app: Any, popup: PhotoPopup, index: int) -> Any:
    await until(app, lambda: popup.picker is not None and popup.picker.parent is not None)
    picker = popup.picker
    assert picker.title == TR._("Piece {number}: what is it?").format(number=index + 1), picker.title
    await until(app, lambda: picker.ids.choices.width > 100)
    await app.wait_clock_frames(2)
    return picker


async def give(app: Any, popup: PhotoPopup, index: int, value: str | None, *, in_photo: bool = True) -> None:
    """Correct piece *index* by touch: the piece, then its value (None: "Not a piece")."""
    picker = await (tap_in_photo if in_photo else tap_in_list)(app, popup, index)
    await tap(app, picker.ids.drop if value is None else picker.value_buttons[value])
    await until(app, lambda: picker.parent is None)
    call = popup.tally.call(index)
    assert (call.call, call.value) == ((Call.DROPPED, None) if value is None else (Call.GIVEN, value))


async def closed(app: Any, popup: PhotoPopup) -> None:
    await until(app, lambda: popup.parent is None)


def check_shows_the_reading(app: Any, popup: PhotoPopup, rules: PieceRules) -> None:
    """The popup's pieces and calls are what the vision code reads in the same photo; each has
    a row and an outline on the photo."""
    assert shown(popup) == direct_reading(app, rules)
    assert len(popup.rows) == len(popup.tally.pieces) == len(popup.ids.photo.labels)
    assert all(len(p.outline_px) >= 3 for p in popup.tally.pieces)


# --- Dragon's Gold ----------------------------------------------------------------------------


async def dragons_gold_photo(app: Any) -> None:
    """Anna's treasure from a photo: 2 silver, a gold, a red, a purple read; a disc face down and
    a chamber tile (another kind) open until tapped. Cancel applies nothing; a black diamond the
    box has no more of is refused with nothing applied; the corrected photo is applied, and one
    undo takes it back."""
    await start_game(app, "Dragon's Gold", ("Anna", "Bence", "Csilla"))
    game = screen(app, "game:dragons-gold")
    await tap(app, game.ids.page_score)
    sheet = game.ids.sheet
    session = app.svc.session
    assert sheet.has_photo and sheet.ids.photo.opacity == 1
    # Bence has the black diamond (by a stepper), Anna 4 silver.
    await tap(app, next(t for t in sheet.ids.tabs.children if t.text == "Bence"))
    await tap(app, next(w for w in sheet.counters["black"].walk() if getattr(w, "text", None) == "+"))
    await tap(app, next(t for t in sheet.ids.tabs.children if t.text == "Anna"))
    plus = next(w for w in sheet.counters["silver"].walk() if getattr(w, "text", None) == "+")
    for _ in range(4):
        await tap(app, plus, duration=0.02)
    assert sheet.player == "Anna"
    before, logged = session.score_document(), len(list(session.store.events(session.id)))

    popup = await open_photo(app, sheet.photo, sheet.ids.photo)
    assert popup.title == "Photo: Anna's treasure"
    check_shows_the_reading(app, popup, dg_pieces.PIECES)
    down = find_piece(popup, "treasure", "down")
    tile = find_piece(popup, "chamber", "up", "hall")
    read_values = sorted(popup.tally.values)
    assert read_values == sorted(["silver", "silver", "gold", "red", "purple"])
    assert popup.tally.open == tuple(sorted((down, tile))) and popup.ids.use.disabled
    assert "2 to tap" in popup.note
    # Cancel, after a correction: nothing on the sheet, nothing logged.
    await give(app, popup, down, "purple")
    await tap(app, popup.ids.cancel)
    await closed(app, popup)
    assert session.score_document() == before and len(list(session.store.events(session.id))) == logged

    popup = await open_photo(app, sheet.photo, sheet.ids.photo)
    assert popup.tally.corrections == {}, "a new photo starts from the camera's reading"
    await give(app, popup, down, "white")                   # in the photo
    await give(app, popup, tile, None, in_photo=False)      # in the list: not a piece
    assert popup.tally.is_complete and not popup.ids.use.disabled
    silver = next(i for i, c in enumerate(popup.tally.calls()) if c.value == "silver")
    await give(app, popup, silver, "black")                 # a read disc corrected...
    await tap(app, popup.ids.use)
    assert popup.parent is not None and "there is only one black diamond" in popup.note, popup.note
    assert session.score_document() == before and len(list(session.store.events(session.id))) == logged
    await give(app, popup, silver, "gold", in_photo=False)  # ...and corrected again
    assert popup.note.startswith("Tap a piece"), popup.note
    await tap(app, popup.ids.use)
    await closed(app, popup)
    anna = {"silver": 1, "gold": 2, "red": 1, "purple": 1, "white": 1}
    expected = {field: anna.get(field, 0) for field in dg_pieces.disc_counts(())}
    assert {f: session.score_sheet["Anna"].get(f, 0) for f in expected} == expected, session.score_sheet
    assert {f: int(s.value) for f, s in sheet.counters.items()} == expected
    assert session.score_sheet["Bence"]["black"] == 1
    # one undo takes the whole photo back
    changed = sum(1 for f, n in expected.items() if before["players"]["Anna"].get(f, 0) != n)
    await tap(app, app.nav.ids.undo)
    assert session.score_document() == before
    assert int(sheet.counters["silver"].value) == 4
    result(read=read_values, anna=session.score_document()["players"]["Anna"], changed=changed)


# --- Drakon -------------------------------------------------------------------------------------


async def drakon_photo(app: Any) -> None:
    """Anna's coins at the reveal from a photo: 3, 3, 2, 1 read, one coin face down and a lump of
    clay open; the face-down coin is given 2 in the photo, the clay 1 in the list and then
    dropped. Cancel applies nothing; Use these fills her row; one undo takes it back."""
    await start_game(app, "Drakon", ("Anna", "Bence"))
    drakon_screen = screen(app, "game:drakon")
    await hold(app, drakon_screen.reveal_button)
    assert drakon_screen.revealed
    session = app.svc.session
    row = drakon_screen.reveal_rows["Anna"]
    await tap(app, row.ids.add3)        # Anna entered a 3 by hand before the photo
    row = drakon_screen.reveal_rows["Anna"]
    assert row.has_photo and row.ids.photo.opacity == 1 and row.ids.photo.text == "Photo"
    before, logged = session.score_document(), len(list(session.store.events(session.id)))

    popup = await open_photo(app, drakon_screen.photo, row.ids.photo)
    assert popup.title == "Photo: Anna's coins"
    check_shows_the_reading(app, popup, drakon_pieces.PIECES)
    down = find_piece(popup, "coin", "down")
    clay = find_piece(popup, None)
    read_values = drakon_pieces.coin_worths(popup.tally.values)
    assert read_values == [3, 3, 2, 1]
    assert [popup.tally.call(i).call for i in (down, clay)] == [Call.FACE_DOWN, Call.UNKNOWN]
    assert popup.ids.use.disabled
    await give(app, popup, down, "2")
    await tap(app, popup.ids.cancel)
    await closed(app, popup)
    assert session.score_document() == before and len(list(session.store.events(session.id))) == logged

    row = drakon_screen.reveal_rows["Anna"]
    popup = await open_photo(app, drakon_screen.photo, row.ids.photo)
    await give(app, popup, down, "2")                      # the face-down coin, in the photo
    await give(app, popup, clay, "1", in_photo=False)      # the clay, in the list...
    assert popup.summary == "3 · 3 · 2 · 2 · 1 · 1 = 12 gold", popup.summary
    await give(app, popup, clay, None)                     # ...and then, in the photo: not a piece
    assert popup.summary == "3 · 3 · 2 · 2 · 1 = 11 gold", popup.summary
    await tap(app, popup.ids.use)
    await closed(app, popup)
    assert session.score_document()["players"]["Anna"]["coins"] == [3, 3, 2, 2, 1]
    row = drakon_screen.reveal_rows["Anna"]
    assert (row.coins_text, row.total_text) == ("3 · 3 · 2 · 2 · 1", "11")
    await tap(app, app.nav.ids.undo)
    assert session.score_document() == before
    assert drakon_screen.reveal_rows["Anna"].coins_text == "3"
    await tap(app, app.nav.ids.redo)
    result(read=read_values, anna=session.score_document()["players"]["Anna"]["coins"])


# --- Gold! --------------------------------------------------------------------------------------


async def gold_photo(app: Any) -> None:
    """Anna's display from a photo: red 5, blue donkey, green 8, purple 3 read; a "joker" (a name
    that is no card) and a card face down open. Bence's display has the red 5 already: the photo
    is refused, naming where the card is, with nothing applied; the corrected photo is applied,
    and one undo takes it back."""
    await start_game(app, "Gold!", ("Anna", "Bence"))
    sheet = screen(app, "game:gold")
    session = app.svc.session
    await tap(app, next(t for t in sheet.ids.tabs.children if t.player == "Bence"))
    await tap(app, sheet.card_buttons["red:5"], duration=0.02)
    await tap(app, next(t for t in sheet.ids.tabs.children if t.player == "Anna"))
    await tap(app, sheet.card_buttons["pink:7"], duration=0.02)   # Anna's display before the photo
    assert (sheet.player, sheet.field) == ("Anna", "display")
    assert sheet.has_photo and sheet.ids.photo.opacity == 1
    before, logged = session.score_document(), len(list(session.store.events(session.id)))

    popup = await open_photo(app, sheet.photo, sheet.ids.photo)
    assert popup.title == "Photo: Anna's display"
    check_shows_the_reading(app, popup, gold_pieces.PIECES)
    joker = find_piece(popup, "card", "up", "joker")
    down = find_piece(popup, "card", "down")
    read_values = gold_pieces.card_list(popup.tally.values)
    assert read_values == ["green:8", "blue:donkey", "purple:3", "red:5"]
    assert popup.tally.call(joker).call is Call.UNMAPPED and "joker" in popup.rows[joker].text
    await tap(app, popup.ids.cancel)
    await closed(app, popup)
    assert session.score_document() == before and len(list(session.store.events(session.id))) == logged

    popup = await open_photo(app, sheet.photo, sheet.ids.photo)
    picker = await tap_in_photo(app, popup, down)
    assert len(picker.value_buttons) == 42 and picker.columns == 7
    await tap(app, picker.value_buttons["orange:6"])
    await give(app, popup, joker, None, in_photo=False)
    await tap(app, popup.ids.use)
    assert popup.parent is not None and "No red 5 left" in popup.note and "Bence's display" in popup.note
    assert session.score_document() == before and len(list(session.store.events(session.id))) == logged
    red5 = next(i for i, c in enumerate(popup.tally.calls()) if c.value == "red:5")
    await give(app, popup, red5, "red:6")
    await tap(app, popup.ids.use)
    await closed(app, popup)
    display = ["green:8", "blue:donkey", "purple:3", "red:6", "orange:6"]
    assert session.score_document()["players"]["Anna"]["display"] == display
    assert sorted(c.card for c in sheet.ids.chips.children) == sorted(display)
    assert "Anna's display: the photo's 5 cards are on the sheet" in sheet.message
    await tap(app, app.nav.ids.undo)
    assert session.score_document() == before
    result(read=read_values, display=display)


async def photo_without_a_library(app: Any) -> None:
    """No piece library yet: the Photo button says so in one line on the status strip, in the
    players' words, opens nothing, changes nothing, and is there to tap again."""
    await _photo_refused(app, "registered")


async def photo_without_a_camera(app: Any) -> None:
    """The camera set up gives no picture (and no pieces are registered either): the Photo
    button says first that the camera gives none, in one line, and changes nothing."""
    await _photo_refused(app, "plugged in")


async def _photo_refused(app: Any, word: str) -> None:
    """A photo taken on Gold!'s sheet is refused with a line that says *word*."""
    await start_game(app, "Gold!", ("Anna", "Bence"))
    sheet = screen(app, "game:gold")
    await tap(app, sheet.card_buttons["pink:7"], duration=0.02)
    session = app.svc.session
    before, logged = session.score_document(), len(list(session.store.events(session.id)))
    await tap(app, sheet.ids.photo)
    await until(app, lambda: not sheet.reading and word in app.strip.note, timeout=60)
    assert sheet.photo.popup is None and not sheet.ids.photo.disabled
    assert "\n" not in app.strip.note
    assert session.score_document() == before and len(list(session.store.events(session.id))) == logged
    result(note=app.strip.note)


JOURNEYS = {f.__name__: f for f in (dragons_gold_photo, drakon_photo, gold_photo, photo_without_a_library,
                                     photo_without_a_camera)}
