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

__all__ = ["VineBatch", "VineSampler", "VinePPO", "actor"]

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


class VineSampler:
    """Heads-up hands between two actor networks on the batched engine, with every
    decision of one role branched over its legal actions (see the module docstring)."""

    def __init__(self, rules: Any, capacity: int, seed: int):
        self.t = BatchedTables(capacity, 2, rules)
        self.A, self.D = self.t.A, self.t.folded_size
        self.rng = np.random.default_rng(seed)
        self.steps = 0  # env steps played (every table's every action, main hands and copies)
        keys = np.random.default_rng(0)  # fixed weights of the rows' keys (not the sampling's generator)
        self._key_obs = keys.integers(1, 2**40, self.D).astype(np.float64)
        self._key_mask = keys.integers(1, 2**40, self.A).astype(np.float64)

    def _probs(self, net: MLPPolicy, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
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

    def row_keys(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Each (observation, mask) row's key (float64): a fixed random projection, the same
        for equal rows (what ``_groups`` groups by; a collision is checked there)."""
        return _row_keys(np.asarray(obs, np.float32), np.asarray(masks, np.int8), self._key_obs, self._key_mask)

    def _groups(self, obs: np.ndarray, masks: np.ndarray, most: int | None = None):
        """The distinct (observation, mask) rows: ``(first, inv)`` with ``obs[first][inv] ==
        obs`` (and the masks), or ``None`` if there are more than ``most`` of them. Rows
        are grouped by a key (a fixed random projection, computed in a compiled loop) and
        the grouping checked row by row: a collision of keys (never seen) gives ``None``."""
        _, first, inv = np.unique(self.row_keys(obs, masks), return_index=True, return_inverse=True)
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

    def _play_out(self, games: np.ndarray, nets: list[MLPPolicy], record: int | None = None, crn=None) -> list:
        """Play the tables ``games`` to the end of the hand; with ``record`` (a role) the
        decisions of that role are returned as ``(obs, masks, probs, state rows)``."""
        t, st = self.t, self.t.state
        active = games
        out = []
        if crn is not None:
            family, U, count = crn
        while len(active):
            active = active[st[active, K.PHASE] != K.P_OVER]
            if not len(active):
                break
            obs, masks = t.observe(active, fold=True)
            banker = st[active, K.SEAT] == st[active, K.BANKER]
            acts = np.empty(len(active), np.int64)
            for role, sel in ((PUNTER, ~banker), (BANKER, banker)):
                if not sel.any():
                    continue
                p = self._probs(nets[role], obs[sel], masks[sel])
                g = active[sel]
                if crn is None:
                    u = self.rng.random(len(g))
                else:
                    u = U[family[g], np.minimum(count[g], U.shape[1] - 1)]
                    count[g] += 1
                acts[sel] = _draw(p, u)
                if record == role:
                    out.append((obs[sel], masks[sel], p, st[g].copy()))
            t.apply(active, acts)
            self.steps += len(active)
        return out

    def sample(self, hands: int, nets: list[MLPPolicy], role: int, merge: bool = False) -> VineBatch:
        """``hands`` hands between the actors ``nets`` (per role), every decision of
        ``role`` branched (see the module docstring); ``merge``: the repeated decisions
        merged (``merge``, as ``vine.merge`` says)."""
        t = self.t
        cap = t.N
        parts: list = []
        for s in range(0, hands, cap):  # the main hands, in blocks of the tables there are
            g = np.arange(min(cap, hands - s))
            t.start(g, np.ones(len(g), np.int64), t.shuffled_decks(len(g), self.rng))  # the banker at seat 1
            parts += self._play_out(g, nets, record=role)
        obs = np.concatenate([x[0] for x in parts])
        masks = np.concatenate([x[1] for x in parts])
        probs = np.concatenate([x[2] for x in parts])
        rows = np.concatenate([x[3] for x in parts])
        seat = 1 if role == BANKER else 0
        q = np.zeros(masks.shape, np.float32)
        di, ai = np.nonzero(masks)  # one copy per (decision, legal action)
        U = self.rng.random((len(obs), _CRN_DRAWS))
        family = np.zeros(cap, np.int64)
        count = np.zeros(cap, np.int64)
        for s in range(0, len(di), cap):
            d, a = di[s : s + cap], ai[s : s + cap]
            g = np.arange(len(d))
            t.state[g] = rows[d]
            t.apply(g, a)
            family[g], count[g] = d, 0
            self._play_out(g, nets, crn=(family, U, count))
            q[d, a] = t.chips[g, seat]
        batch = VineBatch(obs, masks, probs, q)
        return self.merge(batch) if merge else batch


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
