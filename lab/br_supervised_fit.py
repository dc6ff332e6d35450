"""Can the learners' network hold a best response at all? (docs/results.md, "How well PPO
learns a best response"). A DIAGNOSTIC, not a training method: the exact best response is
used here as a label, which training never does.

    python lab/br_supervised_fit.py ppo:runs/default-s0/gen_006/punter.zip:sample \
        500000 128,128 20

The exact best-responding banker to PUNTER plays SAMPLES banker decisions on the batched
engine (128 tables); an MLP of the learners' shape (ARCH, tanh; the suit-folded
observation) is fit to its action probabilities by cross-entropy (Adam, learning rate
1e-3, minibatches of 512) for EPOCHS epochs, and every 5 epochs its exact value against
PUNTER is printed beside the best response's.
"""

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402
import torch  # noqa: E402

from agents.specs import make_agent  # noqa: E402
from siete_env import raw_env, solve  # noqa: E402
from siete_env.batched.vector import SB3VecEnv, SeatVectorEnv  # noqa: E402
from siete_env.features import fold_suits  # noqa: E402

RULES = {"preset": "spanish", "max_splits": 0}


def main() -> int:
    if len(sys.argv) != 5:
        print(__doc__, file=sys.stderr)
        return 2
    torch.set_num_threads(1)
    torch.manual_seed(0)
    opp, n, arch, epochs = sys.argv[1], int(sys.argv[2]), [int(x) for x in sys.argv[3].split(",")], int(sys.argv[4])
    tables = SeatVectorEnv(num_envs=128, role="banker", rules=RULES, num_players=2, opponents={opp: 1.0},
                           fold_suits=False, seed=5)  # fmt: skip
    venv = SB3VecEnv(tables)
    punter = make_agent(opp, raw_env(num_players=2, rules=RULES))
    br = solve.best_response(punter, against="punter", rules=RULES)
    print("exact best response value", br.value, flush=True)
    rng = np.random.default_rng(0)
    obs, xs, ms, ys, done, t0 = venv.reset(), [], [], [], 0, time.time()
    while done < n:
        masks = np.stack(venv.env_method("action_masks")).astype(np.float64)
        p = np.asarray(br.policy.action_probs(obs, masks))
        xs.append(fold_suits(obs, tables.layout))
        ms.append(masks)
        ys.append(p)
        actions = np.array([rng.choice(len(q), p=q / q.sum()) for q in p])
        obs, _, _, _ = venv.step(actions)
        done += len(actions)
    X = torch.tensor(np.concatenate(xs))
    M = torch.tensor(np.concatenate(ms)) > 0
    Y = torch.tensor(np.concatenate(ys), dtype=torch.float32)
    print(f"{len(X)} decisions in {time.time() - t0:.0f} s", flush=True)
    layers, d = [], X.shape[1]
    for h in arch:
        layers += [torch.nn.Linear(d, h), torch.nn.Tanh()]
        d = h
    net = torch.nn.Sequential(*layers, torch.nn.Linear(d, Y.shape[1]))
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)

    class Fitted:
        def action_probs(self, o, m):
            with torch.no_grad():
                z = net(torch.tensor(fold_suits(np.asarray(o), tables.layout))).double().numpy()
            z = np.where(np.asarray(m) > 0, z, -np.inf)
            e = np.exp(z - z.max(1, keepdims=True))
            return e / e.sum(1, keepdims=True)

    for ep in range(epochs):
        for idx in torch.randperm(len(X)).split(512):
            z = net(X[idx]).masked_fill(~M[idx], -1e9)
            loss = -(Y[idx] * torch.log_softmax(z, 1)).sum(1).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        if ep % 5 == 4 or ep == epochs - 1:
            value = -solve.expected_value(punter, Fitted(), RULES)
            print(f"epoch {ep + 1}: loss {loss.item():.4f} value {value:.4f} gap {br.value - value:.4f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
