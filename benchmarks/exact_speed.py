"""Speed of the exact heads-up evaluator (``siete_env.exact``).

Prints, for each covered configuration, the time of a best response to a deterministic
baseline (the punter's against ``banker:6``, the banker's against ``threshold:5.5``) and
of the NashConv of a pair of network-shaped stochastic policies: numpy MLPs with random
weights on the suit-folded observation (two hidden layers of 64, masked softmax), the
shape of the policies ``train.py`` learns. Usage: ``python benchmarks/exact_speed.py
[--quick]`` (``--quick``: the single-stake configuration only).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from agents.specs import make_agent
from siete_env import raw_env
from siete_env.exact import ExactEvaluator, best_response, nash_conv
from siete_env.features import fold_suits, folded_size

CONFIGS = {
    "single stake": {"preset": "spanish", "bet_levels": [1], "four_swap": "off", "max_splits": 0},
    "bet levels + raises": {"preset": "spanish", "four_swap": "off", "max_splits": 0},
    "bet levels + raises + four-swap": {"preset": "spanish", "max_splits": 0},
}


class NumpyMLP:
    """A torch-free stand-in for a trained policy network: suit-folded observation ->
    64 -> 64 -> actions, tanh, masked softmax. Random weights (seeded)."""

    deterministic = False

    def __init__(self, env, seed: int = 0, hidden: int = 64):
        raw = env.unwrapped
        self.layout = raw.layout
        rng = np.random.default_rng(seed)
        sizes = [folded_size(self.layout), hidden, hidden, len(raw.action_names)]
        self.weights = [
            (rng.normal(0, 1 / np.sqrt(a), (a, b)).astype(np.float32), np.zeros(b, np.float32))
            for a, b in zip(sizes[:-1], sizes[1:], strict=True)
        ]

    def action_probs(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        x = fold_suits(observations, self.layout)
        for i, (w, b) in enumerate(self.weights):
            x = x @ w + b
            if i < len(self.weights) - 1:
                x = np.tanh(x)
        x = np.where(masks.astype(bool), x, -np.inf).astype(np.float64)
        x -= x.max(axis=1, keepdims=True)
        p = np.exp(x)
        return p / p.sum(axis=1, keepdims=True)


def timed(fn, *args):
    t = time.perf_counter()
    out = fn(*args)
    return out, time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="single-stake configuration only")
    args = ap.parse_args()
    for name, rules in CONFIGS.items():
        if args.quick and name != "single stake":
            continue
        env = raw_env(2, rules)
        ev, t_build = timed(ExactEvaluator, rules)
        print(f"== {name}: {rules}")
        print(
            f"   build: {t_build:.2f} s ({ev.n_states} punter card states, {ev.n_vu * ev.L} stood V x {ev.n_M} banker nodes)"
        )
        banker, punter = make_agent("banker:6", env), make_agent("threshold:5.5", env)
        br, t = timed(best_response, banker, "banker", ev)
        print(f"   punter best response to banker:6      {t:7.2f} s   value {br.value:+.6f}")
        br, t = timed(best_response, punter, "punter", ev)
        print(f"   banker best response to threshold:5.5 {t:7.2f} s   value {br.value:+.6f}")
        p_net, b_net = NumpyMLP(env, seed=1), NumpyMLP(env, seed=2)
        nc, t = timed(nash_conv, p_net, b_net, ev)
        print(f"   NashConv of two random MLPs           {t:7.2f} s   {nc.nash_conv:.6f} (EV {nc.ev:+.6f})")


if __name__ == "__main__":
    main()
