"""OpenSpiel support (the optional extra: ``pip install -e .[openspiel]``).

``import siete_env.openspiel`` registers ``python_siete_y_media`` with OpenSpiel
(``pyspiel.load_game("python_siete_y_media", {...})``); see ``siete_env.openspiel.game`` for
the parameters, chance nodes, observations and information states, and
``siete_env.openspiel.policy`` for policies in both directions. The core package never
imports this module.
"""

try:
    import pyspiel  # noqa: F401
except ImportError as e:  # pragma: no cover - depends on the install
    raise ImportError(
        "siete_env.openspiel needs OpenSpiel: pip install -e '.[openspiel]' (the open-spiel wheel from PyPI)"
    ) from e

from .game import GAME_NAME, SieteYMediaGame, SieteYMediaState, config, parse_rule_options

__all__ = ["GAME_NAME", "SieteYMediaGame", "SieteYMediaState", "config", "parse_rule_options"]
