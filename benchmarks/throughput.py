"""Random legal play through ``env()`` (standard wrappers), side by side with PettingZoo's
``leduc_holdem_v4`` (also via its ``env()``), in the same run, with the same loop.

    python benchmarks/throughput.py [--players 2 6] [--steps 100000] [--repeats 3]

Prints agent steps/s and hands/s of each env (best of ``--repeats`` interleaved runs)
and the ratio siete/leduc; also the ``raw_env`` rate and the rate through PettingZoo's
stock wrapper classes, so the cost of each layer is visible.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np


def play(e, steps: int, seed: int = 0) -> tuple[float, float]:
    """Agent steps/s and hands (episodes)/s of uniform random legal play."""
    rng = np.random.default_rng(seed)
    integers = rng.integers
    flatnonzero = np.flatnonzero
    e.reset(seed=seed)
    n = hands = 0
    t0 = time.perf_counter()
    while n < steps:
        for _agent in e.agent_iter():
            obs, _r, term, trunc, _info = e.last()
            if term or trunc:
                action = None
            else:
                legal = flatnonzero(obs["action_mask"])
                action = int(legal[integers(len(legal))])
            e.step(action)
            n += 1
        hands += 1
        e.reset()
    dt = time.perf_counter() - t0
    return n / dt, hands / dt


def stock_env(**kw):
    from pettingzoo.utils import wrappers

    from siete_env import raw_env

    e = raw_env(**kw)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    return wrappers.OrderEnforcingWrapper(e)


def null_env():
    """An AEC env that does no work (4 steps and 2 dead steps a hand), in the same wrappers
    as ``siete_env.env()``: the floor that the wrappers and this loop leave."""
    from gymnasium import spaces
    from pettingzoo import AECEnv

    from siete_env.aec import AssertOutOfBoundsWrapper, OrderEnforcingWrapper, TerminateIllegalWrapper

    class Null(AECEnv):
        metadata = {"render_modes": [], "name": "null"}

        def __init__(self):
            super().__init__()
            self.possible_agents = ["a", "b"]
            self._a = spaces.Discrete(15)
            self._o = spaces.Dict(
                {"observation": spaces.Box(0, 1, (485,), np.float32), "action_mask": spaces.Box(0, 1, (15,), np.int8)}
            )
            self._buf = np.zeros(485, np.float32)
            self._m = np.ones(15, np.int8)
            self._skip_agent_selection = None

        # what siete_env.aec's wrappers ask of the env they wrap (a raw_env's reset check, its
        # action names for the range check of step)
        _started = True
        action_names = tuple(f"A{i}" for i in range(15))

        def _check_reset(self, seed, options, warn=True):
            return None

        def action_space(self, agent):
            return self._a

        def observation_space(self, agent):
            return self._o

        def reset(self, seed=None, options=None):
            self.agents = list(self.possible_agents)
            self.rewards = dict.fromkeys(self.agents, 0)
            self._cumulative_rewards = dict.fromkeys(self.agents, 0)
            self.terminations = dict.fromkeys(self.agents, False)
            self.truncations = dict.fromkeys(self.agents, False)
            self.infos = {a: {} for a in self.agents}
            self.agent_selection = "a"
            self._k = 0

        def observe(self, agent):
            return {"observation": self._buf.copy(), "action_mask": self._m}

        def step(self, action):
            if self.terminations[self.agent_selection]:
                return self._was_dead_step(action)
            self._k += 1
            if self._k >= 4:
                for a in self.agents:
                    self.terminations[a] = True

    e = TerminateIllegalWrapper(Null(), illegal_reward=-1)
    return OrderEnforcingWrapper(AssertOutOfBoundsWrapper(e))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", type=int, nargs="+", default=[2, 6])
    ap.add_argument("--steps", type=int, default=100_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--rules", default="spanish")
    ap.add_argument("--json", help="write the figures to this file")
    args = ap.parse_args()

    from pettingzoo.classic import leduc_holdem_v4

    import siete_env

    results = []
    for n in args.players:
        best: dict[str, tuple[float, float]] = {}
        for _ in range(args.repeats):  # interleaved, so that machine noise hits all alike
            for name, make in (
                ("leduc_holdem_v4 env()", leduc_holdem_v4.env),
                ("siete env()", lambda n=n: siete_env.env(num_players=n, rules=args.rules)),
                ("siete raw_env", lambda n=n: siete_env.raw_env(num_players=n, rules=args.rules)),
                ("siete stock wrappers", lambda n=n: stock_env(num_players=n, rules=args.rules)),
                ("floor: empty env, wrapped", null_env),
            ):
                r = play(make(), args.steps)
                if name not in best or r[0] > best[name][0]:
                    best[name] = r
        leduc = best["leduc_holdem_v4 env()"][0]
        engine = "compiled with mypyc" if siete_env.COMPILED else "pure Python"
        print(
            f"\n{args.rules}, {n} players ({args.steps:,} agent steps per run, best of {args.repeats}; engine {engine})"
        )
        print(f"{'env':26s} {'steps/s':>10s} {'hands/s':>10s} {'x leduc':>8s}")
        for name, (sps, hps) in best.items():
            print(f"{name:26s} {sps:10,.0f} {hps:10,.0f} {sps / leduc:8.2f}")
        ratio = best["siete env()"][0] / leduc
        print(f"ratio siete env() / leduc_holdem_v4 env(): {ratio:.2f} (target >= 3)")
        results.append(
            {
                "players": n,
                "rules": args.rules,
                "ratio": ratio,
                **{k: {"steps_per_s": v[0], "hands_per_s": v[1]} for k, v in best.items()},
            }
        )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
