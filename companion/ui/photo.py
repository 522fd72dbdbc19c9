"""Scores from a photo of the table: the photo with each piece outlined and labelled, every
reading correctable by touch before it counts.

A game's screen has a Photo button (when a piece reader is set up: ``Services.read_pieces``).
:class:`PhotoTaker` runs the reader on a worker thread (a frame and its reading take a
moment) and opens a :class:`PhotoPopup` with what came back. The popup shows the photo, each
piece outlined in the colour of its call (read, set by a player, needing a tap, not for this
game, left out) and labelled with its number, and the same pieces, numbered, with their values
as a list beside it. A tap on a piece, in the photo or in the list, opens a :class:`PiecePicker`: the game's
values, and "Not a piece". "Use these" hands the counted values to the screen, which puts them
on the sheet through the checks its own buttons use, or returns the refusal to show; "Cancel"
changes nothing. What counts is :class:`companion.games.table_photo.PhotoTally`'s; this module
only draws it and passes the touches on.

Main thread only, but for the reader itself.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kivy.clock import Clock
from kivy.core.text import Label as CoreLabel
from kivy.event import EventDispatcher
from kivy.graphics import Color, Line, Rectangle
from kivy.graphics.texture import Texture
from kivy.lang import Builder
from kivy.properties import BooleanProperty, ListProperty, NumericProperty, StringProperty
from kivy.uix.popup import Popup
from kivy.uix.widget import Widget

from companion.errors import CompanionError, InvalidInput, NoCamera, NotRegistered
from companion.games.table_photo import Call, PhotoPiece, PhotoTally, PieceCall, PieceRules, piece_at
from companion.ui.lang import TR
from companion.ui.theme import FONT_NAME, THEME
from companion.ui.widgets import MIN_FONT_PX, TouchButton

log = logging.getLogger(__name__)

KV_FILE = Path(__file__).with_suffix(".kv")

DROPPED_RGBA = [0.55, 0.55, 0.55, 1.0]
"""A piece left out ("not a piece"): grey, like a disabled button."""

ROW_DIM = 0.5
"""The list's rows are their call's colour darkened this much: white text stays readable on them."""

TOUCH_SLACK_U = 0.4
"""A tap this many touch units outside a piece's outline still picks it: fingers are wide."""


def call_colour(call: Call) -> list[float]:
    """The colour a piece is outlined in: green read, yellow set by a player, amber needing a
    tap, red not for this game, grey left out."""
    if call is Call.READ:
        return list(THEME.green)
    if call is Call.GIVEN:
        return list(THEME.primary)
    if call is Call.OTHER_KIND:
        return list(THEME.red)
    if call is Call.DROPPED:
        return list(DROPPED_RGBA)
    return list(THEME.amber)


@dataclass(frozen=True)
class PhotoGame:
    """What one game's screen tells the popup: its rules for reading pieces, how a value is
    named (``value_name``: in the list and the summary; ``button_text``: on the picker's
    buttons), its buttons' fill (``value_fill``, or None for the plain one), the picker's
    columns, and the summary line for the counted values (``describe``)."""

    rules: PieceRules
    value_name: Callable[[str], str]
    describe: Callable[[tuple[str, ...]], str]
    columns: int = 3
    button_text: Callable[[str], str] | None = None
    value_fill: Callable[[str], list[float] | None] | None = None


def call_text(call: PieceCall, game: PhotoGame) -> str:
    """One piece's line in the list: its value, or why it is not counted."""
    if call.value is not None:
        return game.value_name(call.value)
    piece = call.piece
    if call.call is Call.DROPPED:
        return TR._("not a piece")
    if call.call is Call.FACE_DOWN:
        return TR._("face down: tap to give its value")
    if call.call is Call.UNKNOWN:
        return TR._("not recognised: tap to say what it is")
    if call.call is Call.UNMAPPED:
        return TR._("{name}: no value in this game").format(name=piece.front or "?")
    return TR._("{kind}: not for this game").format(kind=piece.kind or "?")


def camera_error_text(exc: CompanionError) -> str:
    """What the overhead camera's one-line error says to the players, in their language where
    it is theirs to act on: no camera, no pieces registered; else the camera's own line."""
    if isinstance(exc, NoCamera):
        return TR._("The camera gives no picture: {why}").format(why=str(exc))
    if isinstance(exc, NotRegistered):
        return TR._("No pieces are registered for the camera yet: the host registers them first")
    return str(exc)


def photo_label(number: int, call: PieceCall) -> str:
    """The short label drawn on a piece in the photo: its number (the list beside the photo has
    the same number and the value), ``?`` after it while open, ``×`` when left out. Only the
    number: at a readable size, "6 blue donkey" spreads over the neighbouring pieces' labels."""
    if call.value is not None:
        return str(number)
    return f"{number} ×" if call.call is Call.DROPPED else f"{number} ?"


def photo_texture(reading: dict[str, Any]) -> Texture:
    """The reading's frame as a texture (``rgb``: RGB bytes, rows top to bottom).

    :raises InvalidInput: for a frame whose bytes do not make its ``width`` x ``height``.
    """
    width, height, rgb = reading.get("width"), reading.get("height"), reading.get("rgb")
    if not (isinstance(width, int) and isinstance(height, int) and width > 0 and height > 0
            and isinstance(rgb, (bytes, bytearray)) and len(rgb) == width * height * 3):
        raise InvalidInput("rgb", f"{width}x{height}", "the photo's bytes do not make its size")
    texture = Texture.create(size=(width, height), colorfmt="rgb")
    texture.blit_buffer(bytes(rgb), colorfmt="rgb", bufferfmt="ubyte")
    texture.flip_vertical()  # the frame's rows go top to bottom, a texture's bottom to top
    return texture


class PhotoView(Widget):  # type: ignore[misc]
    """The photo, as large as fits, each piece outlined and labelled; a tap on a piece
    dispatches ``on_piece(index)``."""

    __events__ = ("on_piece",)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.texture: Texture | None = None
        self.frame_size: tuple[int, int] = (1, 1)
        self.pieces: tuple[PhotoPiece, ...] = ()
        self.colours: list[list[float]] = []
        self.labels: list[Any] = []  # one rendered text texture per piece
        self.fbind("pos", self._redraw)
        self.fbind("size", self._redraw)

    def show(self, texture: Texture | None, frame_size: tuple[int, int], pieces: Sequence[PhotoPiece],
             colours: Sequence[list[float]], labels: Sequence[str]) -> None:
        self.texture, self.frame_size, self.pieces = texture, frame_size, tuple(pieces)
        self.colours = list(colours)
        self.labels = [self._render(text) for text in labels]
        self._redraw()

    def _render(self, text: str) -> Any:
        label = CoreLabel(text=text, font_name=FONT_NAME, font_size=max(MIN_FONT_PX, int(THEME.u * 0.38)))
        label.refresh()
        return label.texture

    def fit(self) -> tuple[float, float, float]:
        """Where the photo is drawn: its left and bottom edge (widget coordinates) and its scale."""
        fw, fh = self.frame_size
        scale = max(1e-6, min(self.width / fw, self.height / fh))
        return self.x + (self.width - fw * scale) / 2, self.y + (self.height - fh * scale) / 2, scale

    def to_widget(self, x_px: float, y_px: float) -> tuple[float, float]:
        """A point of the photo (pixels, y down) in widget coordinates."""
        left, bottom, scale = self.fit()
        return left + x_px * scale, bottom + (self.frame_size[1] - y_px) * scale

    def to_photo(self, x: float, y: float) -> tuple[float, float]:
        """A widget point in the photo's pixels (y down)."""
        left, bottom, scale = self.fit()
        return (x - left) / scale, self.frame_size[1] - (y - bottom) / scale

    def piece_center(self, index: int) -> tuple[float, float]:
        """Where piece *index*'s label is, in widget coordinates (for a finger, or a test's)."""
        return self.to_widget(*self.pieces[index].center_px)

    def _redraw(self, *_: Any) -> None:
        self.canvas.clear()
        left, bottom, scale = self.fit()
        fw, fh = self.frame_size
        with self.canvas:
            Color(rgba=THEME.background)
            Rectangle(pos=self.pos, size=self.size)
            if self.texture is not None:
                Color(1, 1, 1, 1)
                Rectangle(texture=self.texture, pos=(left, bottom), size=(fw * scale, fh * scale))
            for piece, colour in zip(self.pieces, self.colours, strict=True):
                if len(piece.outline_px) < 2:
                    continue
                Color(rgba=colour)
                points = [c for p in piece.outline_px for c in self.to_widget(*p)]
                Line(points=points, close=True, width=1.2 if colour == DROPPED_RGBA else 2.2)
            for i, texture in enumerate(self.labels):
                cx, cy = self.piece_center(i)
                w, h = texture.size
                Color(rgba=[0, 0, 0, 0.72])
                Rectangle(pos=(cx - w / 2 - 3, cy - h / 2 - 2), size=(w + 6, h + 4))
                Color(rgba=self.colours[i])
                Rectangle(pos=(cx - w / 2 - 3, cy - h / 2 - 4), size=(w + 6, 2))
                Color(1, 1, 1, 1)
                Rectangle(texture=texture, pos=(cx - w / 2, cy - h / 2), size=(w, h))

    def on_touch_down(self, touch: Any) -> bool:
        if not self.collide_point(*touch.pos):
            return False
        touch.ud[self._key] = self._piece_at(touch.pos)
        return True

    def on_touch_up(self, touch: Any) -> bool:
        if self._key not in touch.ud:
            return False
        index = touch.ud.pop(self._key)
        # A tap, not a slide: the finger lifts on the piece it came down on.
        if index is not None and self.collide_point(*touch.pos) and self._piece_at(touch.pos) == index:
            self.dispatch("on_piece", index)
        return True

    @property
    def _key(self) -> str:
        return f"photo-view-{id(self)}"

    def _piece_at(self, pos: tuple[float, float]) -> int | None:
        _left, _bottom, scale = self.fit()
        return piece_at(self.pieces, self.to_photo(*pos), THEME.u * TOUCH_SLACK_U / scale)

    def on_piece(self, index: int) -> None:
        pass


class PiecePicker(Popup):  # type: ignore[misc]
    """What one piece is: a big button per value of the game, "Not a piece", and Cancel."""

    columns = NumericProperty(3)
    drop_text = StringProperty("")
    cancel_text = StringProperty("")

    def __init__(self, number: int, game: PhotoGame, current: str | None,
                 chosen: Callable[[str | None], None], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.title = TR._("Piece {number}: what is it?").format(number=number)
        self.columns = game.columns
        self.drop_text, self.cancel_text = TR._("Not a piece"), TR._("Cancel")
        self._chosen = chosen
        self.value_buttons: dict[str, TouchButton] = {}
        name = game.button_text or game.value_name
        for value in game.rules.values:
            fill = game.value_fill(value) if game.value_fill is not None else None
            button = TouchButton(text=name(value), selected=value == current, fill=fill or [0, 0, 0, 0])
            button.bind(on_release=lambda _b, v=value: self.pick(v))
            self.value_buttons[value] = button
            self.ids.choices.add_widget(button)

    def pick(self, value: str | None) -> None:
        """*value* for the piece (None: not a piece), and the picker closes."""
        self.dismiss()
        self._chosen(value)


class PhotoPopup(Popup):  # type: ignore[misc]
    """The photo with its pieces, their list, the counted total, Cancel and "Use these"."""

    summary = StringProperty("")
    note = StringProperty("")
    note_colour = ListProperty(THEME.muted)
    can_use = BooleanProperty(False)
    cancel_text = StringProperty("")
    use_text = StringProperty("")

    def __init__(self, reading: dict[str, Any], game: PhotoGame, apply: Callable[[tuple[str, ...]], str],
                 **kwargs: Any) -> None:
        """*apply* gets the counted values when "Use these" is tapped; it returns "" when they are
        on the sheet, or the refusal to show (then nothing is on it and the popup stays).

        :raises InvalidInput: for a reading that is not the camera's shape.
        """
        tally = PhotoTally.of(reading, game.rules)
        texture = photo_texture(reading)
        super().__init__(**kwargs)
        self.game = game
        self.tally = tally
        self.refusal = ""
        self.applied: tuple[str, ...] | None = None  # what "Use these" put on the sheet
        self.picker: PiecePicker | None = None
        self.rows: list[TouchButton] = []
        self._apply = apply
        self.cancel_text, self.use_text = TR._("Cancel"), TR._("Use these")
        self._frame = (int(reading["width"]), int(reading["height"]))
        self._texture = texture
        for i in range(len(tally.pieces)):
            row = TouchButton(halign="left")
            row.bind(on_release=lambda _b, n=i: self.choose(n))
            self.rows.append(row)
            self.ids.rows.add_widget(row)
        self.ids.photo.bind(on_piece=lambda _v, n: self.choose(n))
        self._show()

    def choose(self, index: int) -> None:
        """Open the picker for piece *index*."""
        call = self.tally.call(index)
        self.picker = PiecePicker(index + 1, self.game, call.value,
                                  lambda value: self.correct(index, value))
        self.picker.open()

    def correct(self, index: int, value: str | None) -> None:
        """Piece *index* is *value* (None: not a piece)."""
        self.tally = self.tally.correct(index, value)
        self.refusal = ""
        self._show()

    def use(self) -> None:
        """Put the counted values on the sheet, or show why the sheet refuses them."""
        if not self.tally.is_complete:
            return
        values = self.tally.values
        refusal = self._apply(values)
        if refusal:
            self.refusal = refusal
            self._show()
            return
        self.applied = values
        self.dismiss()

    def cancel(self) -> None:
        self.dismiss()

    def _show(self) -> None:
        calls = self.tally.calls()
        colours = [call_colour(c.call) for c in calls]
        for i, (row, call) in enumerate(zip(self.rows, calls, strict=True)):
            row.text = f"{i + 1} · {call_text(call, self.game)}"
            row.fill = [c * ROW_DIM for c in colours[i][:3]] + [1.0]
        self.ids.photo.show(self._texture, self._frame, self.tally.pieces, colours,
                            [photo_label(i + 1, c) for i, c in enumerate(calls)])
        values = self.tally.values
        self.summary = self.game.describe(values) if values else TR._("Nothing counted")
        waiting = len(self.tally.open)
        self.can_use = waiting == 0
        if self.refusal:
            self.note, self.note_colour = self.refusal, list(THEME.red)
        elif waiting:
            self.note = TR._("{count} to tap: give each its value, or “Not a piece”").format(count=waiting)
            self.note_colour = list(THEME.amber)
        elif not calls:
            self.note, self.note_colour = TR._("The camera saw no pieces"), list(THEME.muted)
        else:
            self.note = TR._("Tap a piece to correct it; green: read, yellow: yours, grey: left out")
            self.note_colour = list(THEME.muted)


class PhotoTaker(EventDispatcher):  # type: ignore[misc]
    """One screen's Photo button: the reading on a worker thread, one at a time, then the popup.

    ``busy`` is True while the camera reads (the screen disables its button on it). Main thread.
    """

    busy = BooleanProperty(False)

    def __init__(self, notify: Callable[[str], None], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._notify = notify
        self.popup: PhotoPopup | None = None

    def take(self, read: Callable[[], dict[str, Any]] | None, game: PhotoGame, title: str,
             apply: Callable[[tuple[str, ...]], str]) -> None:
        """Read the table with *read* and open the popup titled *title* for *game*; *apply* as
        :class:`PhotoPopup` takes it. An error is one line on the status strip."""
        if read is None or self.busy:
            return
        self.busy = True
        self._notify(TR._("Looking at the table…"))

        def work() -> None:
            reading: dict[str, Any] | None = None
            error: str | None = None  # None with no reading: our bug, logged here
            try:
                reading = read()
            except CompanionError as exc:  # the camera's own errors arrive as one line each
                error = camera_error_text(exc)
            except Exception:
                # Not the user's doing: logged with its traceback, and the button comes back.
                log.exception("reading the table's pieces failed")
            Clock.schedule_once(lambda _dt: self._answered(reading, error, game, title, apply))

        threading.Thread(target=work, name="piece-reader", daemon=True).start()

    def _answered(self, reading: dict[str, Any] | None, error: str | None, game: PhotoGame, title: str,
                  apply: Callable[[tuple[str, ...]], str]) -> None:
        self.busy = False
        if reading is None:
            self._notify(error if error is not None else TR._("The camera could not read the table"))
            return
        try:
            popup = PhotoPopup(reading, game, apply, title=title)
        except CompanionError as exc:
            self._notify(str(exc))
            return
        self._notify("")
        self.popup = popup
        popup.open()


if str(KV_FILE) not in Builder.files:
    Builder.load_file(str(KV_FILE))
