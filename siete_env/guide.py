"""A player's guide to the table's rules, and the actions in words: what ``play.py``'s ``?``
and the web table's help show. It is written from the ``Rules`` in use (their fields),
so it says what this table plays, not a second copy of the rules.
"""

from __future__ import annotations

from .cards import RANK, RANK_NAMES, SUIT_NAMES, VALUE2, card_name, format_total, parse_card
from .rules import Rules

ACTION_HELP = {
    "STAND": "stop drawing",
    "HIT_UP": "a new card, face-up",
    "HIT_DOWN": "a new card face-down (your face-down card is turned up)",
    "SWAP_FOUR": "give back your initial 4 for the top card",
    "SPLIT": "the figure just drawn starts a new hand",
    "KEEP": "keep the figure in this hand",
    "FUSILAR": "shoot with your 7: a card nobody sees goes under it",
    "BURN": "burn your initial 3 or 4 for the top card",
    "ACE_HALF": "your ace counts ½; later cards come face-down",
    "NO_SIDE_BET": "no side bet",
    "NO_BID": "do not bid for the bank",
    "SELL_BANK": "sell the bank to the best bid",
    "KEEP_BANK": "keep the bank",
}


def describe_action(name: str, rules: Rules | None = None) -> str:
    """An action name in words (``BET_3`` -> ``stake 3``), as the table's ``rules`` play it
    when given (``BURN`` with ``burn_drawn``: a 3 or 4 just drawn too)."""
    if name == "BURN" and rules is not None and rules.burn_drawn:
        return "burn your 3 or 4 (the initial card or one just drawn face-up) for the top card"
    if name in ACTION_HELP:
        return ACTION_HELP[name]
    kind, _, k = name.rpartition("_")
    return {
        "BET": f"stake {k}",
        "RAISE": f"raise the stake to {k}",
        "BID": f"offer {k} for the bank",
        "SIDE_BET": f"back the hand {k} seat(s) after you",
    }.get(kind, "")


def _total(t: float) -> str:
    """A total in points (a rule's field, ``4.5``) as the table writes it (``4½``)."""
    return format_total(round(2 * t))


def player_guide(rules: Rules) -> list[str]:
    """The rules of this table in a few lines, for a person sitting down at it."""
    deck = rules.deck
    suits = ", ".join(SUIT_NAMES[deck])
    figures = ", ".join(RANK_NAMES[deck][r] for r in (10, 11, 12) if not (rules.remove_sotas and r == 10))
    count = len(rules.deck_cards())
    figure_value = format_total(VALUE2[RANK.index(10)])  # the cards' values: siete_env.cards
    lines = [
        f"Cards: {count} ({suits}); 1 to 7 count their number, the figures ({figures}) count {figure_value}.",
    ]
    if rules.wild_card:
        lines.append(
            f"The {card_name(parse_card(rules.wild_card), deck)} is wild: it counts what suits your hand best."
        )
    limit = _total(rules.limit)
    goal = f"Goal: come as close to {limit} as you can without going over (over {limit} is bust)."
    if rules.min_stand:
        goal += f" Nobody stands below {_total(rules.min_stand)}."
    lines.append(goal)
    if rules.scoring == "points":
        best = rules.ranking[0] if rules.ranking else rules.limit
        lines.append(
            f"Points game: every hand plays against every other; {_total(best)} is the best hand"
            + (f", but a {_total(rules.upset[0])} beats a {_total(rules.upset[1])}" if rules.upset else "")
            + (f"; a double {rules.double_rank} wins the hand" if rules.double_rank else "")
            + ". The banker wins every tie. Winners score points; "
            + (f"the first to {rules.target_score} points wins the game." if rules.play_to_target else "points add up.")
        )
    else:
        levels = rules.bet_levels
        stakes = f"{levels[0]}" if len(levels) == 1 else f"{levels[0]} to {levels[-1]}"
        lines.append(
            f"Punters stake {stakes} before playing"
            + (" and may raise it when they hit or stand" if rules.raise_on_draw and len(levels) > 1 else "")
            + "; a bust punter pays at once. Then the banker plays, every card face-up."
        )
        lines.append(
            f"Ties go to the banker. A win pays the stake; a {limit} pays {rules.seven_half_pays}×"
            + (f", a reale (a 7 and a figure) {rules.reale_pays}×" if rules.reale_pays else "")
            + ". A bust banker pays every punter still standing."
        )
    if rules.all_face_up:
        lines.append("Every card is dealt face-up.")
    else:
        later = (
            "later cards come face-down too"
            if rules.max_face_down == "all"
            else "a later card comes face-down only when all your cards are face-up"
            if rules.draw_face_down and not rules.face_down_choice
            else "later cards come face-up or face-down, your choice; at most one face-down at a time"
            if rules.draw_face_down
            else "later cards come face-up"
        )
        lines.append(f"Your first card lies face-down (you alone see it); {later}.")
    if rules.four_swap != "off":
        lines.append(
            f"The four-swap: an initial 4 {'must' if rules.four_swap == 'mandatory' else 'may'} be given back for the top card."
        )
    if rules.burn_three_four:
        which = "an initial 3 or 4, or one just drawn face-up," if rules.burn_drawn else "an initial 3 or 4"
        lines.append(
            f"Burning: {which} may be burnt (shown, out of play) for the top card, again while a 3 or 4 comes."
        )
    if rules.max_splits != 0:
        what = "a card of the same value" if rules.split_any_pair else "a figure"
        lines.append(
            f"Splits: {what} drawn onto a lone card of its value may start a new hand (its own stake), or be kept."
        )
    return lines


__all__ = ["ACTION_HELP", "describe_action", "player_guide"]
