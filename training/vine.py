"""Self-play by branched ("vine") rollouts and an all-actions mirror-descent PPO loss.

The learner ``make train`` runs (``learner: vine`` in a config). Both learners, a punter
network and a banker network, play each other on the batched engine (the current weights
of both, sampling their action probabilities); at every decision of the learner's role in
those hands the table is **branched**: one copy per legal action, each copy played out to
the end of the hand by the same two networks. The chips each copy ends with are a played
sample of that action's value ``Q(s, a)`` at the table's full state ``s``. The copies
share the deck (the cards still to come lie in the same order) and draw their later
actions from the same random numbers (common random numbers), so the differences between
the actions' values carry little of the deck's or the sampling's noise.

The policy loss (``VinePPO``, a ``MaskablePPO`` whose loss is replaced) uses every legal
action's value, the deep magnetic-mirror-descent loss of the field notes with all actions:

    L = - mean_s sum_a pi(a|o) A(s, a) / scale
        + kl_coef * KL(pi || pi_rollout) + magnet * KL(pi || uniform)

with ``A(s, a) = Q(s, a) - sum_b pi_rollout(b|o) Q(s, b)`` (``scale``: the top stake). The
policy sees only its seat's observation ``o``; averaged over the hidden state at ``o``
the loss is the policy gradient at that information state, with no noise from the action
taken (every action is valued) and a rarely played action still valued. ``kl_coef`` is the
mirror-descent step (a KL to the policy that played the hands), ``magnet`` the pull
toward the magnet, as in magnetic mirror descent (Sokota et al. 2022): the uniform policy
(a moving magnet was measured and not kept: docs/experiments.md). The critic is
the played hands themselves: no learned value function, no exact value.

Decisions repeat (the punter's about twelve times an iteration, the banker's four): with
``vine.merge`` the loss goes over the distinct (observation, mask) rows, each weighted by its
count with its played values averaged (``VineSampler.merge``) — the same loss, since the
rollout policy's probabilities depend on the row alone — in minibatches that
keep a frequent row's repeats spread over all of them, as the unmerged minibatches do.

The two learners run in two processes (``training.vine_run``): each plays its own hands with
both networks and branches its own role's decisions; after each iteration they exchange
weights. A generation is ``vine.iterations`` iterations; each ends with a snapshot
(``gen_XXX/<role>.zip``, a MaskablePPO model that ``ppo:`` specs, ``evaluate.py`` and
``play.py`` load as any other) and train.py's exact measures.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import torch as th
from numba import njit
from sb3_contrib import MaskablePPO

from agents.learned import MLPPolicy
from siete_env.batched import BatchedTables
from siete_env.batched import kernels as K

__all__ = ["Explore", "Frozen", "VineBatch", "VineSampler", "VinePPO", "actor"]

PUNTER, BANKER = 0, 1  # role indices (training.runs.ROLES order)
_CRN_DRAWS = 32  # common random numbers per branched decision (a hand never has more decisions)


def actor(policy) -> MLPPolicy:
    """The actor of a ``MaskableActorCriticPolicy`` in numpy (``agents.learned.MLPPolicy``:
    float32 layers, the masked softmax in float64): what the sampler plays and the
    learners send each other."""
    return MLPPolicy.from_policy(policy)


def _draw(p: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Actions by inverse transform: ``u`` uniform in [0, 1), one per row."""
    c = np.cumsum(p, axis=1)
    return np.minimum((c <= (u * c[:, -1])[:, None]).sum(axis=1), p.shape[1] - 1)


@njit(cache=True)
def _row_keys(obs, masks, w_obs, w_mask):  # pragma: no cover  (compiled)
    """Each row's key: ``obs @ w_obs + masks @ w_mask`` in float64, without the copies."""
    n = obs.shape[0]
    out = np.empty(n)
    for i in range(n):
        k = 0.0
        for j in range(obs.shape[1]):
            k += obs[i, j] * w_obs[j]
        for j in range(masks.shape[1]):
            k += masks[i, j] * w_mask[j]
        out[i] = k
    return out


def _mean(x, w):
    """The minibatch's mean of the per-row terms ``x``, or their sum weighted by ``w`` (merged rows)."""
    return x.mean() if w is None else (w * x).sum()


@njit(cache=True)
def _rows_match(obs, masks, first, inv):  # pragma: no cover  (compiled)
    """Whether every row equals its group's first row (``obs[first][inv] == obs``, and the
    masks), without the copies."""
    for i in range(obs.shape[0]):
        f = first[inv[i]]
        for j in range(obs.shape[1]):
            if obs[i, j] != obs[f, j]:
                return False
        for j in range(masks.shape[1]):
            if masks[i, j] != masks[f, j]:
                return False
    return True


@dataclass
class VineBatch:
    """One role's branched decisions: observations ``(n, D)``, masks ``(n, A)``, the
    rollout policy's probabilities ``(n, A)`` and each legal action's played value
    ``q (n, A)`` (the learner's chips; 0 where illegal); ``weight``: each row's count once
    merged (``VineSampler.merge``), else ``None``."""

    obs: np.ndarray
    masks: np.ndarray
    probs: np.ndarray
    q: np.ndarray
    weight: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.obs)

    @property
    def decisions(self) -> int:
        """The decisions the batch stands for (its rows, or their weights' sum once merged)."""
        return len(self) if self.weight is None else int(round(float(self.weight.sum())))


class Frozen:
    """A frozen player in the sampler's hands: any agent with ``action_probs`` (a
    heuristic, a ``ppo:`` network, a table), asked on the unfolded observation as it is
    everywhere else (``siete_env.opponents.policy_probs``)."""

    def __init__(self, agent: Any):
        self.agent = agent

    def probs(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        from siete_env.opponents import policy_probs

        p = np.asarray(policy_probs(self.agent, obs, masks), np.float64)
        return np.where(masks > 0, p, 0.0)


class Explore:
    """A player whose moves are ``policy``'s mixed with uniformly random legal ones: with
    probability ``share`` a random legal move (``vine.explore``: the punters the banker
    learner plays, so that it also meets the moves its punter seldom makes)."""

    def __init__(self, policy: Any, share: float):
        from siete_env.opponents import UniformRandom

        self.policy, self.share = policy, float(share)
        self.uniform = UniformRandom(0)  # its probabilities only: uniform over the legal moves

    def probs(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        uniform = self.uniform.action_probs(obs, np.asarray(masks))
        return (1.0 - self.share) * self.policy.probs(obs, masks) + self.share * uniform


class VineSampler:
    """Hands between players on the batched engine, every decision of one of them branched
    over its legal actions (see the module docstring). A table has ``num_players`` seats,
    the bank at seat ``BANKER_SEAT``; ``sample`` takes a player per seat (an actor network,
    ``MLPPolicy``, or a ``Frozen`` agent) and the one to branch: the punter network sits at
    every punter seat when the punter learner samples (its decisions at all of them are
    branched), the banker network at the bank."""

    BANKER_SEAT = 1  # heads-up the punter plays first from seat 0, as it always did

    def __init__(self, rules: Any, capacity: int, seed: int, num_players: int = 2):
        from siete_env.features import suits_matter

        self.t = BatchedTables(capacity, num_players, rules)
        self.n = self.t.n
        self.fold = not suits_matter(self.t.rules)  # the networks' input, as SeatEnv's fold_suits="auto"
        self.A = self.t.A
        self.D = self.t.folded_size if self.fold else self.t.obs_size
        self.rng = np.random.default_rng(seed)
        self.steps = 0  # env steps played (every table's every action, main hands and copies)
        self.crn_draws = _CRN_DRAWS * (self.n - 1)  # a punter's decisions at most, times the punters
        keys = np.random.default_rng(0)  # fixed weights of the rows' keys (not the sampling's generator)
        self._key_obs = keys.integers(1, 2**40, self.D).astype(np.float64)
        self._key_mask = keys.integers(1, 2**40, self.A).astype(np.float64)
        self._key_raw = keys.integers(1, 2**40, self.t.obs_size).astype(np.float64)  # unfolded rows' (Frozen)
        self._helpers: list = []  # pipes to the helper processes (start_workers)
        self._procs: list = []
        self._sent: dict[int, Frozen] = {}  # frozen players the helpers hold, by key

    def seats(self, punter: Any, banker: Any) -> list:
        """A player per seat: ``banker`` at the bank, ``punter`` at every other seat."""
        return [banker if s == self.BANKER_SEAT else punter for s in range(self.n)]

    def _probs(self, net, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """``net.probs`` computed once per distinct (observation, mask) row: the rows a
        batch of tables shows repeat (about one in seven is new), and the network is most
        of a sample's time. Rows are grouped by ``_groups``; if that fails, every row is
        computed."""
        if len(obs) >= 512:
            g = self._groups(obs, masks, len(obs) // 2)
            if g is not None:
                first, inv = g
                return net.probs(obs[first], masks[first])[inv]
        return net.probs(obs, masks)

    def _frozen_probs(self, player: Frozen, games: np.ndarray) -> np.ndarray:
        """A ``Frozen`` player's probabilities at ``games`` (their unfolded observations),
        asked once per distinct row, as ``_probs``."""
        obs, masks = self.t.observe(games)
        if len(obs) >= 512:
            g = self._groups(obs, masks, len(obs) // 2, self._key_raw)
            if g is not None:
                first, inv = g
                return player.probs(obs[first], masks[first])[inv]
        return player.probs(obs, masks)

    def row_keys(self, obs: np.ndarray, masks: np.ndarray, key_obs: np.ndarray | None = None) -> np.ndarray:
        """Each (observation, mask) row's key (float64): a fixed random projection, the same
        for equal rows (what ``_groups`` groups by; a collision is checked there).
        ``key_obs``: the projection of another observation width (``_key_raw``: unfolded)."""
        w = self._key_obs if key_obs is None else key_obs
        return _row_keys(np.asarray(obs, np.float32), np.asarray(masks, np.int8), w, self._key_mask)

    def _groups(self, obs: np.ndarray, masks: np.ndarray, most: int | None = None, key_obs=None):
        """The distinct (observation, mask) rows: ``(first, inv)`` with ``obs[first][inv] ==
        obs`` (and the masks), or ``None`` if there are more than ``most`` of them. Rows
        are grouped by a key (a fixed random projection, computed in a compiled loop) and
        the grouping checked row by row: a collision of keys (never seen) gives ``None``."""
        _, first, inv = np.unique(self.row_keys(obs, masks, key_obs), return_index=True, return_inverse=True)
        if most is not None and len(first) > most:
            return None
        if _rows_match(obs, masks, first, inv):
            return first, inv
        return None

    def merge(self, batch: VineBatch) -> VineBatch:
        """``batch`` with its repeated rows merged: one row per distinct (observation, mask),
        weighted by how often it came, its played values averaged. The rollout policy's
        probabilities depend on the row alone, so the loss over the
        merged rows, each weighted, is the loss over the decisions (``VinePPO.train_on``),
        computed on a fraction of the rows (the punter's decisions repeat about twelve
        times, the banker's about four)."""
        g = self._groups(batch.obs, batch.masks)
        if g is None:  # pragma: no cover  (a collision of keys: keep every row)
            return batch
        first, inv = g
        w0 = np.ones(len(batch)) if batch.weight is None else batch.weight
        weight = np.bincount(inv, weights=w0, minlength=len(first))
        q = np.stack(
            [np.bincount(inv, weights=batch.q[:, a] * w0, minlength=len(first)) for a in range(batch.q.shape[1])], 1
        )
        q /= weight[:, None]
        return VineBatch(batch.obs[first], batch.masks[first], batch.probs[first], q.astype(np.float32), weight)

    def _play_out(self, games: np.ndarray, seats: list, rng, record: np.ndarray | None = None, crn=None) -> list:
        """Play the tables ``games`` to the end of the hand, ``seats[s]`` deciding at seat
        ``s``; the decisions at the seats where ``record`` (a bool per seat) is true are
        returned as ``(obs, masks, probs, state rows)``."""
        t, st = self.t, self.t.state
        players: list = []  # the distinct players, in seat order
        for p in seats:
            if not any(p is q for q in players):
                players.append(p)
        who_of = np.array([next(i for i, q in enumerate(players) if q is p) for p in seats], np.int64)
        active = games
        out = []
        if crn is not None:
            family, U, count = crn
        while len(active):
            active = active[st[active, K.PHASE] != K.P_OVER]
            if not len(active):
                break
            obs, masks = t.observe(active, fold=self.fold)
            seat = st[active, K.SEAT]
            who = who_of[seat]
            acts = np.empty(len(active), np.int64)
            for i, player in enumerate(players):
                sel = who == i
                if not sel.any():
                    continue
                g = active[sel]
                if isinstance(player, Frozen):
                    p = self._frozen_probs(player, g)
                else:
                    p = self._probs(player, obs[sel], masks[sel])
                if crn is None:
                    u = rng.random(len(g))
                else:
                    u = U[family[g], np.minimum(count[g], U.shape[1] - 1)]
                    count[g] += 1
                acts[sel] = _draw(p, u)
                if record is not None:
                    mine = record[seat[sel]]
                    if mine.all():
                        out.append((obs[sel], masks[sel], p, st[g].copy()))
                    elif mine.any():
                        out.append((obs[sel][mine], masks[sel][mine], p[mine], st[g[mine]].copy()))
            t.apply(active, acts)
            self.steps += len(active)
        return out

    def record(self, role: int) -> list[int]:
        """The seats of ``role`` (``PUNTER``: every punter seat, ``BANKER``: the bank)."""
        return [s for s in range(self.n) if (s == self.BANKER_SEAT) == (role == BANKER)]

    def sample(self, hands: int, seats: list, record: list[int], merge: bool = False) -> VineBatch:
        """``hands`` hands, ``seats[s]`` playing seat ``s`` (``seats``), every decision at
        the seats ``record`` branched (see the module docstring; ``record(role)``);
        ``merge``: the repeated decisions merged (``merge``, as ``vine.merge`` says). A
        decision's played values are the deciding seat's chips at the end of the hand, per
        punter at the bank (the bank's chips over the punters). With helper processes
        (``start_workers``) the hands are shared out: each process plays its share from a
        seed drawn here, and the batches are joined (and merged again)."""
        if len(seats) != self.n:
            raise ValueError(f"seats: one player per seat ({self.n}), got {len(seats)}")
        if not self._helpers:
            return self._sample(hands, seats, record, merge, self.rng)
        w = len(self._helpers) + 1
        shares = [hands // w + (i < hands % w) for i in range(w)]
        seeds = self.rng.integers(2**63, size=w)
        payload = [self._payload(p) for p in seats]
        for conn, share, seed in zip(self._helpers, shares[1:], seeds[1:], strict=True):
            conn.send((share, payload, list(record), merge, int(seed)))
        parts = [self._sample(shares[0], seats, record, merge, np.random.default_rng(int(seeds[0])))]
        for conn in self._helpers:
            status, part, steps = conn.recv()
            if status != "ok":
                raise RuntimeError(f"a sampler worker failed: {part}")
            parts.append(part)
            self.steps += steps
        batch = VineBatch(*(np.concatenate([getattr(b, k) for b in parts]) for k in ("obs", "masks", "probs", "q")))
        if merge:
            batch.weight = np.concatenate([np.ones(len(b)) if b.weight is None else b.weight for b in parts])
            return self.merge(batch)
        return batch

    def start_workers(self, workers: int) -> None:
        """Share each ``sample`` call's hands with ``workers - 1`` helper processes (each
        with its own tables and one BLAS thread), this process playing its share too."""
        import multiprocessing as mp
        import os
        from unittest import mock

        from training.blas import ONE as one

        ctx = mp.get_context("spawn")
        for _ in range(workers - 1):
            parent, child = ctx.Pipe()
            proc = ctx.Process(target=_sampler_worker, args=(child, self.t.rules, self.t.N, self.n, os.getpid()),
                               daemon=True)  # fmt: skip
            with mock.patch.dict(os.environ, one):  # one BLAS thread each: the processes share the cores
                proc.start()
            child.close()
            self._helpers.append(parent)
            self._procs.append(proc)

    def close(self) -> None:
        """Stop the helper processes."""
        for conn in self._helpers:
            try:
                conn.send(None)
            except (BrokenPipeError, OSError):
                pass
        for proc in self._procs:
            proc.join(timeout=10)
        self._helpers, self._procs = [], []

    def _payload(self, player: Any) -> tuple:
        """What a helper is sent for ``player``: a frozen player once, then its key."""
        if not isinstance(player, Frozen):
            return ("net", player)
        key = id(player)
        if key in self._sent:
            return ("ref", key)
        self._sent[key] = player  # kept: its id stays its own
        return ("frozen", key, player)

    def _sample(self, hands: int, seats: list, record: list[int], merge: bool, rng) -> VineBatch:
        """``sample`` in this process, drawing from ``rng``."""
        mine = np.zeros(self.n, np.bool_)
        mine[list(record)] = True
        t = self.t
        cap = t.N
        parts: list = []
        for s in range(0, hands, cap):  # the main hands, in blocks of the tables there are
            g = np.arange(min(cap, hands - s))
            t.start(g, np.full(len(g), self.BANKER_SEAT, np.int64), t.shuffled_decks(len(g), rng))
            parts += self._play_out(g, seats, rng, record=mine)
        if not parts:
            raise ValueError(f"no decision at the seats {list(record)} in {hands} hands")
        obs = np.concatenate([x[0] for x in parts])
        masks = np.concatenate([x[1] for x in parts])
        probs = np.concatenate([x[2] for x in parts])
        rows = np.concatenate([x[3] for x in parts])
        who = rows[:, K.SEAT].astype(np.int64)  # the deciding seat of each decision
        per = np.where(who == self.BANKER_SEAT, 1.0 / (self.n - 1), 1.0)  # the bank's chips per punter
        q = np.zeros(masks.shape, np.float32)
        di, ai = np.nonzero(masks)  # one copy per (decision, legal action)
        U = rng.random((len(obs), self.crn_draws))
        family = np.zeros(cap, np.int64)
        count = np.zeros(cap, np.int64)
        for s in range(0, len(di), cap):
            d, a = di[s : s + cap], ai[s : s + cap]
            g = np.arange(len(d))
            t.state[g] = rows[d]
            t.apply(g, a)
            family[g], count[g] = d, 0
            self._play_out(g, seats, rng, crn=(family, U, count))
            q[d, a] = t.chips[g, who[d]] * per[d]
        batch = VineBatch(obs, masks, probs, q)
        return self.merge(batch) if merge else batch


def _sampler_worker(conn, rules: Any, capacity: int, num_players: int, parent_pid: int) -> None:
    """A helper process of ``VineSampler.start_workers``: requests ``(hands, seats, record,
    merge, seed)`` -> ``("ok", batch, env steps)``; ``None``: stop."""
    import signal

    from siete_env.processes import die_with_parent

    die_with_parent(parent_pid)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the main process's to handle
    sampler = VineSampler(rules, capacity, 0, num_players)
    frozen: dict[int, Frozen] = {}
    while True:
        try:
            msg = conn.recv()
        except EOFError:
            break
        if msg is None:
            break
        hands, payload, record, merge, seed = msg
        try:
            seats = []
            for item in payload:
                if item[0] == "frozen":
                    frozen[item[1]] = item[2]
                seats.append(item[1] if item[0] == "net" else frozen[item[1]])
            before = sampler.steps
            batch = sampler._sample(hands, seats, record, merge, np.random.default_rng(seed))
            conn.send(("ok", batch, sampler.steps - before))
        except Exception as e:  # noqa: BLE001  (reported to the sampler that asked)
            conn.send(("error", repr(e), 0))
    conn.close()


class VinePPO(MaskablePPO):
    """``MaskablePPO`` trained on branched decisions (``VineBatch``) with the
    all-actions mirror-descent loss of the module docstring: ``kl_coef`` weighs the KL
    to the rollout policy, ``magnet`` the KL to the uniform policy (the magnet). SB3's rollout
    collection and its clipped loss are not used (``learn`` refuses); the model saves
    and loads as a ``MaskablePPO`` (its policy is an ordinary
    ``MaskableActorCriticPolicy``)."""

    def __init__(self, *args, kl_coef: float = 0.0, magnet: float = 0.0, value_scale: float = 1.0, **kwargs):
        self.kl_coef = float(kl_coef)
        self.magnet = float(magnet)
        self.value_scale = float(value_scale)
        super().__init__(*args, **kwargs)
        self._gen = th.Generator().manual_seed(int(self.seed or 0) % 2**63)  # minibatch order

    def reseed(self, seed: int) -> None:
        """The minibatch order's generator from ``seed`` (a generation's own seed)."""
        self._gen = th.Generator().manual_seed(seed % 2**63)

    def _excluded_save_params(self) -> list[str]:
        return [*super()._excluded_save_params(), "_gen"]

    def learn(self, *args, **kwargs):  # noqa: D102
        raise NotImplementedError("VinePPO learns from VineBatch samples: train_on(batch)")

    def train_on(self, batch: VineBatch, steps: int, epochs: int = 1) -> dict[str, float]:
        """``epochs`` passes over ``batch``, each ``steps`` gradient steps of the loss
        (minibatches of ``len(batch) / steps`` rows; a merged batch's rows weighted, see
        below); returns the losses' means."""
        pol = self.policy
        pol.set_training_mode(True)
        lr = float(self.learning_rate)  # constant within a generation (training.learners.set_rates, per generation)
        for group in pol.optimizer.param_groups:
            group["lr"] = lr
        x = th.as_tensor(batch.obs)
        legal = th.as_tensor(batch.masks > 0)
        q = th.as_tensor(batch.q, dtype=th.float32) / self.value_scale
        old = th.as_tensor(batch.probs, dtype=th.float32)
        adv = (q - (old * q).sum(1, keepdim=True)) * legal
        log_old = th.log(old.clamp_min(1e-30))
        log_n = th.log(legal.sum(1).float())
        n = len(batch)
        size = -(-n // max(1, steps))
        k = -(-n // size)  # minibatches per pass
        w = None
        if batch.weight is not None:  # merged rows (VineSampler.merge)
            # a minibatch is a k-th of the decisions with its repeats merged: a row that came
            # k times or more is in every minibatch with a k-th of its weight, the others in one
            # (dealt in weight order, so that each minibatch gets as much weight); each loss is
            # the weighted sum over the minibatch's rows, scaled as the mean over its decisions
            wt = np.asarray(batch.weight, np.float64)
            heavy = wt >= k
            w = th.as_tensor(np.where(heavy, wt / k, wt) / (wt.sum() / k), dtype=th.float32)
            every = th.as_tensor(np.flatnonzero(heavy))
            light = np.flatnonzero(~heavy)
            light = th.as_tensor(light[np.argsort(-wt[light], kind="stable")])
        stats = []
        for _ in range(epochs):
            if w is None:
                perm = th.randperm(n, generator=self._gen)
                batches = [perm[s : s + size] for s in range(0, n, size)]
            else:
                tier = th.arange(len(light)) // k
                perm = light[th.argsort(tier + th.rand(len(light), generator=self._gen))]
                batches = [th.cat([every, perm[j::k]]) for j in range(k)]
            for i in batches:
                latent = pol.mlp_extractor.forward_actor(pol.extract_features(x[i], pol.pi_features_extractor))
                z = pol.action_net(latent).masked_fill(~legal[i], -1e9)
                logp = th.log_softmax(z, 1)
                p = logp.exp()
                logp = th.where(legal[i], logp, th.zeros_like(logp))
                wi = None if w is None else w[i]
                pg = -_mean((p * adv[i]).sum(1), wi)
                kl_old = _mean((p * (logp - th.where(legal[i], log_old[i], th.zeros_like(logp)))).sum(1), wi)
                kl_mag = _mean((p * logp).sum(1) + log_n[i], wi)  # KL(pi || uniform)
                loss = pg + self.kl_coef * kl_old + self.magnet * kl_mag
                pol.optimizer.zero_grad()
                loss.backward()
                th.nn.utils.clip_grad_norm_(pol.parameters(), self.max_grad_norm)
                pol.optimizer.step()
                stats.append((pg.item(), kl_old.item(), kl_mag.item()))
        self._n_updates += 1
        m = np.mean(stats, axis=0)
        return {"policy_gradient_loss": float(m[0]), "kl_rollout": float(m[1]), "kl_magnet": float(m[2])}
