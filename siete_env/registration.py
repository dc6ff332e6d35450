"""Registry ids: PettingZoo's (``SieteYMedia-v0``) and Gymnasium's (``siete_env.gym_env``).

``import siete_env`` registers them all.

| registry | id | entry point | default kwargs |
| --- | --- | --- | --- |
| PettingZoo (1.27+, ``pettingzoo.make("aec", id, ...)``) | ``SieteYMedia-v0`` | ``siete_env.aec:env`` (the AEC environment in PettingZoo's standard wrappers) | ``num_players=2, rules="spanish"`` |
| PettingZoo | ``QuattroEMezzo-v0`` | ``siete_env.quattro:env`` (quattro e mezzo, seed 004: the points game) | ``num_players=4, episode="hand"`` |
| Gymnasium | ``SieteYMedia-Punter-v0`` / ``SieteYMedia-Banker-v0`` | ``siete_env.gym_env:SeatEnv`` | see ``gym_env.register_envs`` |
| Gymnasium | ``QuattroEMezzo-Punter-v0`` / ``QuattroEMezzo-Banker-v0`` | ``siete_env.gym_env:SeatEnv`` | ``rules="quattro_e_mezzo", num_players=4`` |

Every keyword of ``siete_env.env`` can be given to ``make`` (``num_players``, ``rules``,
``render_mode``). Version policy: the ``-vN`` suffix changes whenever the same id and
kwargs would give an environment that is not interchangeable with the old one for a
trained policy or a stored result (the observation layout, the action ids, the rewards, the
rules a preset means, the seeding); additions that leave those alone (a new rule option off
by default, a new render mode) keep the version.
"""

from __future__ import annotations

PETTINGZOO_ID = "SieteYMedia-v0"
PETTINGZOO_KWARGS = {"num_players": 2, "rules": "spanish"}
QUATTRO_ID = "QuattroEMezzo-v0"
QUATTRO_KWARGS = {"num_players": 4, "episode": "hand"}


def register_pettingzoo() -> bool:
    """Register ``SieteYMedia-v0`` in PettingZoo's AEC registry; ``False`` if this PettingZoo
    has no registry (before 1.27)."""
    try:
        from pettingzoo import aec_registry, register
    except ImportError:
        return False
    if PETTINGZOO_ID not in aec_registry:
        register("aec", PETTINGZOO_ID, entry_point="siete_env.aec:env", kwargs=dict(PETTINGZOO_KWARGS))
    if QUATTRO_ID not in aec_registry:
        register("aec", QUATTRO_ID, entry_point="siete_env.quattro:env", kwargs=dict(QUATTRO_KWARGS))
    return True


__all__ = ["PETTINGZOO_ID", "PETTINGZOO_KWARGS", "QUATTRO_ID", "QUATTRO_KWARGS", "register_pettingzoo"]
