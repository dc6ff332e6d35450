"""The vine learner behind the seam of ``training.seam`` (``VineLearner``): the two
learner processes of ``training.vine`` and the iterations of a generation.

Each iteration both learners get the other's newest weights, play their hands, branch
their own role's decisions, take ``vine.epochs`` passes of ``vine.steps`` gradient steps
and send back their weights: simultaneous updates, both meeting the other's weights of the
iteration before, or with ``vine.alternate`` in turns (the punter, then the banker against
the punter's new weights).
After ``vine.iterations`` iterations the generation's snapshots are saved, and the run
driver (``training.driver``) measures them (the exact NashConv of the pair); so it does
the snapshots taken within a generation (``vine.snapshot_every``), as they come."""

from __future__ import annotations

import time
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from training.config import TrainConfig
from training.learners import derive_seed, learner_model, make_venv, set_rates
from training.runs import ROLES, RunState, begin_learner_process, iterate_snapshot
from training.seam import Snapshots

__all__ = ["VineLearner", "vine_learner"]


def vine_learner(role: str, cfg_data: dict[str, Any], run_dir: str, snapshot: str | None, conn, counter,
                 parent_pid: int) -> None:  # fmt: skip
    """A learner process of the vine learner. Requests: ``("iterate", gen, it, other_actor)``
    -> ``("ok", own_actor, stats)``; ``("save", rel)`` -> ``("ok", rel)``; ``None``: stop.
    ``counter`` counts the env steps it plays (main hands and branches)."""
    from siete_env.processes import quick_exit

    _lock = begin_learner_process(run_dir, parent_pid)  # noqa: F841  (held until the process ends)
    try:
        import torch

        from training.vine import BANKER, PUNTER, Explore, VineSampler, actor

        cfg = TrainConfig(**cfg_data)
        torch.set_num_threads(cfg.threads)
        torch.set_flush_denormal(True)
        root = Path(run_dir)
        i = ROLES.index(role)
        ppo = getattr(cfg, role).ppo
        v = cfg.vine
        venv = make_venv(cfg, role, derive_seed(cfg.seed, 1, i))
        model = learner_model(cfg, role, venv, derive_seed(cfg.seed, 2, i), None, root / snapshot if snapshot else None)
        from stable_baselines3.common.logger import configure

        model.set_logger(configure(str(root / "tb" / role), ["tensorboard"]))
        sampler = VineSampler(cfg.rules, v.tables, derive_seed(cfg.seed, 5, i), cfg.num_players)
        if v.workers > 1:
            sampler.start_workers(v.workers)
        me = PUNTER if role == "punter" else BANKER
        hands = v.punter_hands if role == "punter" else v.banker_hands
    except Exception as e:  # noqa: BLE001  (reported to the main process)
        conn.send(("error", f"{role} learner could not start: {e!r}\n{traceback.format_exc()}", None))
        conn.close()
        return
    while True:
        msg = conn.recv()
        if msg is None:
            break
        try:
            if msg[0] == "actor":
                conn.send(("ok", actor(model.policy), None))
                continue
            if msg[0] == "save":
                (root / msg[1]).parent.mkdir(parents=True, exist_ok=True)
                model.save(root / msg[1])
                conn.send(("ok", msg[1], None))
                continue
            _, gen, it, other = msg
            if it == 1:  # a generation starts: its own seeds (an exact resume)
                seed = derive_seed(cfg.seed, 3, gen, i)
                sampler.rng = np.random.default_rng(seed)
                model.reseed(seed)
                rates = ppo.at(gen, cfg.generations)
                set_rates(model, rates.learning_rate, magnet=rates.magnet)
            nets = [None, None]
            nets[me] = actor(model.policy)
            nets[1 - me] = Explore(other, v.explore) if me == BANKER and v.explore else other
            t0 = time.perf_counter()
            before = sampler.steps
            batch = sampler.sample(hands, sampler.seats(*nets), sampler.record(me), v.merge)
            t1 = time.perf_counter()
            stats = model.train_on(batch, v.steps, v.epochs)
            t2 = time.perf_counter()
            steps = sampler.steps - before
            with counter.get_lock():
                counter.value += steps
            stats.update(
                decisions=batch.decisions,
                rows=len(batch),
                env_steps=steps,
                sample_seconds=t1 - t0,
                train_seconds=t2 - t1,
            )
            model.num_timesteps += steps
            for k, val in stats.items():
                model.logger.record(f"vine/{k}", val)
            model.logger.dump(model.num_timesteps)
            conn.send(("ok", actor(model.policy), stats))
        except Exception as e:  # noqa: BLE001  (reported to the main process)
            conn.send(("error", f"{role} learner: {e!r}\n{traceback.format_exc()}", None))
            break
    model.logger.close()
    sampler.close()
    conn.close()
    quick_exit()


class VineLearner:
    """The vine learner behind the seam (``training.seam.Learner``): its two learner
    processes (``vine_learner``), ``vine.iterations`` iterations a generation."""

    def __init__(self, cfg: TrainConfig, run_dir: Path, state: RunState, env: dict[str, str] | None = None):
        self.cfg, self.run_dir, self.env = cfg, run_dir, env
        self._from = state  # where the run starts: its newest snapshots, its generation

    def start(self) -> None:
        import multiprocessing as mp

        from tqdm.auto import tqdm

        from training.runs import start_learners

        ctx = mp.get_context("spawn")
        self.procs, self.conns, _ = start_learners(ctx, vine_learner, self.cfg, self.run_dir, self._from, self.env)
        n = self.cfg.vine.iterations
        self.bar = tqdm(total=n * self.cfg.generations, initial=n * self._from.generation, unit="it",
                        dynamic_ncols=True, desc="training")  # fmt: skip
        # each learner's newest weights (its actor), from the learners themselves
        self.nets = {r: payload for r, (payload, _) in self._ask(dict.fromkeys(ROLES, ("actor",))).items()}

    def generation(self, gen: int, state: RunState) -> Iterator[Snapshots]:
        cfg, v = self.cfg, self.cfg.vine
        self.bar.set_postfix_str(f"generation {gen}/{cfg.generations}")
        out = self._fresh(gen)
        for it in range(1, v.iterations + 1):
            t0 = time.perf_counter()
            if v.alternate:  # the punter, then the banker against the punter's new weights
                res = self._ask({"punter": ("iterate", gen, it, self.nets["banker"])})
                self.nets["punter"] = res["punter"][0]
                res.update(self._ask({"banker": ("iterate", gen, it, self.nets["punter"])}))
            else:
                res = self._ask(
                    {r: ("iterate", gen, it, self.nets[other]) for r, other in zip(ROLES, ROLES[::-1], strict=True)}
                )
            self.nets = {r: res[r][0] for r in ROLES}
            for r in ROLES:
                st = res[r][1]
                out.steps[r] += st["env_steps"]
                out.seconds[r] += st["sample_seconds"] + st["train_seconds"]
            self.bar.update(1)
            out.wall_seconds += time.perf_counter() - t0
            if cfg.iterate_snapshot(gen, it):  # a snapshot within the generation (vine.snapshot_every)
                rel = {r: iterate_snapshot(gen, it, r) for r in ROLES}
                self._ask({r: ("save", rel[r]) for r in ROLES})
                out.paths, out.iteration = rel, it
                yield out
                out = self._fresh(gen)
        saved = self._ask({r: ("save", f"gen_{gen:03d}/{r}.zip") for r in ROLES})
        out.paths = {r: saved[r][0] for r in ROLES}
        yield out

    def stop(self) -> None:
        if hasattr(self, "bar"):
            self.bar.close()
        if hasattr(self, "conns"):
            from training.runs import stop_learners

            stop_learners(self.conns, self.procs)

    @staticmethod
    def _fresh(gen: int) -> Snapshots:
        return Snapshots(gen, {}, steps=dict.fromkeys(ROLES, 0), seconds=dict.fromkeys(ROLES, 0.0))

    def _ask(self, messages: dict[str, Any]) -> dict[str, Any]:
        """Send each learner its message and wait for the answers (``(payload, stats)``)."""
        for role, m in messages.items():
            self.conns[role].send(m)
        out = {}
        for role in messages:
            try:
                status, payload, stats = self.conns[role].recv()
            except (EOFError, OSError):
                code = self.procs[role].exitcode
                raise RuntimeError(f"the {role} learner process died (exit code {code})") from None
            if status != "ok":
                raise RuntimeError(payload)
            out[role] = (payload, stats)
        return out
