"""Where a learner's time goes: one learner of a training config, profiled (cProfile)
while it learns against a pool built as the config's later generations build it (its
heuristics for ``<role>.baseline_share`` of the hands, the exploiter share against an
exact best-response table, the rest against a snapshot of the other role).

    python lab/profile_learner.py [--config configs/train/exploiters.yaml] [--role banker] [--steps 40000]

Prints the share of ``learn()`` in: PPO updates (``train``), the learner's own network in
the rollouts, the environment (the batched kernels or the AEC engine), the opponents'
decisions (snapshots, tables, heuristics), and the rest; then the top functions. The
snapshot is an untrained network of the config's shape; the best-response table is the
exact best response to it (computed first, not timed). A ``learner: vine`` config
(``configs/train/default.yaml``) is profiled over one iteration of its learner instead
(``profile_vine``: playing the hands and their branches, the networks' share of it, the
engine's, the gradient steps).
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

# (label, functions whose cumulative time counts for it), first match wins when nested
GROUPS = [
    ("PPO updates (train)", ("ppo_mask.py", "train"), ("ppo.py", "train")),
    ("opponents' decisions", ("vector.py", "sample_actions"), ("gym_env.py", "_play_others")),
    ("the learner's network in the rollouts", ("policies.py", "forward")),
]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--config", default="configs/train/exploiters.yaml")  # a learner: vine config: profile_vine
    ap.add_argument("--role", default="banker", choices=["punter", "banker"])
    ap.add_argument("--steps", type=int, default=40_000)
    ap.add_argument("--top", type=int, default=15)
    args = ap.parse_args()

    import torch

    from agents.specs import AgentSpec, make_agent
    from siete_env import raw_env, solve
    from training.config import load_config
    from training.driver import save_best_responses
    from training.learners import derive_seed, make_model, make_venv
    from training.runs import ROLES

    torch.set_num_threads(1)
    cfg = load_config(args.config)
    if cfg.learner == "vine":
        return profile_vine(cfg, args)
    role, other = args.role, ("banker" if args.role == "punter" else "punter")
    folder = Path(tempfile.mkdtemp())
    snaps = {}
    for r in ROLES:
        snaps[r] = folder / f"{r}.zip"
        make_model(getattr(cfg, r), make_venv(cfg, r, 1), 1, None).save(snaps[r])
    pool_size = 1 - getattr(cfg, role).baseline_share
    base = cfg.opponents.baseline_bankers if role == "punter" else cfg.opponents.baseline_punters
    pool = {b: getattr(cfg, role).baseline_share / len(base) for b in base}
    if cfg.opponents.exploiter_share > 0:
        table = raw_env(2, cfg.rules)
        agents = [make_agent(AgentSpec.model(snaps[r], cfg.opponents.sample), table) for r in ROLES]
        pe = solve.evaluate_pair(*agents, cfg.rules)
        save_best_responses(cfg, folder / "br.npz", pe)
        pool[str(AgentSpec.tables(folder / "br.npz"))] = cfg.opponents.exploiter_share
        pool_size -= cfg.opponents.exploiter_share
    pool[str(AgentSpec.model(snaps[other], cfg.opponents.sample))] = pool_size
    venv = make_venv(cfg, role, derive_seed(cfg.seed, 1, ROLES.index(role)))
    venv.env_method("set_opponents", pool, None)
    model = make_model(getattr(cfg, role), venv, 0, None)
    model.learn(4_096)  # warm up
    prof = cProfile.Profile()
    t0 = time.perf_counter()
    prof.runcall(model.learn, args.steps, reset_num_timesteps=False)
    dt = time.perf_counter() - t0
    st = pstats.Stats(prof)
    total = max(v[3] for v in st.stats.values())  # learn()'s cumulative time
    print(f"{role} learner of {args.config}: {args.steps / dt:,.0f} env steps/s under the profiler; pool {pool}")

    def cum(*keys: tuple[str, str]) -> float:
        return sum(v[3] for (f, _, fn), v in st.stats.items() if any(f.endswith(a) and fn == b for a, b in keys))

    shares = {label: cum(*keys) / total for label, *keys in GROUPS}
    env = cum(("vector.py", "step_wait"), ("dummy_vec_env.py", "step_wait")) / total
    shares["the environment itself (without the opponents)"] = env - shares["opponents' decisions"]
    shares["the rest (rollout buffer, SB3's bookkeeping)"] = 1 - sum(shares.values())
    for label, share in shares.items():
        print(f"  {label:48s} {share:6.1%}")
    st.sort_stats("tottime").print_stats(args.top)


def profile_vine(cfg, args) -> None:
    """One iteration of a ``learner: vine`` learner (``training.vine``) under the profiler:
    the config's hands against an untrained network of the other role, every decision of
    the role branched, then its gradient steps."""
    import torch

    from training.learners import learner_model, make_venv
    from training.runs import ROLES
    from training.vine import BANKER, PUNTER, VineSampler, actor

    torch.set_num_threads(cfg.threads)  # as the config's learners
    models = []
    for i, r in enumerate(ROLES):
        venv = make_venv(cfg.model_copy(update={"n_envs": 1}), r, i)
        models.append(learner_model(cfg, r, venv, i, None))  # its class and loss as train.py's
    me = PUNTER if args.role == "punter" else BANKER
    hands = cfg.vine.punter_hands if me == PUNTER else cfg.vine.banker_hands
    sampler = VineSampler(cfg.rules, cfg.vine.tables, 0)
    layers = [actor(m.policy) for m in models]
    models[me].train_on(sampler.sample(1_000, layers, sampler.record(me)), cfg.vine.steps)  # warm up

    def iteration():
        batch = sampler.sample(hands, layers, sampler.record(me), cfg.vine.merge)
        models[me].train_on(batch, cfg.vine.steps, cfg.vine.epochs)
        return batch

    prof = cProfile.Profile()
    before = sampler.steps
    t0 = time.perf_counter()
    batch = prof.runcall(iteration)
    dt = time.perf_counter() - t0
    st = pstats.Stats(prof)
    total = max(v[3] for v in st.stats.values())

    def cum(name: str) -> float:
        return sum(v[3] for (f, _, fn), v in st.stats.items() if f.endswith("vine.py") and fn == name)

    def own(*names: str) -> float:
        return sum(v[2] for (_, _, fn), v in st.stats.items() if fn in names)

    play, train, nets = cum("sample"), cum("train_on"), cum("_probs")  # _probs: grouping the rows, then the networks
    engine = own("observe_batch", "apply_batch", "start_batch")
    print(f"{args.role} vine learner of {args.config}: one iteration of {hands:,} hands, {batch.decisions:,} branched "
          f"decisions ({len(batch):,} rows), {sampler.steps - before:,} env steps in {dt:.2f} s under the profiler")  # fmt: skip
    for label, x in (("playing (main hands and branches)", play), ("  the two networks (grouping rows, forward)", nets),
                     ("  the batched engine (observe, apply, start)", engine), ("gradient steps (train_on)", train)):  # fmt: skip
        print(f"  {label:48s} {x / total:6.1%}")
    st.sort_stats("tottime").print_stats(args.top)


if __name__ == "__main__":
    main()
