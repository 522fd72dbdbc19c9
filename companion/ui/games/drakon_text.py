"""What Drakon's screen says: the heroes' names, the variant's goal, coin counts, a photo's
coins, the sides of the outcome, and the summary line under the players.

Main thread only (it reads the language in use).
"""

from __future__ import annotations

from typing import Any

from companion.errors import CompanionError
from companion.games import drakon
from companion.games.drakon import Hero
from companion.games.drakon import photo as drakon_photo
from companion.games.drakon import play as drakon_play
from companion.ui.lang import TR
from companion.ui.results import seated


def hero_name(hero: Hero) -> str:
    """The hero's name in the language in use (literal msgids, so the extractor finds them)."""
    return {
        Hero.AMAZON: TR._("Amazon"), Hero.BARBARIAN: TR._("Barbarian"), Hero.DWARF: TR._("Dwarf"),
        Hero.KNIGHT: TR._("Knight"), Hero.THIEF: TR._("Thief"), Hero.WIZARD: TR._("Wizard"),
    }[hero]


def goal_text(variant: str) -> str:
    """The chosen variant's goal, its numbers from the rules module."""
    if variant == "escape":
        return TR._("Goal: {gold} gold, then out through an Escape or a Teleport").format(
            gold=drakon.ESCAPE_GOAL_GOLD)
    if variant == "team":
        return TR._("Goal: {gold} gold for a team of two").format(gold=drakon.TEAM_GOAL_GOLD)
    if variant == "five-coins":
        return TR._("Goal: the first to hold {coins} coins of any value").format(
            coins=drakon.FIXED_STAKE_COINS)
    return TR._("Goal: the first to {gold} gold wins at once").format(gold=drakon.STANDARD_GOAL_GOLD)


NBSP = "\u00a0"


def unbroken(text: str) -> str:
    """*text* with no-break spaces: a line may wrap before "Team B 8" or after it, never inside."""
    return text.replace(" ", NBSP)


def coin_unit(count: float) -> str:
    """What follows a coin count on a stepper: ``coin`` for one, ``coins`` for any other count."""
    return TR._("coin") if count == 1 else TR._("coins")


def coins_summary(values: tuple[str, ...]) -> str:
    """A photo's coins in a line: ``3 · 2 · 1 = 6 gold``."""
    coins = drakon_photo.coin_worths(values)
    return TR._("{coins} = {gold} gold").format(coins=drakon_play.to_coins_text(coins), gold=sum(coins))


def side_name(side: str, variant: str) -> str:
    """A side of the outcome as shown: a player's name, or "Team A" in the team variant."""
    return unbroken(TR._("Team {name}").format(name=side)) if variant == "team" else side


def summary_text(doc: dict[str, Any], names: list[str], entered: int, *, variant: str,
                 revealed: bool) -> str:
    """The summary line for the sheet *doc* of the players *names*, *entered* of whom have put
    their values on it.

    Before the reveal it says who holds the goal and how many players entered their coins; it
    never shows a value, a total or who leads. After it: the totals (and the team totals), who
    reached the goal, and who has the most gold. A sheet the rules refuse gives the refusal.
    """
    if len(names) < drakon.MIN_PLAYERS:
        return TR._("Drakon is for {low} to {high} players: add them on the Home screen").format(
            low=drakon.MIN_PLAYERS, high=drakon.MAX_PLAYERS)
    try:
        out = drakon.score_document(doc)
    except CompanionError as exc:
        return str(exc)
    reached = ", ".join(side_name(s, variant) for s in out["goal_reached"])
    if not revealed:
        lines = [TR._("Secret coins entered: {done} of {players}").format(done=entered, players=len(names))]
        if reached:
            lines.append(TR._("Goal reached: {sides}. Hold to reveal.").format(sides=reached))
        return "\n".join(lines)
    totals = " · ".join(unbroken(f"{name} {gold}") for name, gold in seated(out["totals"], names).items())
    if out.get("team_totals") is not None:
        teams = out["team_totals"].items()
        totals += "   " + " · ".join(unbroken(f"{side_name(t, variant)} {gold}") for t, gold in teams)
    goal = (TR._("Goal reached: {sides}").format(sides=reached) if reached
            else TR._("Nobody reached the goal"))
    most = ", ".join(side_name(s, variant) for s in out["leaders"])
    leaders = TR._("Most gold: {sides}").format(sides=most)
    return f"{totals}\n{goal}   {leaders}"
