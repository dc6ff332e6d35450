"""Quattro e mezzo (seed 004), the sibling game: all against all, for points.

The same engine, encoder and adapters as Siete y Media play it: the game is the rules
preset ``quattro_e_mezzo`` (``scoring: points``; docs/rules.md, "Quattro e mezzo"). This
module gives it its own PettingZoo id and ``env()``::

    import pettingzoo, siete_env
    env = pettingzoo.make("aec", "QuattroEMezzo-v0", num_players=4, episode="game")

- ``episode="hand"`` (default): one hand; ``"game"``: a whole game, until a seat reaches
  ``target_score`` points (50 by default; seed 004 suggests 50 or 100).
- Rewards are points: a hand's winners score the points table's value of their hand,
  nobody loses any.
- Actions are the masked discrete actions of Siete y Media (``STAND``, ``HIT_UP``,
  ``HIT_DOWN`` where the rules allow it); there are no bets. Declarations (4½, 7½, a double
  six) are automatic: the engine shows the hand when it is made.
"""

from __future__ import annotations

from typing import Any, Literal

from pettingzoo.utils.env import AECEnv

from .aec import AssertOutOfBoundsWrapper, OrderEnforcingWrapper, TerminateIllegalWrapper
from .aec import raw_env as _SieteEnv
from .rules import Rules, resolve_rules

PRESET = "quattro_e_mezzo"
EPISODES = ("hand", "game")


def quattro_rules(
    episode: Literal["hand", "game"] = "hand",
    target_score: int | None = None,
    rules: dict[str, Any] | Rules | None = None,
) -> Rules:
    """The rules of a quattro e mezzo table: the preset, with ``rules`` (a dict of options,
    or a ``Rules`` of the points game) and the episode's length on top."""
    if episode not in EPISODES:
        raise ValueError(f"episode must be 'hand' (one hand) or 'game' (to the target score), got {episode!r}")
    if isinstance(rules, Rules):
        base = rules
    elif rules is None or isinstance(rules, dict):
        base = resolve_rules({"preset": PRESET, **(rules or {})})
    else:
        raise ValueError(f"rules must be a dict of rule options or a Rules, not {type(rules).__name__}")
    if base.scoring != "points":
        raise ValueError(f"quattro e mezzo is a points game: these rules have scoring: {base.scoring}")
    extra: dict[str, Any] = {"play_to_target": episode == "game"}
    if target_score is not None:
        extra["target_score"] = target_score
    spec = {**base.model_dump(), **extra}
    return resolve_rules(spec)


class raw_env(_SieteEnv):  # noqa: N801  (PettingZoo's name for the unwrapped environment)
    """The AEC environment of quattro e mezzo (``siete_env.aec.raw_env`` under its rules)."""

    metadata = {**_SieteEnv.metadata, "name": "quattro_e_mezzo_v0"}

    def __init__(
        self,
        num_players: int = 4,
        episode: Literal["hand", "game"] = "hand",
        target_score: int | None = None,
        rules: dict[str, Any] | Rules | None = None,
        render_mode: str | None = None,
    ):
        self.episode = episode
        super().__init__(
            num_players=num_players, rules=quattro_rules(episode, target_score, rules), render_mode=render_mode
        )


def env(**kwargs: Any) -> AECEnv:
    """``raw_env`` in PettingZoo's standard wrappers (as ``siete_env.env``)."""
    e = raw_env(**kwargs)
    e = TerminateIllegalWrapper(e, illegal_reward=-1)
    e = AssertOutOfBoundsWrapper(e)
    e = OrderEnforcingWrapper(e)
    return e


__all__ = ["EPISODES", "PRESET", "env", "quattro_rules", "raw_env"]
