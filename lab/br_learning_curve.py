"""How fast PPO learns a best response to a FIXED opponent, measured exactly
(docs/results.md, "How well PPO learns a best response").

    python lab/br_learning_curve.py banker ppo:runs/default-s0/gen_006/punter.zip:sample \
        1200000 300000 runs/br-curve [banker.ppo.learning_rate=1e-3 ...]

A learner of ROLE with the settings of configs/train/exploiters.yaml (changed by KEY=VALUE
overrides, as train.py's --set) trains against OPPONENT alone on the batched engine; every
CHECK_EVERY env steps its exact value against OPPONENT (sampling and greedy) is printed
beside the exact best response's, and the rows are written to OUT/rows.json.
"""

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import torch  # noqa: E402

from agents.specs import make_agent  # noqa: E402
from siete_env import raw_env, solve  # noqa: E402
from training.config import load_config  # noqa: E402
from training.learners import make_model, make_venv  # noqa: E402


def main() -> int:
    if len(sys.argv) < 6:
        print(__doc__, file=sys.stderr)
        return 2
    torch.set_num_threads(1)
    role, opp, steps, every, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), Path(sys.argv[5])
    cfg = load_config(
        Path(__file__).resolve().parent.parent / "configs/train/exploiters.yaml", sys.argv[6:]
    )  # with the overrides
    out.mkdir(parents=True, exist_ok=True)
    venv = make_venv(cfg, role, 1)
    venv.env_method("set_opponents", {opp: 1.0}, None)
    model = make_model(getattr(cfg, role), venv, 2, None)
    rules = cfg.rules
    t = raw_env(num_players=2, rules=rules)
    other = make_agent(opp, t)
    br = solve.best_response(other, against="banker" if role == "punter" else "punter", rules=rules)
    print("exact best response value", br.value, flush=True)

    def value(agent) -> float:
        return (
            solve.expected_value(agent, other, rules)
            if role == "punter"
            else -solve.expected_value(other, agent, rules)
        )

    rows, t0, done = [], time.time(), 0
    while done < steps:
        model.learn(every, reset_num_timesteps=False)
        done += every
        path = out / f"{role}_{done}.zip"
        model.save(path)
        ev, evg = value(make_agent(f"ppo:{path}:sample", t)), value(make_agent(f"ppo:{path}", t))
        rows.append({"steps": done, "seconds": time.time() - t0, "value": ev, "greedy": evg, "br": br.value,
                     "gap": br.value - ev, "gap_greedy": br.value - evg})  # fmt: skip
        print(rows[-1], flush=True)
        (out / "rows.json").write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
