"""Where a banker loses to the exact best response (docs/results.md, "How well PPO learns
a best response"): the banker's shortfall against PUNTER, in chips per hand, split by the
punter's stake and by how many of its cards the banker sees when it stood.

    python lab/br_gap_breakdown.py ppo:runs/default-s0/gen_006/punter.zip:sample ppo:OUT/banker_300000.zip:sample
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


from agents.specs import make_agent  # noqa: E402
from siete_env import raw_env  # noqa: E402
from siete_env.solve.evaluator import evaluator  # noqa: E402

RULES = {"preset": "spanish", "max_splits": 0}


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    ev = evaluator(RULES)
    table = raw_env(num_players=2, rules=RULES)
    punter, banker = make_agent(sys.argv[1], table), make_agent(sys.argv[2], table)
    W, _ = ev.punter_forward(*ev.punter_table(punter))
    G_pol, G_br, _ = ev.banker_pass(ev.banker_table(banker), W)
    loss = (W * (G_pol - G_br)).sum(-1)  # (n_vu, L): the punter's extra chips against this banker
    mass = W.sum(-1)
    print(f"shortfall {loss.sum():.4f} chips per hand (the punter stands in {mass.sum():.3f} of the hands)")
    for lvl, stake in enumerate(ev.levels):
        print(f"  stake {stake}: {loss[:, lvl].sum():.4f} (stood {mass[:, lvl].sum():.4f})")
    shown = ev.vu_U.sum(1)
    for k in range(int(shown.max()) + 1):
        sel = shown == k
        if mass[sel].sum() > 1e-4:
            print(f"  {k} punter cards face up: {loss[sel].sum():.4f} (stood {mass[sel].sum():.4f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
