"""What the status strip says after Undo or Redo: the action taken back or put back, in the
players' words ("Undone: Negotiation started")."""

from __future__ import annotations

from companion.store import StoredEvent
from companion.timers import Phase, TimerBoard
from companion.ui.lang import TR
from companion.ui.timer import timer_label


def undo_note(event: StoredEvent, board: TimerBoard, *, redone: bool) -> str:
    """The strip's note once *event* was undone (or, with *redone*, redone); *board* is the
    timers as that left them (a start or a pause is told apart by it)."""
    what = _action(event, board, redone)
    return (TR._("Redone: {what}") if redone else TR._("Undone: {what}")).format(what=what)


def _action(event: StoredEvent, board: TimerBoard, redone: bool) -> str:
    """The action *event* stands for, as a phrase for the note."""
    kind, data = event.kind, event.data
    if kind.startswith("timer."):
        name = str(data.get("name", ""))
        timer = timer_label(name)
        if kind == "timer.toggle":
            running = name in board and board[name].phase is Phase.RUNNING
            # redone, a start leaves it running; undone, a pause does
            started = running if redone else not running
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
    elif kind.startswith("play.") and data.get("player"):
        return TR._("{player}'s move").format(player=data["player"])
    elif kind.startswith("play."):
        return TR._("the game's last entry")
    elif kind.startswith("table."):
        return TR._("the seating")
    return TR._("the last action")
