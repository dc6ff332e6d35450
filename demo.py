"""Play a few hands between simple table players and print them.

    python demo.py [--hands 5] [--players 3] [--seed 0] [--rules spanish]

The punters play ``ThresholdPunter`` (stand at 5½), the banker ``BankerThreshold`` (hit
below 6); every step is shown as the table sees it, hidden cards in brackets.
"""

from __future__ import annotations

import argparse

from agents.baselines import BankerThreshold, ThresholdPunter
from siete_env import env as make_env


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hands", type=int, default=5)
    ap.add_argument("--players", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rules", default="spanish")
    args = ap.parse_args()

    e = make_env(num_players=args.players, rules=args.rules, render_mode="ansi")
    punter, banker = ThresholdPunter(e, 5.5), BankerThreshold(e, 6.0)
    totals = dict.fromkeys(e.possible_agents, 0.0)
    for hand in range(args.hands):
        e.reset(seed=args.seed if hand == 0 else None)
        print(f"\n===== hand {hand + 1} =====")
        print(e.render())
        for agent in e.agent_iter():
            obs, reward, term, trunc, info = e.last()
            totals[agent] += reward
            if term or trunc:
                e.step(None)
                continue
            player = banker if info["role"] == "banker" else punter
            action = player(obs)
            print(
                f"  {agent} ({info['role']}, {' '.join(info['hand'])} = {info['total']:g}) -> "
                f"{e.unwrapped.action_names[action]}"
            )
            e.step(action)
        print(e.unwrapped.table_text())
    print("\nchips after", args.hands, "hands:", {a: f"{v:+g}" for a, v in totals.items()})


if __name__ == "__main__":
    main()
