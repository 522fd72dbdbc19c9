"""What the status strip says after Undo or Redo: the action taken back or put back, in the
players' words ("Undone: Negotiation started")."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.session import TableSession
from companion.store import StoredEvent
from companion.timers import Phase, TimerBoard
from companion.ui.lang import TR
from companion.ui.timer import timer_label


def undo_with_note(session: TableSession) -> str:
    """Take back *session*'s last action; the strip's note saying which."""
    before = _phases(session.board)  # a toggle undone is told by what it had left
    return undo_note(session.undo(), before, redone=False)


def redo_with_note(session: TableSession) -> str:
    """Put back *session*'s last action undone; the strip's note saying which."""
    event = session.redo()
    return undo_note(event, _phases(session.board), redone=True)


def undo_note(event: StoredEvent, phases: Mapping[str, Phase], *, redone: bool) -> str:
    """The strip's note once *event* was undone (or, with *redone*, redone); *phases* is each
    timer's phase as *event* left it: before the undo, after the redo."""
    what = _action(event, phases)
    return (TR._("Redone: {what}") if redone else TR._("Undone: {what}")).format(what=what)


def _phases(board: TimerBoard) -> dict[str, Phase]:
    """Each timer's phase on *board*."""
    return {name: board[name].phase for name in board.names}


def _action(event: StoredEvent, phases: Mapping[str, Phase]) -> str:
    """The action *event* stands for, as a phrase for the note."""
    kind, data = event.kind, event.data
    if kind.startswith("timer."):
        name = str(data.get("name", ""))
        timer = timer_label(name)
        if kind == "timer.toggle":
            # a start leaves the timer running (or run out since); a pause leaves it paused
            started = phases.get(name) in (Phase.RUNNING, Phase.EXPIRED)
            return (TR._("{timer} started") if started else TR._("{timer} paused")).format(timer=timer)
        phrase = {
            "timer.add": TR._("{timer} added"),
            "timer.adjust": TR._("{timer}'s time changed"),
            "timer.flip": TR._("{timer} turned over"),
            "timer.reset": TR._("{timer} reset"),
            "timer.cancel": TR._("{timer} removed"),
        }.get(kind)
        if phrase is not None:
            return phrase.format(timer=timer)
    elif kind.startswith("turn."):
        return TR._("the turn clock's last change")
    elif kind in ("score.set", "score.set_many") and data.get("player"):
        return TR._("{player}'s score entry").format(player=data["player"])
    elif kind.startswith("score."):
        return TR._("a scoring choice")
    elif kind.startswith("play."):
        return _move(kind.removeprefix("play."), data)
    elif kind.startswith("table."):
        return TR._("the seating")
    return TR._("the last action")


def _move(kind: str, data: Mapping[str, Any]) -> str:
    """A game's move (``dg.place``, ``volatio.crash``...) as a phrase: what it was and whose."""
    player = data.get("player")
    if player:
        phrase = {
            "dg.place": TR._("{player}'s adventurer sent"),
            "volatio.start_card": TR._("{player}'s start card"),
            "volatio.reveal": TR._("{player}'s speed revealed"),
            "volatio.crash": TR._("{player}'s penalty"),
            "volatio.collision": TR._("{player}'s collision"),
            "volatio.energy_field": TR._("{player}'s energy field"),
            "volatio.lose_energy": TR._("{player}'s energy token lost"),
            "volatio.draw_card": TR._("{player}'s card drawn"),
            "volatio.lay_card": TR._("{player}'s card laid"),
            "volatio.progress": TR._("{player}'s position"),
            "drakon.count": TR._("{player}'s coin count"),
            "drakon.ability": TR._("{player}'s ability used"),
        }.get(kind, TR._("{player}'s move"))
        return phrase.format(player=player)
    return {
        "dg.reveal": TR._("the dragon turned up"),
        "dg.kill": TR._("the dragon's defeat"),
        "dg.shared": TR._("the treasure's sharing"),
        "dg.market": TR._("the market"),
        "dg.variant": TR._("the rules' variant"),
        "volatio.next_round": TR._("the new round"),
        "volatio.finish": TR._("the finish"),
        "drakon.heroes": TR._("the heroes dealt"),
        "drakon.reveal": TR._("the reveal"),
    }.get(kind, TR._("the game's last entry"))
