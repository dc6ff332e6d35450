"""First use of the numba kernels: said on screen, or done ahead.

The batched engine (``siete_env.batched``) and the exact evaluator's banker passes
(``siete_env.solve.kernels``) are numba kernels, compiled on first use after an install or
an upgrade (the batched engine about 1 minute on two cores, the exact evaluator about
10 s) and cached on disk after (``cache=True``). Without
a word that is a silent pause in ``make_vec``'s first reset or ``evaluate.py``'s first
pairing. ``notice(kernel, what)`` prints one line to stderr when ``kernel``'s on-disk cache
holds nothing for the current source (so it is about to compile); ``python -m
siete_env.warmup`` compiles everything ahead (the Makefile's install step runs it).
"""

from __future__ import annotations

import sys

_said: set[str] = set()

# how long each part takes to compile, on two cores (``python -m siete_env.warmup`` prints it)
_TAKES = {
    "the batched engine": "about 1 minute",
    "the batched engine's threads": "about 25 s",
    "the exact evaluator": "about 10 s",
}
_FLAG = {"the batched engine's threads": " --threads"}  # parts the warmup compiles only when asked


def cache_is_cold(kernel) -> bool:
    """Whether a numba ``cache=True`` kernel has nothing cached for its current source
    (numba's own index, which it invalidates when the source changes); ``False`` when it
    cannot tell."""
    try:
        return not kernel._cache._cache_file._load_index()
    except Exception:  # noqa: BLE001 - numba internals: when they change, say nothing
        return False


def notice(kernel, what: str) -> None:
    """One line on stderr, once per process, when ``kernel`` is about to be compiled."""
    if what in _said:
        return
    _said.add(what)
    if cache_is_cold(kernel):
        print(
            f"siete_env: compiling {what} (numba, first use after an install or an upgrade: "
            f"{_TAKES.get(what, 'a while')}; "
            f"cached after; `python -m siete_env.warmup{_FLAG.get(what, '')}` does it ahead)",
            file=sys.stderr,
            flush=True,
        )
