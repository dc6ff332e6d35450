"""siete-env: Siete y Media (sette e mezzo) as a PettingZoo AEC environment.

>>> from siete_env import env
>>> e = env(num_players=2, rules="spanish")
"""

import os as _os

from ._stale import use_source_if_stale as _use_source_if_stale

# an edit to game.py, encoding.py or settle.py without a reinstall: the sources run, with a warning
_use_source_if_stale(__name__, _os.path.dirname(__file__))
from . import table as _table  # noqa: E402
from .aec import env, raw_env  # noqa: E402
from .game import ActionKind, IllegalActionError  # noqa: E402
from .gym_env import SeatEnv, register_envs  # noqa: E402
from .registration import PETTINGZOO_ID, register_pettingzoo  # noqa: E402
from .rules import PRESETS, Rules, resolve_rules  # noqa: E402


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("siete-env")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "0.1.0"


__version__ = _version()


def version_text(prog: str) -> str:
    """What a command's ``--version`` prints: its name, the package version (read from the
    installed package's metadata) and whether the engine runs compiled."""
    return f"{prog} (siete-env {__version__}, engine {'compiled' if COMPILED else 'pure Python'})"


COMPILED = not _table.__file__.endswith(".py")
"""Whether the engine runs compiled (mypyc, built at install) or as pure Python."""
register_envs()  # gymnasium ids SieteYMedia-{Punter,Banker}-v0, QuattroEMezzo-{Punter,Banker}-v0
register_pettingzoo()  # pettingzoo ids SieteYMedia-v0, QuattroEMezzo-v0 (PettingZoo 1.27+)
__all__ = [
    "COMPILED",
    "PETTINGZOO_ID",
    "PRESETS",
    "ActionKind",
    "IllegalActionError",
    "Rules",
    "SeatEnv",
    "env",
    "raw_env",
    "resolve_rules",
    "version_text",
]
