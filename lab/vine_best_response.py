"""How close the vine learner (``learner: vine``) gets to an exact best response against a
FIXED opponent: a snapshot of ROLE, warm-started, trains against the other role's snapshot
of the same folder alone, with the vine learner's loss and no magnet; every ``--every``
iterations its exact value against that opponent is printed beside the exact best
response's (docs/results.md, "Beyond the mixture").

    python lab/vine_best_response.py runs/long-s0 gen_030 banker --iterations 60 --every 15

The run folder gives the rules and the snapshots (``GEN/punter.zip``, ``GEN/banker.zip``);
``--hands`` per iteration, ``--lr`` and ``--kl-coef`` default to the run's own (its role's hands,
final learning rate and ``kl_coef``); ``--ent-coef``, the magnet, to 0 (a best response needs none). Values are the punter's chips; the shortfall is the learner's.

``--table``: no network is fitted. The learner is a table over the distinct (observation,
mask) rows its hands meet, starting from the snapshot's probabilities, and each iteration
takes the loss's own maximiser at every row met, in closed form (with ``--ent-coef`` 0:
``log pi_new = log pi_rollout + A / (kl_coef * scale)`` up to a constant, ``A`` the same
played advantages the network is given), so the network's fit is taken out and what is left
is the step and the played values' noise.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def _closed_form_table(start, sampler):  # a class built on first use: the imports are main's
    """The ``--table`` learner: ``start``'s (an ``MLPPolicy``) logits plus an offset per distinct
    (observation, mask) row met, keyed by ``VineSampler.row_keys``."""
    from agents.learned import MLPPolicy

    class ClosedFormTable(MLPPolicy):
        def __init__(self):
            self.__dict__.update(start.__dict__)
            self.keys, self.offsets = np.empty(0), np.empty((0, self.n_actions))

        def probs(self, x, masks):
            z = self.logits(x)
            if len(self.keys):
                k = sampler.row_keys(x, masks)
                i = np.minimum(np.searchsorted(self.keys, k), len(self.keys) - 1)
                z = z + np.where((self.keys[i] == k)[:, None], self.offsets[i], 0.0)
            z = np.where(np.asarray(masks) > 0, z, -np.inf)
            p = np.exp(z - z.max(axis=-1, keepdims=True))
            return p / p.sum(axis=-1, keepdims=True)

        def step(self, batch, kl_coef: float, ent_coef: float, scale: float) -> None:
            """Every row of ``batch`` (merged: distinct rows) to the loss's maximiser (the
            uniform magnet): ``log pi = (kl_coef log pi_rollout + A / scale) / (kl_coef + ent_coef)``."""
            legal = batch.masks > 0
            q = batch.q.astype(np.float64) / scale
            adv = q - (batch.probs * q).sum(1, keepdims=True)
            with np.errstate(divide="ignore"):
                target = (kl_coef * np.log(batch.probs) + adv) / (kl_coef + ent_coef)
            offsets = np.where(legal, target - super().logits(batch.obs), 0.0)
            keys = np.concatenate([self.keys, sampler.row_keys(batch.obs, batch.masks)])
            offsets = np.concatenate([self.offsets, offsets])
            _, last = np.unique(keys[::-1], return_index=True)  # a row met again: its newest offset
            keep = len(keys) - 1 - last
            keep = keep[np.argsort(keys[keep])]
            self.keys, self.offsets = keys[keep], offsets[keep]

    return ClosedFormTable()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run", type=Path)
    ap.add_argument("generation", help="the snapshots' folder in the run, e.g. gen_030")
    ap.add_argument("role", choices=["punter", "banker"], help="the role that learns")
    ap.add_argument("--iterations", type=int, default=60)
    ap.add_argument("--every", type=int, default=15)
    ap.add_argument("--hands", type=int, help="hands an iteration (the run's for the role)")
    ap.add_argument("--lr", type=float, help="the learning rate (the run's final one for the role)")
    ap.add_argument("--kl-coef", type=float, help="the mirror-descent step's KL weight (the run's)")
    ap.add_argument("--ent-coef", type=float, default=0.0)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--table", action="store_true", help="closed-form steps per row, no network fit")
    a = ap.parse_args(argv)

    import torch

    from agents.learned import PPOAgent, load_policy
    from agents.specs import AgentSpec, make_agent
    from siete_env import raw_env, solve
    from training.config import load_config
    from training.learners import make_venv, set_rates
    from training.vine import BANKER, PUNTER, VinePPO, VineSampler, actor

    torch.set_num_threads(1)
    cfg = load_config(a.run / "config.yaml")
    ev = solve.evaluator(cfg.rules)
    table = raw_env(num_players=2, rules=cfg.rules)
    other = "punter" if a.role == "banker" else "banker"
    mine_zip, other_zip = a.run / a.generation / f"{a.role}.zip", a.run / a.generation / f"{other}.zip"
    opponent = make_agent(AgentSpec.model(other_zip, True), table)
    venv = make_venv(cfg, a.role, a.seed)
    model = VinePPO.load(mine_zip, env=venv, device="cpu")
    ppo = getattr(cfg, a.role).ppo
    hands = a.hands or (cfg.vine.banker_hands if a.role == "banker" else cfg.vine.punter_hands)
    model.kl_coef, model.magnet = ppo.kl_coef if a.kl_coef is None else a.kl_coef, a.ent_coef
    lr = ppo.at(cfg.generations, cfg.generations).learning_rate if a.lr is None else a.lr  # the last generation's
    set_rates(model, lr)
    model.reseed(a.seed)
    nets = [None, None]
    me = BANKER if a.role == "banker" else PUNTER
    nets[1 - me] = load_policy(str(other_zip))
    br = solve.best_response(opponent, other, ev)  # br.value: the responder's own chips
    sampler = VineSampler(cfg.rules, cfg.vine.tables, a.seed)
    t0 = time.perf_counter()
    print(f"{a.role} learns against {other_zip}; its exact best response wins {br.value:+.4f} (its own chips)")

    learner = _closed_form_table(actor(model.policy), sampler) if a.table else None

    def measure(k: int) -> None:
        with tempfile.TemporaryDirectory() as d:
            if learner is None:
                model.save(Path(d) / "m.zip")
                me_agent = make_agent(AgentSpec.model(Path(d) / "m.zip", True), table)
            else:
                me_agent = PPOAgent(table, learner, greedy=False)
            if a.role == "punter":
                v = solve.expected_value(me_agent, opponent, ev)
                short = br.value - v
            else:
                v = solve.expected_value(opponent, me_agent, ev)
                short = v + br.value  # the banker's best response holds the punter to -br.value
        print(f"iteration {k}: value {v:+.4f} (the punter's), short of the best response by {short:.4f} "
              f"({time.perf_counter() - t0:.0f} s)", flush=True)  # fmt: skip

    measure(0)
    for k in range(1, a.iterations + 1):
        if learner is None:
            nets[me] = actor(model.policy)
            model.train_on(sampler.sample(hands, nets, sampler.record(me), merge=True), cfg.vine.steps, cfg.vine.epochs)
        else:
            nets[me] = learner
            learner.step(
                sampler.sample(hands, nets, sampler.record(me), merge=True),
                model.kl_coef,
                model.magnet,
                model.value_scale,
            )
        if k % a.every == 0:
            measure(k)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
