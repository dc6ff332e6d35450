"""Quattro e mezzo's punters compete with each other (all against all): is a line-up's score
a measure of one punter's play? For each baseline banker, one punter placed in turn at each
punter seat among two others of a line-up, against that seat in the line-up alone: the same
decks (``play_match``'s seed), so the difference per seat is paired.

    python lab/quattro_lineups.py --learned runs/quattro-s0/punter.zip:sample [--hands 100000]

Prints, per banker and line-up (``quattro:7`` punters, the learned ones), what a seat scores
with the line-up's own punter, with the learned punter and with ``quattro:7`` there (mean
points a hand, paired 95% CI of the difference).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

RULES = "quattro_e_mezzo"
BANKERS = ("random", "quattro:5.5", "quattro:6", "quattro:7")


def seat_points(banker: str, punters: list[str], hands: int, seed: int) -> np.ndarray:
    from agents.tournament import match_chips

    chips, *_ = match_chips(banker, punters, RULES, 4, hands, seed, None, "batched")
    return np.asarray(chips, np.float64)  # (hands, seats): seat 0 the bank


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--learned", required=True, help="the learned punter's spec, e.g. ppo:RUN/punter.zip:sample")
    ap.add_argument("--hands", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=2026)
    args = ap.parse_args()
    learned = f"ppo:{args.learned}" if not args.learned.startswith("ppo:") else args.learned
    for lineup_name, own in (("quattro:7", "quattro:7"), ("learned", learned)):
        for banker in BANKERS:
            base = seat_points(banker, [own] * 3, args.hands, args.seed)
            row = [f"{lineup_name} line-up, banker {banker}: own {base[:, 1:].mean():+.4f}"]
            for name, spec in (("learned", learned), ("quattro:7", "quattro:7")):
                if spec == own:
                    continue
                diffs = []
                for p in range(3):  # the punter at each seat in turn, the others the line-up's
                    lineup = [own] * 3
                    lineup[p] = spec
                    x = seat_points(banker, lineup, args.hands, args.seed)
                    diffs.append(x[:, 1 + p] - base[:, 1 + p])
                d = np.concatenate(diffs)
                ci = 1.96 * d.std(ddof=1) / np.sqrt(len(d))
                row.append(f"{name} in its place {d.mean():+.4f} ± {ci:.4f}")
            print("; ".join(row), flush=True)


if __name__ == "__main__":
    main()
