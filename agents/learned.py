"""Learned policies: a MaskablePPO model saved by ``train.py``, played as a table agent.

The network is run with numpy, not torch: a saved model is loaded once (torch reads its
``policy.pth`` with ``weights_only=True``; nothing in the zip is unpickled: ``read_model_zip``), its actor's weights are copied into an ``MLPPolicy``, and every decision is
then a few small matrix products, far cheaper than a torch call on one observation (the
figures: docs/results.md). The layers run in float32, as torch runs them (6x faster than
float64 on the exact evaluator's tens of millions of banker rows); the softmax in float64.
The numbers are the same as the torch policy's (a test compares them). This is what lets past snapshots play inside the training environments and
lets ``evaluate.py`` play hundreds of thousands of hands in seconds.
"""

from __future__ import annotations

import contextlib
import mmap
import multiprocessing
import os
import pickle
import re
from typing import Any

import numpy as np

from siete_env.cards import card_of
from siete_env.features import NoSplitView, fold_suits, folded_size
from siete_env.game import HIT_UP, KEEP, STAND
from siete_env.rules import cut


class MLPPolicy:
    """The actor of an SB3 ``MlpPolicy`` in numpy: hidden layers, then action logits;
    illegal actions are masked out before the softmax, as sb3-contrib does."""

    def __init__(self, layers: list[tuple[np.ndarray, np.ndarray]], activation: str = "Tanh"):
        if activation not in _ACT_CODE:
            raise ValueError(f"unsupported activation {activation!r}; supported: {list(_ACT_CODE)}")
        self.layers = [(np.ascontiguousarray(w.T, np.float32), np.asarray(b, np.float32)) for w, b in layers]
        self.activation = activation
        self.input_size = self.layers[0][0].shape[0]
        self.n_actions = self.layers[-1][0].shape[1]

    @classmethod
    def from_model(cls, model: Any) -> MLPPolicy:
        """Copy the actor of a (Maskable)PPO model with a flat ``Box`` observation."""
        return cls.from_policy(model.policy)

    @classmethod
    def from_policy(cls, policy: Any) -> MLPPolicy:
        """Copy the actor of a (Maskable)PPO model's policy (``model.policy``)."""
        import torch.nn as nn

        pi = policy.mlp_extractor.policy_net
        linears = [m for m in pi if isinstance(m, nn.Linear)] + [policy.action_net]
        acts = {type(m).__name__ for m in pi if not isinstance(m, nn.Linear)}
        if len(acts) > 1:
            raise ValueError(f"mixed activations {acts} are not supported")
        activation = acts.pop() if acts else "Tanh"
        layers = [(m.weight.detach().cpu().numpy(), m.bias.detach().cpu().numpy()) for m in linears]
        return cls(layers, activation)

    def logits(self, x: np.ndarray) -> np.ndarray:
        """The action logits (float64), computed in float32 as torch does (the hidden
        layers' bias and activation in one compiled pass: ``_banker_kernels``)."""
        x = np.asarray(x, np.float32)
        h = np.ascontiguousarray(x.reshape(-1, x.shape[-1]))  # one row or many: the same arithmetic
        last = len(self.layers) - 1
        hidden = _banker_kernels()[1]
        for i, (w, b) in enumerate(self.layers):
            h = h @ w
            if i == last:
                h += b
            else:
                hidden(h, b, _ACT_CODE[self.activation])
        return h.astype(np.float64).reshape(*x.shape[:-1], h.shape[-1])

    def probs(self, x: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Action probabilities, 0 on illegal actions; ``x`` is ``(D,)`` or ``(N, D)``."""
        z = self.logits(x)
        legal = np.asarray(masks) > 0
        z = np.where(legal, z, -np.inf)
        z -= z.max(axis=-1, keepdims=True)
        p = np.exp(z)
        return p / p.sum(axis=-1, keepdims=True)


def _same_layout(a, b) -> bool:
    """Whether two observation layouts put every feature at the same index."""
    return (a.n, a.H, a.W, a.shoe, a.size) == (b.n, b.H, b.W, b.shoe, b.size)


# --------------------------------------------------------------------------- the exact banker table
_CHUNK = 2048  # (V, node) pairs per pass: a pass's (pairs x hidden) float32 blocks stay in cache
_NODE_BLOCK = 64  # nodes whose columns of the table are gathered before they are written
TABLE_WORKERS = 1
"""Processes that compute a network's exact banker table (``_mlp_banker_table``; the node
range split between them): ``train.py`` uses 2 for its per-generation measure and its final
mixture, when its two learner processes sit idle (``table_workers``)."""


@contextlib.contextmanager
def table_workers(n: int):
    """``TABLE_WORKERS`` set to ``n`` inside the ``with`` block."""
    global TABLE_WORKERS
    old, TABLE_WORKERS = TABLE_WORKERS, max(1, int(n))
    try:
        yield
    finally:
        TABLE_WORKERS = old


IDENTITY, TANH, RELU = 0, 1, 2  # activation codes of the kernels below
_ACT_CODE = {"Tanh": TANH, "ReLU": RELU}
# tanh(x) in the compiled layers (max error 3e-7): a rational function (odd / even in x),
# clamped (beyond the clamp the float32 tanh is +-1). It vectorises; numpy's float32 tanh
# (and libm's, in numba) measured 6x slower on an AVX2 machine.
_TANH_CLAMP = 7.90531110763549805
_TANH_P = (4.89352455891786e-03, 6.37261928875436e-04, 1.48572235717979e-05, 5.12229709037114e-08,
           -8.60467152213735e-11, 2.00018790482477e-13, -2.76076847742355e-16)  # x, x^3, ..., x^13  # fmt: skip
_TANH_Q = (4.89352518554385e-03, 2.26843463243900e-03, 1.18534705686654e-04, 1.19825839466702e-06)  # 1, x^2, .., x^6
_KERNELS: dict[str, tuple] = {}


def _numpy_act(h: np.ndarray, act: int) -> None:
    if act == TANH:
        np.tanh(h, out=h)
    elif act == RELU:
        np.maximum(h, 0.0, out=h)


def _numpy_kernels() -> tuple:
    """The layers of ``_mlp_banker_table`` in numpy (where numba is missing)."""

    def first_layer(A, rows, X, W, act, out):
        np.matmul(X, W, out=out)
        out += A[rows]
        _numpy_act(out, act)

    def hidden(Z, b, act):
        Z += b
        _numpy_act(Z, act)

    def last(Z, b, act, w, out):
        hidden(Z, b, act)
        np.matmul(Z, w, out=out)

    return first_layer, hidden, last


def _numba_kernels() -> tuple:
    """The layers of ``_mlp_banker_table``, compiled (numba; a second to compile)."""
    import numba as nb

    f32 = np.float32
    clamp = f32(_TANH_CLAMP)
    p1, p3, p5, p7, p9, p11, p13 = (f32(c) for c in _TANH_P)
    q0, q2, q4, q6 = (f32(c) for c in _TANH_Q)
    zero = f32(0.0)
    opts = {"fastmath": True, "error_model": "numpy"}  # vectorised loops: no division check

    @nb.njit(inline="always", **opts)
    def activate(v, act):  # pragma: no cover - compiled
        if act == TANH:
            v = min(max(v, -clamp), clamp)
            v2 = v * v
            p = ((((((p13 * v2 + p11) * v2 + p9) * v2 + p7) * v2 + p5) * v2 + p3) * v2 + p1) * v
            return p / (((q6 * v2 + q4) * v2 + q2) * v2 + q0)
        if act == RELU:
            return max(v, zero)
        return v

    @nb.njit(**opts)
    def first_layer(A, rows, X, W, act, out):  # pragma: no cover - compiled
        """``out[i] = act(A[rows[i]] + X[i] @ W)``."""
        n, k = X.shape
        width = A.shape[1]
        for i in range(n):
            o, a = out[i], A[rows[i]]
            for j in range(width):
                o[j] = a[j]
            for t in range(k):
                x, w = X[i, t], W[t]
                for j in range(width):
                    o[j] += x * w[j]
            for j in range(width):
                o[j] = activate(o[j], act)

    @nb.njit(**opts)
    def hidden(Z, b, act):  # pragma: no cover - compiled
        """``Z = act(Z + b)``, in place."""
        for i in range(Z.shape[0]):
            z = Z[i]
            for j in range(Z.shape[1]):
                z[j] = activate(z[j] + b[j], act)

    @nb.njit(**opts)
    def last(Z, b, act, w, out):  # pragma: no cover - compiled
        """``out = act(Z + b) @ w`` (``w``: one column)."""
        for i in range(Z.shape[0]):
            z = Z[i]
            s = zero
            for j in range(Z.shape[1]):
                s += activate(z[j] + b[j], act) * w[j, 0]
            out[i, 0] = s

    return first_layer, hidden, last


def _banker_kernels() -> tuple:
    """Compiled kernels, unless numba is missing or ``SIETE_SOLVE_BACKEND=numpy`` (as for
    the exact evaluator's passes, ``siete_env.solve.banker``)."""
    backend = os.environ.get("SIETE_SOLVE_BACKEND", "numba")
    if backend not in _KERNELS:
        try:
            _KERNELS[backend] = _numba_kernels() if backend == "numba" else _numpy_kernels()
        except ImportError:  # pragma: no cover - numba is a dependency
            _KERNELS[backend] = _numpy_kernels()
    return _KERNELS[backend]


def _mlp_banker_table(policy: MLPPolicy, ev, base: np.ndarray, layout, greedy: bool) -> np.ndarray:
    """``PPOAgent.exact_banker_table`` for an ``MLPPolicy`` of the folded observation.

    A banker row at ``(V, m_i)`` is its V row's base plus what the node adds
    (``siete_env.solve.observations.banker_node``): its own cards, the 4s going back, a
    few scalars. ``fold_suits`` and the first layer are linear, so the first layer's
    pre-activation is ``A[V]`` (the base rows, folded, through the layer) plus the node's
    entries through the layer: no row is built. The other layers run on the possible
    ``(V, m_i)`` only, and the last one only for ``z_hit - z_stand``: the masked softmax's
    ``p_hit / (p_stand + p_hit)`` is ``sigmoid(z_hit - z_stand)`` (greedy: 1 where
    ``z_hit > z_stand``, a tie going to STAND, the lower action id, as ``argmax`` does).
    The layers run in float32, as ``MLPPolicy.logits`` does (tanh: a rational approximation,
    3e-7): the table is the generic path's to ~1e-6.
    """
    layers = policy.layers
    act = _ACT_CODE[policy.activation]
    w_out, b_out = layers[-1]
    w_d = (w_out[:, HIT_UP] - w_out[:, STAND])[:, None]  # the output that matters: (width, 1)
    b_d = b_out[HIT_UP] - b_out[STAND]
    if len(layers) > 1:
        (w1, b1), rest, act1 = layers[0], layers[1:-1], act
    else:  # no hidden layer: the first layer is the output (its bias: b_d, added last)
        (w1, b1), rest, act1 = (w_d, np.zeros(1, np.float32)), [], IDENTITY
    # the first layer of an unfolded row: fold_suits is linear (each entry goes to one folded entry)
    w1_raw = fold_suits(np.eye(layout.size, dtype=np.float32), layout) @ w1
    A = fold_suits(base, layout) @ w1
    A += b1
    nV = A.shape[0]
    workers = max(1, min(TABLE_WORKERS, ev.n_M // (4 * _NODE_BLOCK)))
    if workers == 1 or not hasattr(os, "fork"):
        hit = np.zeros((nV, ev.n_M))
        _table_nodes(hit, 0, ev.n_M, ev, A, w1_raw, layout, rest, act, act1, w_d, b_d, greedy, len(layers) == 1)
        return hit
    # the node range split over forked children (the learners are idle meanwhile), each
    # writing its columns into one shared table: nothing is copied back
    buf = mmap.mmap(-1, nV * ev.n_M * 8)
    hit = np.frombuffer(buf, np.float64).reshape(nV, ev.n_M)
    cuts = [round(ev.n_M * i / workers / _NODE_BLOCK) * _NODE_BLOCK for i in range(workers)] + [ev.n_M]
    ctx = multiprocessing.get_context("fork")
    procs = [
        ctx.Process(
            target=_table_nodes,
            args=(hit, lo, hi, ev, A, w1_raw, layout, rest, act, act1, w_d, b_d, greedy, len(layers) == 1),
        )
        for lo, hi in zip(cuts[1:-1], cuts[2:], strict=True)
    ]
    for proc in procs:
        proc.start()
    try:
        _table_nodes(hit, cuts[0], cuts[1], ev, A, w1_raw, layout, rest, act, act1, w_d, b_d, greedy, len(layers) == 1)
    finally:
        for proc in procs:
            proc.join()
    if any(proc.exitcode != 0 for proc in procs):
        raise RuntimeError(f"a banker-table worker failed (exit codes {[proc.exitcode for proc in procs]})")
    return hit.copy()


def _table_nodes(hit, lo, hi, ev, A, w1_raw, layout, rest, act, act1, w_d, b_d, greedy, single) -> None:
    """The columns ``lo:hi`` of ``_mlp_banker_table``'s table, written into ``hit``."""
    first_layer, hidden, last = _banker_kernels()
    nV, width = A.shape
    vk = np.repeat(ev.vu_k, ev.L)
    vU = np.repeat(ev.vu_U, ev.L, axis=0)
    vn = vU.sum(1)
    block = np.zeros((_NODE_BLOCK, nV))  # a block of nodes' columns, written row by row
    h1 = np.empty((_CHUNK, width), np.float32)
    hs = [np.empty((_CHUNK, w.shape[1]), np.float32) for w, _ in rest]
    d = np.empty((_CHUNK, 1), np.float32)
    for m_i in range(lo, hi):
        if (m_i - lo) % _NODE_BLOCK == 0 and m_i > lo:
            hit[:, m_i - _NODE_BLOCK : m_i] = block.T
            block[:] = 0.0
        node = ev.banker_node(vk, vU, m_i, vn)
        at = np.flatnonzero(node.ok)
        if not len(at):
            continue
        # what the node adds to the first layer: a constant, and per-row terms (X @ W)
        const = np.zeros(width, np.float64)
        cols, per_row = [], []
        entries = [(layout.card_entry(card_of(r, 0), column), n) for r, column, n in node.cards]
        for index, value in entries + list(node.scalars):
            if np.ndim(value) == 0:
                const += float(value) * w1_raw[index].astype(np.float64)
            else:
                cols.append(value)
                per_row.append(w1_raw[index])
        W = np.vstack([const[None, :], *per_row]).astype(np.float32)
        X = np.empty((len(at), len(W)), np.float32)
        X[:, 0] = 1.0
        for j, col in enumerate(cols):
            X[:, j + 1] = col
        for s in range(0, len(at), _CHUNK):
            rows = at[s : s + _CHUNK]
            n = len(rows)
            h = h1[:n]
            first_layer(A, rows, X[s : s + n], W, act1, h)
            if single:
                z = h
            elif not rest:
                z = np.matmul(h, w_d, out=d[:n])
            else:
                for i, (w, b) in enumerate(rest):
                    h = np.matmul(h, w, out=hs[i][:n])
                    if i < len(rest) - 1:
                        hidden(h, b, act)
                z = d[:n]
                last(h, rest[-1][1], act, w_d, z)
            z = z[:, 0].astype(np.float64) + float(b_d)
            block[(m_i - lo) % _NODE_BLOCK, rows] = (z > 0.0) if greedy else 1.0 / (1.0 + np.exp(-z))
    if hi > lo:
        done = lo + (hi - lo - 1) // _NODE_BLOCK * _NODE_BLOCK
        hit[:, done:hi] = block[: hi - done].T


_CACHE_SIZE = 1 << 20
_LOADED: dict[tuple[str, float], MLPPolicy] = {}


def greedy_probs(probs: np.ndarray) -> np.ndarray:
    """``(N, A)``: each row's most probable action with probability 1 (a greedy policy's
    action probabilities)."""
    out = np.zeros_like(probs)
    out[np.arange(len(probs)), probs.argmax(axis=1)] = 1.0
    return out


MAX_DATA_BYTES = 10 * 1024 * 1024
"""The largest ``data`` entry (JSON, uncompressed) a model zip may hold: SB3 writes a few KB."""
MAX_PTH_BYTES = 1024 * 1024 * 1024
"""The largest ``.pth`` entry (uncompressed) a model zip may hold."""


def _read_entry(z: Any, name: str, limit: int) -> bytes:
    """Entry ``name`` of the open zip ``z``, refused past ``limit`` bytes uncompressed (a
    zip bomb): the declared size is checked, then no more than ``limit`` bytes are inflated."""
    info = z.getinfo(name)
    if info.file_size > limit:
        raise ValueError(f"its {name} entry is {info.file_size:,} bytes uncompressed (at most {limit:,}): refused")
    with z.open(info) as f:
        out = f.read(limit + 1)
    if len(out) > limit:
        raise ValueError(f"its {name} entry is over {limit:,} bytes uncompressed: refused")
    return out


def read_model_tensors(path: str | os.PathLike) -> tuple[dict[str, Any], dict[str, Any]]:
    """Every ``.pth`` entry of an SB3 model ``.zip`` (``{"policy": state, "policy.optimizer":
    state, ...}``, the entry names without ``.pth``) and the readable part of its ``data``
    entry, **without unpickling anything**.

    SB3's own ``load`` unpickles (cloudpickle) the ``data`` entries it cannot store as JSON
    before anything else, and older SB3/torch versions read the ``.pth`` entries with a full
    unpickler: a model zip opened that way is code. Here every ``.pth`` entry is read with
    torch's ``load(weights_only=True)`` (tensors and plain containers only) and ``data`` with
    ``json`` (at most ``MAX_DATA_BYTES``); the cloudpickled values stay base64 strings
    (``":serialized:"``), of which only the plain attributes SB3 writes beside them are read
    (``policy_kwargs``' ``activation_fn`` as text, ``num_timesteps``, ...). A ``ValueError``
    says what is wrong with the file (it needs ``data`` and ``policy.pth``)."""
    import io
    import json
    import zipfile

    import torch

    entry = "data"
    try:
        with zipfile.ZipFile(path) as z:
            names = z.namelist()
            missing = [f for f in ("data", "policy.pth") if f not in names]
            if missing:
                raise ValueError(f"no {' or '.join(missing)} in the archive")
            data = json.loads(_read_entry(z, "data", MAX_DATA_BYTES).decode("utf-8"))
            tensors = {}
            for entry in (n for n in names if n.endswith(".pth")):
                raw = _read_entry(z, entry, MAX_PTH_BYTES)
                tensors[entry.removesuffix(".pth")] = torch.load(io.BytesIO(raw), map_location="cpu", weights_only=True)
    except ValueError as e:
        if isinstance(e, json.JSONDecodeError | UnicodeDecodeError):
            raise ValueError(cut(str(e).strip().splitlines()[0])) from None
        raise
    except (OSError, zipfile.BadZipFile, RuntimeError) as e:
        raise ValueError(cut(str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__)) from None
    except Exception as e:  # noqa: BLE001  (torch's weights-only unpickler refuses with its own errors)
        if isinstance(e, MemoryError):
            raise
        if isinstance(e, pickle.UnpicklingError):
            raise ValueError(
                f"its {entry} holds more than tensors (pickled objects, which could run code): refused, "
                "only weights are read from a model file"
            ) from None
        raise ValueError(cut(f"{type(e).__name__}: {str(e).strip()[:200]}")) from None
    if not isinstance(data, dict) or not all(isinstance(t, dict) for t in tensors.values()):
        raise ValueError("data or a .pth entry is not a mapping")
    return tensors, data


def read_model_zip(path: str | os.PathLike) -> tuple[dict[str, Any], dict[str, Any]]:
    """The policy's state dict (``policy.pth``) and the readable part of the ``data`` entry
    of an SB3 model ``.zip``, without unpickling anything (``read_model_tensors``)."""
    tensors, data = read_model_tensors(path)
    return tensors["policy"], data


def _activation(data: dict[str, Any]) -> str:
    """The policy's activation, from the readable part of ``policy_kwargs`` (SB3 writes
    ``str(activation_fn)`` beside the pickle); SB3's default (``Tanh``) when not given."""
    kw = data.get("policy_kwargs")
    act = kw.get("activation_fn") if isinstance(kw, dict) else None
    if act is None:
        return "Tanh"
    m = re.fullmatch(r"<class '[\w.]*\.(\w+)'>", str(act))
    if m is None:
        raise ValueError(f"unreadable activation {cut(str(act))!r}")
    return m.group(1)


def policy_from_state(state: dict[str, Any], activation: str = "Tanh") -> MLPPolicy:
    """An ``MLPPolicy`` from a (Maskable)PPO ``MlpPolicy``'s state dict: the actor's linear
    layers (``mlp_extractor.policy_net.<i>``, in order) and the action head."""
    prefix = "mlp_extractor.policy_net."
    idx = sorted(int(k[len(prefix) :].split(".")[0]) for k in state if k.startswith(prefix) and k.endswith(".weight"))
    keys = [f"{prefix}{i}" for i in idx] + ["action_net"]
    try:
        layers = [
            (state[f"{k}.weight"].detach().cpu().numpy(), state[f"{k}.bias"].detach().cpu().numpy()) for k in keys
        ]
    except (KeyError, AttributeError) as e:
        raise ValueError(f"no {e} tensor: not an MLP policy") from None
    for (w, b), (w2, _) in zip(layers, layers[1:], strict=False):
        if w.ndim != 2 or b.shape != (w.shape[0],) or w2.shape[1] != w.shape[0]:
            raise ValueError("the actor's layer shapes do not chain")
    return MLPPolicy(layers, activation)


def load_policy(path: str) -> MLPPolicy:
    """The actor of a MaskablePPO ``.zip`` as an ``MLPPolicy`` (cached per file version),
    read without unpickling (``read_model_zip``): a ``ppo:`` file is data, not code."""
    what = f"{path} is not a model saved by train.py (a MaskablePPO .zip with an MLP policy)"
    try:
        key = (os.path.abspath(path), os.path.getmtime(path))
    except OSError as e:
        raise ValueError(f"cannot read model {path}: {e.strerror}") from None
    pol = _LOADED.get(key)
    if pol is None:
        try:
            state, data = read_model_zip(path)
            pol = policy_from_state(state, _activation(data))
        except ValueError as e:
            raise ValueError(f"{what}: {cut(str(e))}") from None
        _LOADED[key] = pol
    return pol


class PPOAgent:
    """Acts with a policy trained by ``train.py`` (a MaskablePPO ``.zip``, or an
    ``MLPPolicy``).

    ``greedy``: the most probable legal action (SB3's ``deterministic=True``); otherwise
    actions are sampled from the masked probabilities with the agent's own seeded
    generator (``rng``). A policy trained on suit-folded observations
    (``siete_env.features``) is recognised by its input size and is given folded
    observations. A policy trained without splits (``max_splits: 0``) also plays at a table
    with splits (the ``spanish`` preset): it is given each seat's first hand, as it was
    trained (``Layout.narrowed``; a banker facing a punter who split sees that punter's
    first hand only, and the cards of the others only through the cards left), and where a
    split is offered it keeps the card (``siete_env.features.NoSplitView``).
    """

    def __init__(self, env, path: str | MLPPolicy, greedy: bool = True, seed: int | None = None):
        self.policy = path if isinstance(path, MLPPolicy) else load_policy(path)
        self.path = path if isinstance(path, str) else "<MLPPolicy>"
        self.greedy = greedy
        self.deterministic = greedy
        self.rng = np.random.default_rng(seed)
        raw = env.unwrapped
        layout = self.layout = raw.layout
        size, n_act = self.policy.input_size, len(raw.action_names)
        self.view: NoSplitView | None = None  # a table with splits, a model trained without them
        if layout.H > 1:
            view = NoSplitView(layout)
            if size in (folded_size(view.layout), view.layout.size):
                self.view, self.layout = view, view.layout  # it sees each seat's first hand
                layout = view.layout
        if size == folded_size(layout):
            self.fold = True
        elif size == layout.size:
            self.fold = False
        else:
            raise ValueError(
                f"model {self.path} expects observations of size {size}, but this table's are {layout.size} "
                f"({folded_size(layout)} folded): it was trained for other rules or another table size"
            )
        self._cache: dict[bytes, Any] = {}
        if self.policy.n_actions != n_act:
            raise ValueError(
                f"model {self.path} has {self.policy.n_actions} actions, this table has {n_act}: "
                "it was trained for other rules or another table size"
            )

    def _input(self, observations: np.ndarray) -> np.ndarray:
        x = observations if self.view is None else self.view(observations)
        return fold_suits(x, self.layout) if self.fold else x

    def action_probs(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        x = self._input(observations)
        out = np.empty(masks.shape, np.float64)
        for start in range(0, len(x), 8192):
            out[start : start + 8192] = self.policy.probs(x[start : start + 8192], masks[start : start + 8192])
        out = greedy_probs(out) if self.greedy else out
        return out if self.view is None else self.view.keep_figures(out, masks)

    def exact_banker_table(self, ev) -> np.ndarray | None:
        """The banker's table of the exact evaluator (``ExactEvaluator.banker_table``:
        the probability of hitting at every (V row, banker node)), computed from the
        network's layers without building the tens of millions of banker observations:
        the same table as the generic path's (to float32 rounding). ``None`` (the generic
        path) for anything but a plain ``MLPPolicy`` of the suit-folded observation of the
        evaluator's table (a folded policy is suit-invariant by construction: no check is
        needed, whatever ``ev.check_suits``)."""
        if (
            type(self.policy) is not MLPPolicy
            or self.policy.activation not in _ACT_CODE
            or not self.fold
            or getattr(self, "view", None) is not None  # a model without splits at a table with them
            or type(self).action_probs is not PPOAgent.action_probs
            or not _same_layout(self.layout, ev.layout)
        ):
            return None
        base, mask = ev.banker_base()
        legal = set(np.flatnonzero(np.asarray(mask)[0]).tolist())
        # hit = p_hit / (p_stand + p_hit) = sigmoid(z_hit - z_stand) whatever else is legal;
        # greedy, STAND and HIT_UP must be the only legal actions (else the argmax may be neither)
        if not {STAND, HIT_UP} <= legal or (self.greedy and legal != {STAND, HIT_UP}):
            return None
        with np.errstate(over="ignore"):  # exp(-z) for a very sure stand: inf, hit 0
            return _mlp_banker_table(self.policy, ev, base, self.layout, self.greedy)

    def __call__(self, obs: dict) -> int:
        o, mask = obs["observation"], obs["action_mask"]
        if self.view is not None and self.view.offered(mask):
            return KEEP  # trained without splits: never act on an output it was not trained for
        x = self._input(o)
        # Situations repeat (a first card, a common total): decisions are cached per
        # (observation, mask), which roughly halves the cost of a long evaluation.
        key = x.tobytes() + np.asarray(mask).tobytes()
        hit = self._cache.get(key)
        if hit is None:
            if len(self._cache) >= _CACHE_SIZE:
                self._cache.clear()
            if self.greedy:
                z = self.policy.logits(x)
                hit = int(np.argmax(np.where(np.asarray(mask) > 0, z, -np.inf)))
            else:
                hit = np.cumsum(self.policy.probs(x, mask))
            self._cache[key] = hit
        if self.greedy:
            return hit
        return int(min(np.searchsorted(hit, self.rng.random() * hit[-1], side="right"), len(hit) - 1))
