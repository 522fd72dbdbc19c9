"""A finished play, exported for the BG Stats app (as its "push a play" JSON) and as CSV.

Pure and stdlib-only: data in, text out. No file I/O and no clock: every time is a
wall time (Unix seconds, UTC) that the caller passes in the :class:`FinishedPlay`.
Any thread may call anything here.

**Which BG Stats format, and why.** BG Stats (Board Game Stats, by Eerko Vissering)
reads two JSON shapes:

1. The *push* format, documented for exactly our case, "Push plays to BG Stats from
   other apps or websites":
   https://www.bgstatsapp.com/support/push-plays-to-bg-stats-from-other-apps-or-websites/
   One finished play as one JSON object (``sourceName``, ``sourcePlayId``, ``playDate``,
   ``durationMin``, ``comments``, ``board``, ``location``, ``game`` {``name``, ``bggId``,
   ``sourceGameId``, ``highestWins``, ``noPoints``}, ``players`` [{``name``,
   ``sourcePlayerId``, ``score``, ``winner``, ``startPlayer``, ``rank``, ``role``}]),
   url-encoded into a link that opens the app's import dialog. The app matches the game
   by BGG id and name and the players by name, and remembers each match *per source*,
   so the user matches "Anna" to their own Anna once and never again.
2. The *play file* (``.bgsplay``): the app's own share/backup format, a copy of its
   database ("about", "players", "games", "locations", "plays" with ``gameRefId`` and
   ``playerScores[].playerRefId``, plus uuids, ``modificationDate``s and ``userInfo``).
   The app's page on it (https://www.bgstatsapp.com/explanations/importing-own-files-into-board-game-stats/)
   was not readable from here; its fields are known only from samples
   (https://pastebin.com/iDbHyBui) and from third-party writers.

We implement (1): it is the format the app documents for other apps, it needs no
invented database ids, and the app's own matching and de-duplication are built on its
``source*`` ids. :func:`to_bgstats` writes the JSON; :func:`to_bgstats_link` wraps it in
the ``createPlay.html?data=`` link (the page's own text elides the address; the one used
here is the one every public implementation found uses, e.g. lindsaykwardell/clocktracker
PR #299 and the "Rulebook Rebels" bot).

Choices where the documentation is silent or was unreadable (the page's "Description of
elements" list did not survive in the stored copy):

* ``playDate`` is the play's **end**, in **UTC**, as ``YYYY-MM-DD HH:MM:SS``: the
  documented example's shape; "UTC end time" is how independent implementations read
  the page (OyinQ: "Official createPlay contract: playDate is the UTC END time").
* ``winner`` and ``startPlayer`` on every player and ``highestWins``/``noPoints`` on the
  game are always written: the Android app is reported to reject a payload without
  them ("org.json.JSONException: No value for startPlayer", clocktracker PR #299).
  ``bggId`` is a JSON number, never a string (a string is reported to crash the iOS app).
* Optional fields we have no value for (``bggId``, ``score``, ``rank``, ``location``,
  ``comments``, ``board``, ``role``) are left out rather than sent empty or as 0.
* A player's colour goes in ``role``: the push format has no colour field, and ``role``
  is its only free-text field per seat.
* ``highestWins`` is always true: all four games rank by most points (Volatio, a race,
  has no points, and then ``noPoints`` is true).
* The ``players`` array keeps the order the players are given: BG Stats keeps a seat
  order, and the format does not say the order is irrelevant. The ids do not depend
  on that order (see :func:`to_bgstats`).
"""

from __future__ import annotations

import csv
import io
import json
import math
import unicodedata
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Final
from urllib.parse import quote

from companion.errors import InvalidInput

BGSTATS_LINK_BASE: Final = "https://app.bgstatsapp.com/createPlay.html?data="
"""Where a push-format play goes, url-encoded (``bgstats://app.bgstatsapp.com/...`` also opens it)."""

CSV_FIELDS: Final = ("date", "game", "player", "colour", "score", "winner", "rank", "duration_min")
"""The CSV header, in order."""

_ID_NAMESPACE: Final = uuid.uuid5(uuid.NAMESPACE_URL, "https://table-companion.invalid/bgstats")
# The namespace of every id we hand BG Stats. Changing it makes the app treat every player
# and every play it has seen from us as new, so tests pin the ids it yields.

_MAX_WALL_S: Final = 253_402_300_800.0  # 10000-01-01T00:00:00Z: past it, no date can be written


@dataclass(frozen=True)
class PlayerResult:
    """One seat of a finished play: who, how they did, and where they sat."""

    name: str
    score: float | int | None  # None: the game has no points, or none were recorded
    is_winner: bool
    colour: str | None = None
    start_player: bool = False
    rank: int | None = None  # 1 for first place; None when not ranked


@dataclass(frozen=True)
class FinishedPlay:
    """A play that has ended: the game, the wall times it ran between, and every seat.

    ``started_wall``/``ended_wall`` are Unix seconds (UTC); the duration comes from them.
    """

    game_key: str  # the registry's key: "dragons-gold"
    game_name: str
    bgg_id: int | None
    started_wall: float
    ended_wall: float
    players: tuple[PlayerResult, ...]
    location: str | None = None
    comment: str = ""

    @property
    def duration_min(self) -> int:
        """Whole minutes between start and end, half a minute rounding up."""
        return math.floor((self.ended_wall - self.started_wall) / 60 + 0.5)


def check_play(play: FinishedPlay) -> None:
    """Refuse a play that no export could write faithfully.

    :raises InvalidInput: naming the field (``players``, ``players[2].name``,
        ``players[0].score``, ``ended_wall``, ...) and quoting its value, for: no players,
        a blank name or one with control characters or lone surrogates, two players with the same name (case
        and surrounding spaces aside: BG Stats matches players by name), a NaN or infinite
        score, a rank below 1, two start players, a blank game key or name, a BGG id below
        1, a wall time that is not a date between 1970 and 9999, or a play that ends before
        it starts.
    """
    if not play.game_key.strip():
        raise InvalidInput("game_key", play.game_key, "a play needs the game's key")
    if not play.game_name.strip():
        raise InvalidInput("game_name", play.game_name, "a play needs the game's name")
    if play.bgg_id is not None and (isinstance(play.bgg_id, bool) or play.bgg_id < 1):
        raise InvalidInput("bgg_id", play.bgg_id, "a BoardGameGeek id is a positive whole number, or None")
    for field in ("started_wall", "ended_wall"):
        wall = getattr(play, field)
        if not (math.isfinite(wall) and 0 <= wall < _MAX_WALL_S):
            raise InvalidInput(field, wall, "must be Unix seconds between 1970 and the year 9999")
    if play.ended_wall < play.started_wall:
        raise InvalidInput("ended_wall", play.ended_wall,
                           f"the play ends before it starts (started_wall={play.started_wall!r})")
    if not play.players:
        raise InvalidInput("players", play.players, "a finished play needs at least one player")
    seen: dict[str, int] = {}
    start_player: int | None = None
    for i, player in enumerate(play.players):
        field = f"players[{i}]"
        _check_name(f"{field}.name", player.name)
        key = _name_key(player.name)
        if key in seen:
            j = seen[key]
            raise InvalidInput(f"{field}.name", player.name,
                               f"the same name as players[{j}] ({play.players[j].name!r}); "
                               "BG Stats matches players by name, so each needs a different one")
        seen[key] = i
        score = player.score
        if score is not None and (isinstance(score, bool) or not math.isfinite(score)):
            raise InvalidInput(f"{field}.score", score, "must be a finite number, or None for no score")
        if player.rank is not None and (isinstance(player.rank, bool) or player.rank < 1):
            raise InvalidInput(f"{field}.rank", player.rank, "a rank is 1 or more (1 is first), or None")
        if player.start_player:
            if start_player is not None:
                raise InvalidInput(f"{field}.start_player", player.start_player,
                                   f"players[{start_player}] already started; a play has one start player")
            start_player = i


def to_bgstats(play: FinishedPlay, *, source: str = "Table companion") -> str:
    """The play as BG Stats' push-format JSON text (see the module docstring for the format).

    Names and text are kept as given, not escaped to ASCII. The output is deterministic:
    object keys are sorted (JSON objects are unordered, and the documented example is
    itself in key order), the ``players`` array keeps the order given, and the ids are
    uuid5s of content, not random:

    * ``sourcePlayId``: from the game key, the start time and the set of player names,
      so exporting the same play again (say, with a score corrected, or the players
      listed in another order) lets BG Stats recognise it instead of adding a second play;
    * ``sourcePlayerId``: from the player's name alone (case and surrounding spaces
      aside), so the same person keeps the same id from play to play and the app's
      remembered match applies;
    * ``sourceGameId``: the game's registry key, which is already stable.

    *source* is ``sourceName``: BG Stats keys remembered matches on it, so keep it fixed.

    :raises InvalidInput: for a play :func:`check_play` refuses, or a blank *source*.
    """
    return json.dumps(_bgstats_document(play, source), ensure_ascii=False, sort_keys=True,
                      separators=(",", ":"), allow_nan=False)


def to_bgstats_link(play: FinishedPlay, *, source: str = "Table companion") -> str:
    """A link that opens BG Stats' import dialog on this play (show it as a QR code on the Pi).

    :raises InvalidInput: as :func:`to_bgstats`.
    """
    return BGSTATS_LINK_BASE + quote(to_bgstats(play, source=source), safe="")


def to_csv(plays: Sequence[FinishedPlay]) -> str:
    """One CSV row per player per play, under a header (:data:`CSV_FIELDS`); RFC 4180 quoting.

    ``date`` is when the play started, ISO 8601 in UTC (``2025-03-01T19:05:00Z``);
    ``score`` and ``rank`` are empty when None; ``winner`` is ``true`` or ``false``;
    ``duration_min`` is :attr:`FinishedPlay.duration_min`. Plays and players keep the
    order given. Lines end in CRLF, as RFC 4180 says; encode the text as UTF-8 (with a
    BOM, ``utf-8-sig``, if it is for a spreadsheet that guesses encodings).

    :raises InvalidInput: for any play :func:`check_play` refuses, the field prefixed with
        the play's index (``plays[1].players[0].score``).
    """
    out = io.StringIO(newline="")
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_FIELDS)
    for p, play in enumerate(plays):
        try:
            check_play(play)
        except InvalidInput as exc:
            raise InvalidInput(f"plays[{p}].{exc.field}", exc.value, exc.why) from None
        date = _utc(play.started_wall).strftime("%Y-%m-%dT%H:%M:%SZ")
        for player in play.players:
            writer.writerow((date, play.game_name, player.name, player.colour or "",
                             _number_text(player.score), "true" if player.is_winner else "false",
                             "" if player.rank is None else str(player.rank), str(play.duration_min)))
    return out.getvalue()


def player_id(name: str) -> str:
    """The ``sourcePlayerId`` BG Stats gets for a player of this name, in every play."""
    return str(uuid.uuid5(_ID_NAMESPACE, "player\x1f" + _name_key(name)))


def play_id(play: FinishedPlay) -> str:
    """The ``sourcePlayId`` of *play*: the same for the same game, start and set of players."""
    names = sorted(_name_key(p.name) for p in play.players)
    content = "\x1f".join(["play", play.game_key, repr(float(play.started_wall)), *names])
    return str(uuid.uuid5(_ID_NAMESPACE, content))


def _bgstats_document(play: FinishedPlay, source: str) -> dict[str, Any]:
    check_play(play)
    if not source.strip():
        raise InvalidInput("source", source, "BG Stats needs the sending app's name")
    game: dict[str, Any] = {
        "name": play.game_name,
        "sourceGameId": play.game_key,
        "highestWins": True,
        "noPoints": all(p.score is None for p in play.players),
    }
    if play.bgg_id is not None:
        game["bggId"] = play.bgg_id
    doc: dict[str, Any] = {
        "sourceName": source,
        "sourcePlayId": play_id(play),
        "playDate": _utc(play.ended_wall).strftime("%Y-%m-%d %H:%M:%S"),
        "durationMin": play.duration_min,
        "game": game,
        "players": [_bgstats_player(p) for p in play.players],
    }
    if play.location is not None and play.location.strip():
        doc["location"] = play.location
    if play.comment:
        doc["comments"] = play.comment
    return doc


def _bgstats_player(player: PlayerResult) -> dict[str, Any]:
    seat: dict[str, Any] = {
        "name": player.name,
        "sourcePlayerId": player_id(player.name),
        "winner": player.is_winner,
        "startPlayer": player.start_player,
    }
    if player.score is not None:
        seat["score"] = player.score
    if player.rank is not None:
        seat["rank"] = player.rank
    if player.colour:
        seat["role"] = player.colour
    return seat


def _check_name(field: str, name: str) -> None:
    if not name.strip():
        raise InvalidInput(field, name, "a player needs a name")
    if any(unicodedata.category(ch) in ("Cc", "Cs") for ch in name):
        # Control characters break CSV rows and screens; a lone surrogate cannot be UTF-8 at all.
        raise InvalidInput(field, name, "a name cannot hold control characters (tabs, line breaks)")


def _name_key(name: str) -> str:
    """What makes two names the same person: case and surrounding spaces do not count."""
    return unicodedata.normalize("NFC", name.strip()).casefold()


def _utc(wall: float) -> datetime:
    """The wall time as a UTC datetime, to the whole second (rounded down)."""
    return datetime.fromtimestamp(math.floor(wall), tz=UTC)


def _number_text(score: float | int | None) -> str:
    """A score as CSV text that reads back to the same number: ``repr`` is exact for floats."""
    if score is None:
        return ""
    return repr(score) if isinstance(score, float) else str(score)
