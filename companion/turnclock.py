"""A chess-clock for slow tables: each player has a budget, a tap passes the turn.

Pure, like :mod:`companion.timers`: every command takes *now* (monotonic seconds)
and returns ``(new, events)``. A player whose budget runs out keeps playing in
overtime: their remaining time goes negative and :class:`OvertimeReached` is
reported once for them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from companion.errors import InvalidInput, TimerStateError
from companion.events import OvertimeReached, TurnPassed, TurnStarted
from companion.timers import check_duration

TurnEvent = TurnStarted | TurnPassed | OvertimeReached


@dataclass(frozen=True)
class TurnClock:
    """Per-player budgets; one player on the clock at a time.

    ``used_s[i]`` is what player *i* used in finished turns (minus increments);
    the running turn began at ``turn_started`` (None while paused or not started).
    """

    players: tuple[str, ...]
    budget_s: float
    increment_s: float = 0.0
    current: int = 0
    used_s: tuple[float, ...] = ()
    turn_started: float | None = None
    is_started: bool = False
    in_overtime: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        if len(self.players) < 2:
            raise InvalidInput("players", list(self.players), "a turn clock needs two or more players")
        if len(set(self.players)) != len(self.players):
            raise InvalidInput("players", list(self.players), "player names must be distinct")
        check_duration("budget_s", self.budget_s)
        check_duration("increment_s", self.increment_s, allow_zero=True)
        if not self.used_s:
            object.__setattr__(self, "used_s", (0.0,) * len(self.players))

    @classmethod
    def for_players(cls, players: Sequence[str], budget_s: float, increment_s: float = 0.0) -> TurnClock:
        return cls(tuple(players), budget_s, increment_s)

    @property
    def player(self) -> str:
        """Whose turn it is."""
        return self.players[self.current]

    @property
    def is_running(self) -> bool:
        return self.turn_started is not None

    def remaining_s(self, player: str, now: float) -> float:
        """Budget left for *player* at *now*; negative while in overtime.

        :raises InvalidInput: for a name not at this table.
        """
        i = self._index(player)
        used = self.used_s[i]
        if i == self.current and self.turn_started is not None:
            used += now - self.turn_started
        return self.budget_s - used

    def overtime_s(self, player: str, now: float) -> float:
        """How far past their budget *player* is (0 when within it)."""
        return max(0.0, -self.remaining_s(player, now))

    def next_due(self) -> float | None:
        """When the player on the clock runs out, if that is still to come."""
        if self.turn_started is None or self.player in self.in_overtime:
            return None
        return self.turn_started + self.budget_s - self.used_s[self.current]

    def start(self, now: float) -> tuple[TurnClock, list[TurnEvent]]:
        """Put the first player (or, after a pause, the same one) on the clock."""
        if self.turn_started is not None:
            raise TimerStateError("the turn clock is already running")
        running = replace(self, turn_started=now, is_started=True)
        after, due = running.poll(now)
        return after, [TurnStarted(self.player, self.remaining_s(self.player, now), now), *due]

    def pause(self, now: float) -> tuple[TurnClock, list[TurnEvent]]:
        if self.turn_started is None:
            raise TimerStateError("the turn clock is not running")
        after, due = self.poll(now)
        used = list(after.used_s)
        used[self.current] += now - self.turn_started
        return replace(after, used_s=tuple(used), turn_started=None), due

    def pass_turn(self, now: float) -> tuple[TurnClock, list[TurnEvent]]:
        """The tap: the player on the clock ends their turn and the next one starts theirs."""
        if self.turn_started is None:
            raise TimerStateError("the turn clock is not running; start it first")
        after, due = self.poll(now)
        turn_s = now - self.turn_started
        used = list(after.used_s)
        used[self.current] += turn_s - self.increment_s
        nxt = (self.current + 1) % len(self.players)
        passed = replace(after, used_s=tuple(used), current=nxt, turn_started=now)
        event = TurnPassed(self.player, passed.player, turn_s, passed.remaining_s(passed.player, now), now)
        final, more = passed.poll(now)
        return final, [*due, event, *more]

    def poll(self, now: float) -> tuple[TurnClock, list[TurnEvent]]:
        """Report the player on the clock running out of budget, once."""
        if self.turn_started is None or self.player in self.in_overtime:
            return self, []
        if self.remaining_s(self.player, now) > 0:
            return self, []
        return (replace(self, in_overtime=self.in_overtime | {self.player}),
                [OvertimeReached(self.player, now)])

    def _index(self, player: str) -> int:
        try:
            return self.players.index(player)
        except ValueError:
            raise InvalidInput("player", player, f"not at this table {list(self.players)!r}") from None
