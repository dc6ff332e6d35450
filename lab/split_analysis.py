"""The numbers behind docs/exact.md#splits: why the heads-up game with splits has no exact
NashConv.

1. **Counts**: the banker's views of one split hand (a hand starting with a figure: its
   face-up ranks, whether a card is face-down, stood or bust, its stake), and so the
   number of joint banker observations with 2, 3 and 4 split hands.
2. **Simulation** (``--hands``, default 100,000): how often a punter that always splits
   plays 1, 2, 3 or 4 hands, and what splitting is worth against fixed bankers, per hand
   where a split was offered (the ``spanish`` preset heads-up: ``max_splits`` 3).
3. **What an upper bound gives away**: in the game without splits (exactly), the banker's
   best response with and without being told the punter's face-down card, for a few
   punters: a bound that tells the banker the hidden cards of split hands loosens NashConv
   by about that much per split hand.

    python lab/split_analysis.py [--hands 100000]
"""

from __future__ import annotations

import argparse
import collections
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.baselines import ThresholdPunter  # noqa: E402
from agents.specs import make_agent  # noqa: E402
from siete_env import raw_env  # noqa: E402
from siete_env.cards import IS_FIGURE, N_SUITS, VALUE2  # noqa: E402
from siete_env.rules import Rules  # noqa: E402
from siete_env.settle import half  # noqa: E402

SEVEN_HALF = half(Rules().limit)
from siete_env.game import Phase  # noqa: E402
from siete_env.solve import banker as banker_side  # noqa: E402
from siete_env.solve import evaluator  # noqa: E402

N_RANKS = 10
STAKES = 5  # the spanish preset's bet levels


def multisets(max_total: int) -> list[tuple[tuple[int, ...], int]]:
    """Rank multisets (at most ``N_SUITS`` of a rank) holding a figure, total ≤ ``max_total``."""
    out: list[tuple[tuple[int, ...], int]] = []

    def rec(r: int, cur: list[int], t: int) -> None:
        if r == N_RANKS:
            if any(cur[i] for i in range(N_RANKS) if IS_FIGURE[i]):
                out.append((tuple(cur), t))
            return
        for m in range(N_SUITS + 1):
            if t + m * VALUE2[r] > max_total:
                break
            cur.append(m)
            rec(r + 1, cur, t + m * VALUE2[r])
            cur.pop()

    rec(0, [], 0)
    return out


def counts() -> dict[str, float]:
    face_up = multisets(SEVEN_HALF)  # stood, every card face-up
    # stood with a face-down card: the face-up part totals at most 7 (the hidden card ≥ ½)
    with_hidden = multisets(SEVEN_HALF - 1)
    # bust hands are shown whole: over 7½, and the last card made it so
    bust = [
        u
        for u, t in multisets(2 * SEVEN_HALF - 1)
        if t > SEVEN_HALF and any(u[r] and t - VALUE2[r] <= SEVEN_HALF for r in range(N_RANKS))
    ]
    views = (len(face_up) + len(with_hidden) + len(bust)) * STAKES
    out = {"stood face-up": len(face_up), "stood with a face-down card": len(with_hidden), "bust": len(bust)}
    out["views of one split hand (x5 stakes)"] = views
    for j in (2, 3, 4):
        out[f"joint banker observations, {j} hands"] = float(views**j)
    return out


class SplittingPunter(ThresholdPunter):
    """``threshold:T`` that always splits (``split``) or always keeps; counts the offers."""

    def __init__(self, env, threshold: float, split: bool):
        super().__init__(env, threshold)
        self.split = split
        self.offered = False

    def __call__(self, obs):
        if self.view.phase(obs["observation"]) == Phase.SPLIT:
            self.offered = True
            return self.ids["SPLIT" if self.split else "KEEP"]
        return super().__call__(obs)


def simulate(banker_spec: str, split: bool, hands: int, seed: int = 0):
    e = raw_env(num_players=2, rules="spanish")
    punter = SplittingPunter(e, 5.5, split)
    banker = make_agent(banker_spec, e)
    total, offered, offered_total = 0.0, 0, 0.0
    n_hands: collections.Counter[int] = collections.Counter()
    for i in range(hands):
        e.reset(seed=seed + i, options={"banker": 0})
        punter.offered = False
        chips = 0.0
        for agent in e.agent_iter():
            obs, reward, term, trunc, _ = e.last()
            if agent == "player_1":
                chips += reward
            if term or trunc:
                e.step(None)
                continue
            e.step(banker(obs) if agent == "player_0" else punter(obs))
        total += chips
        n_hands[e.game.nhands[1]] += 1
        if punter.offered:
            offered += 1
            offered_total += chips
    return total / hands, offered / hands, offered_total / max(offered, 1), n_hands


def information_value(spec: str, rules: dict) -> tuple[float, float]:
    """The banker's best-response value against ``spec`` (chips per hand, the banker's),
    and the same for a banker told the punter's face-down card (its rank)."""
    ev = evaluator(rules)
    bet, draw = ev.punter_table(make_agent(spec, raw_env(2, rules)))
    W, bust = ev.punter_forward(bet, draw)
    G, _ = banker_side.best_response_values(ev, W)
    told = float(bust)
    for h in range(N_RANKS):  # a best response per hidden rank: the banker knows it
        Wh = W * (np.arange(N_RANKS) == h)
        Gh, _ = banker_side.best_response_values(ev, Wh)
        told += float((Wh * Gh).sum())
    return -float((W * G).sum() + bust), -told


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hands", type=int, default=100_000)
    args = ap.parse_args(argv)
    for k, v in counts().items():
        print(f"{k:>42}: {v:,.3g}" if isinstance(v, float) else f"{k:>42}: {v:,}")
    print(f"\nthreshold:5.5 punter, spanish heads-up (max_splits 3), {args.hands:,} hands per line")
    for banker_spec in ("banker:6", "smart:6"):
        for split in (True, False):
            t0 = time.perf_counter()
            ev, share, ev_offered, n_hands = simulate(banker_spec, split, args.hands)
            line = (f"  vs {banker_spec:<8} {'split' if split else 'keep':<5}: {ev:+.4f} per hand; split offered in "
                    f"{share:.1%} of hands, {ev_offered:+.3f} per such hand")  # fmt: skip
            if split:
                dist = ", ".join(f"{k} hand{'s' * (k > 1)} {v / args.hands:.1%}" for k, v in sorted(n_hands.items()))
                line += f"; {dist}"
            print(line + f"  ({time.perf_counter() - t0:.0f} s)", flush=True)
    rules = {"preset": "spanish", "max_splits": 0}
    print(f"\nbanker's best response in {rules} (exact), chips per hand:")
    for spec in ("threshold:5", "threshold:5.5", "bold:5.5"):
        plain, told = information_value(spec, rules)
        print(f"  vs {spec:<14}: {plain:+.4f}; told the face-down card {told:+.4f} (worth {told - plain:.4f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
