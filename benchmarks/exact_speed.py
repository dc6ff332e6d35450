"""Speed of the exact heads-up evaluator and of CFR+ (``siete_env.solve``).

Prints, for each covered configuration, the time of a best response to a deterministic
baseline (the punter's against ``banker:6`` and ``smart:6``, the banker's against
``threshold:5.5``), of the NashConv of a pair of networks, and of one CFR+ iteration. The
networks are played exactly as trained ones are (``agents.learned.PPOAgent`` over an
``MLPPolicy``, sampling): the shape ``train.py`` trains (suit-folded observation -> 128 ->
128 -> actions, tanh), with random weights (seeded), so no training run is needed.
Each is timed with the compiled banker passes (numba, the default) and with the numpy
passes, in the same run (``--backend`` to time one); the kernels are compiled (or loaded
from numba's cache) before the clock starts.
Usage: ``python benchmarks/exact_speed.py [--quick] [--backend numba|numpy|both]``
(``--quick``: single stake only).
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from agents.learned import MLPPolicy, PPOAgent
from agents.specs import make_agent
from siete_env import raw_env
from siete_env.features import folded_size
from siete_env.solve import ExactEvaluator, banker, best_response, nash_conv
from siete_env.solve.cfr import CFRPlus

CONFIGS = {
    "single stake": {"preset": "spanish", "bet_levels": [1], "four_swap": "off", "max_splits": 0},
    "bet levels + raises": {"preset": "spanish", "four_swap": "off", "max_splits": 0},
    "bet levels + raises + four-swap": {"preset": "spanish", "max_splits": 0},
}


def network(env, seed: int, hidden: int = 128) -> PPOAgent:
    """A policy network of the trained shape with random weights, played as ``ppo:...:sample``."""
    raw = env.unwrapped
    rng = np.random.default_rng(seed)
    sizes = [folded_size(raw.layout), hidden, hidden, len(raw.action_names)]
    layers = [(rng.normal(0, 1 / np.sqrt(a), (b, a)), np.zeros(b)) for a, b in zip(sizes[:-1], sizes[1:], strict=True)]
    return PPOAgent(env, MLPPolicy(layers, "Tanh"), greedy=False, seed=seed)


def timed(fn, *args, **kwargs):
    t = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="single-stake configuration only")
    ap.add_argument("--backend", choices=("numba", "numpy", "both"), default="both")
    args = ap.parse_args()
    backends = banker.BACKENDS if args.backend == "both" else (args.backend,)
    warm = ExactEvaluator(CONFIGS["single stake"])
    _, t = timed(banker.policy_values, warm, np.full((warm.n_vu * warm.L, warm.n_M), 0.5))
    print(f"kernels compiled or loaded from the cache: {t:.1f} s")
    for backend in backends:
        os.environ["SIETE_SOLVE_BACKEND"] = backend
        print(f"\n##### banker passes: {backend}")
        run(args)


def run(args) -> None:
    for name, rules in CONFIGS.items():
        if args.quick and name != "single stake":
            continue
        env = raw_env(2, rules)
        ev, t_build = timed(ExactEvaluator, rules)
        print(f"== {name}: {rules}")
        print(
            f"   build: {t_build:.2f} s ({ev.n_states} punter card states, {ev.n_vu * ev.L} stood V x {ev.n_M} banker nodes)"
        )
        for spec in ("banker:6", "smart:6"):
            br, t = timed(best_response, make_agent(spec, env), "banker", ev)
            print(f"   punter best response to {spec:<14}{t:7.2f} s   value {br.value:+.6f}")
        br, t = timed(best_response, make_agent("threshold:5.5", env), "punter", ev)
        print(f"   banker best response to threshold:5.5 {t:7.2f} s   value {br.value:+.6f}")
        nc, t = timed(nash_conv, network(env, 1), network(env, 2), ev)
        print(f"   NashConv of two 128x128 networks      {t:7.2f} s   {nc.nash_conv:.6f} (EV {nc.ev:+.6f})")
        for method in ("cfr+", "dcfr"):
            cfr, t_init = timed(CFRPlus, ev, method=method)
            _, t = timed(cfr.iterate)
            print(f"   one {method.upper():<5} iteration                   {t:7.2f} s")


if __name__ == "__main__":
    main()
