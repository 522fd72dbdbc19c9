"""The touch app's side of the venue link: the table's game and scores for the broker, the
venue's commands carried out on the session, and the link's state for Settings.

No MQTT here: the link (``venue.link``) is made by the composition root
(:mod:`companion.ui.launch`) and reaches this module as plain callables (:class:`LinkCalls`).
The session may change under the feed (a new game, a resume, undo and redo rebuild it), so
everything is read from whatever session :class:`Services` holds at the time. Main thread only.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from companion.errors import InvalidInput, TimerStateError
from companion.events import Post, SessionChanged
from companion.session import SessionRebuilt
from companion.standings import game_state, score_state
from companion.timers import Countdown, Phase, main_timer
from companion.ui.lang import TR
from companion.ui.services import Services


class VenueCommand(Protocol):
    """A command from the venue (``venue.protocol.Command``): *action* on *timer* (None: the
    main timer), the *seconds* of an ``add``, the *text* and *shown_s* of an ``announce``."""

    @property
    def action(self) -> str: ...
    @property
    def timer(self) -> str | None: ...
    @property
    def seconds(self) -> float: ...
    @property
    def text(self) -> str: ...
    @property
    def shown_s(self) -> float: ...


@dataclass(frozen=True)
class LinkCalls:
    """What the feed asks of the venue link."""

    start: Callable[[], None]
    """Follow the timers and connect (in the background)."""
    close: Callable[[], None]
    """An offline status and what is queued delivered (for a few seconds at most), then gone."""
    refresh: Callable[[], None]
    """Publish every timer whose state differs from what was last published."""
    publish_game: Callable[[Mapping[str, Any]], None]
    publish_scores: Callable[[Mapping[str, Any]], None]
    state: Callable[[], str]
    """``connecting``, ``connected``, ``unreachable``, ``refused``, ``reconnecting`` or
    ``duplicate`` (``venue.link.VenueLink.state``)."""


class VenueFeed:
    """Keeps the venue's view of the table current, and takes the venue's commands.

    *table* and *broker* are only for the status line. :meth:`start` once the app is up,
    :meth:`close` when it stops.
    """

    def __init__(self, svc: Services, post: Post, *, table: str, broker: str) -> None:
        self.svc = svc
        self._post = post
        self.table = table
        self.broker = broker
        self.link: LinkCalls | None = None
        self.announce: Callable[[str, float], None] = lambda _text, _s: None
        self.state = "connecting"
        """The link's state, as :attr:`LinkCalls.state` gives it."""
        self._due = False
        self._rebuilt = False  # since the last flush: a rebuild's timer events may have been quiet
        self._shown: object = None  # the session the link last showed the timers of
        self._unsubscribe: list[Callable[[], None]] = []
        self._closed = False

    # -- the link's life ----------------------------------------------------------------------

    def start(self, announce: Callable[[str, float], None]) -> None:
        """Follow the sessions on the app's bus, connect, and publish the table as it is."""
        self.announce = announce
        bus = self.svc.bus
        self._unsubscribe += [bus.subscribe(SessionChanged, self._changed),
                              bus.subscribe(SessionRebuilt, self._changed)]
        if self.link is not None:
            self.link.start()
        self.flush()

    def close(self) -> None:
        """Stop following, and close the link (once)."""
        if self._closed:
            return
        self._closed = True
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self._unsubscribe.clear()
        if self.link is not None:
            self.link.close()

    def timers(self) -> dict[str, Countdown]:
        """The current session's timers, by name, in the board's order (none without a session)."""
        session = self.svc.session
        if session is None:
            return {}
        return {name: session.board[name] for name in session.board.names}

    # -- state out ------------------------------------------------------------------------------

    def _changed(self, event: object) -> None:
        # After the event, not during it: a session that is starting or resuming becomes the
        # app's session only once it is made. One publish for all the changes of a frame.
        self._rebuilt = self._rebuilt or isinstance(event, SessionRebuilt)
        if not self._due and not self._closed:
            self._due = True
            self._post(self.flush)

    def flush(self) -> None:
        """Publish the game and the scores of the current session, and its timers when it is
        another session than before or was rebuilt (otherwise the link follows the timers'
        own events); the link sends only what changed."""
        self._due = False
        if self.link is None or self._closed:
            return
        session = self.svc.session
        if self._rebuilt or session is not self._shown:
            self._rebuilt, self._shown = False, session
            self.link.refresh()
        if session is not None:
            self.link.publish_game(game_state(session))
            self.link.publish_scores(score_state(session))

    # -- commands in ----------------------------------------------------------------------------

    def command(self, command: VenueCommand) -> None:
        """Carry out the venue's *command* as a tap would: through the session, so it is logged
        and undoable like one.

        :raises InvalidInput: for a timer the table has not got.
        :raises TimerStateError: for a table without timers, a start of a running timer, a
            pause of one that is not running (and whatever the session itself refuses).
        """
        if command.action == "announce":
            self.announce(command.text, command.shown_s)
            return
        session = self.svc.session
        if session is None or not session.board.names:
            raise TimerStateError("this table has no timers")
        board = session.board
        name = command.timer if command.timer is not None else main_timer(self.timers())
        if name is None or name not in board:
            raise InvalidInput("timer", name, "no such timer here (timers: " + ", ".join(board.names) + ")")
        phase = board[name].phase
        if command.action == "start":
            if phase is Phase.RUNNING:
                raise TimerStateError(f"timer {name!r} is already running")
            session.toggle(name)  # an expired one starts again from full, as a tap on Again
        elif command.action == "pause":
            if phase is not Phase.RUNNING:
                raise TimerStateError(f"timer {name!r} is not running (it is {phase.value})")
            session.toggle(name)
        elif command.action == "reset":
            session.reset(name)
        elif command.action == "add":
            session.adjust(name, command.seconds)
        else:
            raise InvalidInput("command", command.action, "not a command this table takes")

    # -- the link's state -----------------------------------------------------------------------

    def link_said(self, _text: str) -> None:
        """The link's status changed (it calls this on the main thread): connected, lost, or
        refused by the broker. Its state is read once the link has finished saying so."""
        self._post(self._read_state)

    def _read_state(self) -> None:
        if self.link is not None:
            self.state = self.link.state()

    def status_line(self) -> str:
        """``t07 on mqtt://host:1883, connected``, in the language in use."""
        return TR._("{table} on {broker}, {state}").format(table=self.table, broker=self.broker,
                                                          state=state_word(self.state))


def state_word(state: str) -> str:
    """The link's state in the language in use."""
    words = {"connecting": TR._("connecting"), "connected": TR._("connected"),
             "reconnecting": TR._("reconnecting"), "refused": TR._("refused by the broker"),
             "unreachable": TR._("cannot reach the broker"),
             "duplicate": TR._("another table uses this id")}
    return words.get(state, state)
