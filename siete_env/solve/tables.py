"""Table policies over the exact evaluator's states, and the policy-table file format.

* ``TabularPunterPolicy`` / ``TabularBankerPolicy``: a punter (banker) that plays a
  table: actions (a best response) or action probabilities (an equilibrium, a mixture).
  Played through the environment they read their state from the observation
  (``siete_env.solve.observations``); given to the evaluator they hand it their tables
  (``exact_punter_table`` / ``exact_banker_table``).
* ``PolicyTables``: both sides' tables for one heads-up rule set, with their exact
  NashConv; one subclass per origin: ``CFRSolution`` (CFR+'s average strategy, with its
  iterations and convergence history), ``MixtureTables`` (a mixture of policies, with its
  members' weights), ``BestResponseTables`` (the exact best responses to a pair). Saved as
  one ``.npz`` (``save``; ``load`` reads any of them back, the right class by its
  ``source``); agent specs ``cfr:PATH`` / ``table:PATH`` play them (``TablePairAgent``).
"""

from __future__ import annotations

import ast
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from ..encoding import SeatFeature
from ..features import NoSplitView
from ..game import HIT_UP, SPLIT, STAND
from ..rules import cut, resolve_rules
from .evaluator import ExactEvaluator, evaluator
from .observations import ME, banker_state_of, punter_states
from .results import NashConv


# --------------------------------------------------------------------------- table policies
class _Tabular:
    """A table policy: ``__call__`` plays the most probable action when the table is
    deterministic, else samples with its own generator (``seed``)."""

    deterministic: bool

    def __init__(self, ev: ExactEvaluator, seed: int | None = None):
        self.ev = ev
        self.rng = np.random.default_rng(seed)

    def action_probs(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def __call__(self, obs: dict) -> int:
        p = self.action_probs(np.asarray(obs["observation"])[None, :], np.asarray(obs["action_mask"])[None, :])[0]
        if self.deterministic:
            return int(p.argmax())
        return int(self.rng.choice(len(p), p=p / p.sum()))

    @staticmethod
    def _fallback(mask: np.ndarray) -> np.ndarray:
        out = np.zeros(len(mask))
        out[int(np.flatnonzero(mask)[0])] = 1.0
        return out


def _as_probs(table: np.ndarray, A: int, shape: tuple[int, ...]) -> np.ndarray:
    """Action probabilities from a table of actions (ints, ``shape``) or of probabilities
    (``shape + (A,)``)."""
    t = np.asarray(table)
    if t.shape == shape and np.issubdtype(t.dtype, np.integer):
        return np.eye(A)[t]
    if t.shape == shape + (A,):
        return t.astype(np.float64, copy=False)  # a shared read-only table stays shared
    raise ValueError(
        f"a policy table must have shape {shape} (actions) or {shape + (A,)} (probabilities), got {t.shape}"
    )


class TabularPunterPolicy(_Tabular):
    """A punter that plays a table over the evaluator's punter states: ``bet`` (per BET
    state) and ``draw`` (per card state, stake level and raise flag), each either actions
    (ints; a best response) or action probabilities (an equilibrium). As a banker, or in
    a state outside the table, it plays the first legal action."""

    def __init__(self, ev: ExactEvaluator, bet: np.ndarray, draw: np.ndarray, seed: int | None = None):
        super().__init__(ev, seed)
        b0, b1 = ev.layers[0]
        self.bet_p = _as_probs(bet, ev.A, (b1 - b0,))
        self.draw_p = _as_probs(draw, ev.A, (ev.n_states, ev.L, 2))
        self.deterministic = bool(
            ((self.bet_p == 0) | (self.bet_p == 1)).all() and ((self.draw_p == 0) | (self.draw_p == 1)).all()
        )

    def exact_punter_table(self, ev: ExactEvaluator) -> tuple[np.ndarray, np.ndarray] | None:
        return (self.bet_p, self.draw_p) if ev is self.ev else None

    def action_probs(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        masks = np.asarray(masks)
        kind, index, level, raise_open = punter_states(self.ev, observations, masks)
        p = np.zeros(masks.shape)
        bet, draw = kind == 0, kind == 1
        p[bet] = self.bet_p[index[bet]]
        p[draw] = self.draw_p[index[draw], level[draw], raise_open[draw]]
        p *= masks != 0  # (a table of these rules never weighs an illegal action)
        total = p.sum(1)
        out = np.divide(p, total[:, None], out=np.zeros_like(p), where=total[:, None] > 0)
        for i in np.flatnonzero(total <= 0):  # outside the table: the first legal action
            out[i] = self._fallback(masks[i])
        return out


class TabularBankerPolicy(_Tabular):
    """A banker that plays a table over (V, M): ``hit (n_V, n_M)``, bools (a best response)
    or probabilities of hitting (an equilibrium). As a punter, or outside the table, it
    plays the first legal action."""

    def __init__(self, ev: ExactEvaluator, hit: np.ndarray, seed: int | None = None):
        super().__init__(ev, seed)
        hit = np.asarray(hit)
        if hit.shape != (ev.n_vu * ev.L, ev.n_M):
            raise ValueError(f"a banker table must have shape {(ev.n_vu * ev.L, ev.n_M)}, got {hit.shape}")
        self.hit = hit
        self.deterministic = bool(((hit == 0) | (hit == 1)).all())

    def exact_banker_table(self, ev: ExactEvaluator) -> np.ndarray | None:
        return self.hit if ev is self.ev else None

    def action_probs(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        out = np.zeros(masks.shape)
        for i, key in enumerate(banker_state_of(self.ev, observations)):
            m = masks[i]
            if key is not None and m[HIT_UP] and m[STAND]:
                q = float(self.hit[key])
                out[i, HIT_UP], out[i, STAND] = q, 1.0 - q
            else:
                out[i] = self._fallback(m)
        return out


# --------------------------------------------------------------------------- both sides
@dataclass
class PolicyTables:
    """Table policies of both sides of one heads-up rule set (``rules``: its options) and
    their exact exploitability in the full game (``result``). ``source`` says where the
    tables come from (one subclass each)."""

    source: ClassVar[str] = "tables"
    rules: dict[str, Any]
    bet: np.ndarray  # (n_bet, A) action probabilities at the BET states
    draw: np.ndarray  # (n_states, L, 2, A) at the draw states
    hit: np.ndarray  # (n_V, n_M) the banker's probability of hitting
    result: NashConv
    ev: ExactEvaluator | None = field(default=None, repr=False, compare=False)

    @property
    def nash_conv(self) -> float:
        return self.result.nash_conv

    @property
    def value(self) -> float:
        """The punter's expected chips per hand when both sides play the tables."""
        return self.result.ev

    @property
    def evaluator(self) -> ExactEvaluator:
        if self.ev is None:
            self.ev = evaluator(self.rules)
        return self.ev

    @property
    def punter(self) -> TabularPunterPolicy:
        return TabularPunterPolicy(self.evaluator, self.bet, self.draw)

    @property
    def banker(self) -> TabularBankerPolicy:
        return TabularBankerPolicy(self.evaluator, self.hit)

    def agent(self, env: Any = None, seed: int | None = None) -> TablePairAgent:
        """An agent (``agent(obs_dict)`` samples; ``action_probs``) that plays the tables in
        either seat of a heads-up table of these rules (``env``: checked if given)."""
        return TablePairAgent(self, env, seed)

    def _extra(self) -> dict[str, Any]:
        """What a subclass saves besides the tables."""
        return {}

    def save(self, path: str | Path) -> None:
        data: dict[str, Any] = {"iterations": 0, "history": np.zeros((0, 3)), "weights": {}, **self._extra()}
        np.savez_compressed(
            path,
            rules=np.array(repr(self.rules)),
            iterations=data["iterations"],
            bet=self.bet,
            draw=self.draw.astype(np.float32),
            hit=self.hit.astype(np.float32),
            result=np.array(tuple(self.result), np.float64),
            history=np.array(data["history"], np.float64).reshape(-1, 3),
            source=np.array(self.source),
            weights=np.array(repr(data["weights"])),
        )


@dataclass
class CFRSolution(PolicyTables):
    """The average strategy of a CFR+ run (``siete_env.solve.cfr``)."""

    source: ClassVar[str] = "cfr+"
    iterations: int = 0
    history: list[tuple[int, float, float]] = field(default_factory=list)  # (iteration, seconds, NashConv)

    def _extra(self) -> dict[str, Any]:
        return {"iterations": self.iterations, "history": self.history}


@dataclass
class MixtureTables(PolicyTables):
    """The behaviour strategies of a mixture of policies (``siete_env.solve.mixture``)."""

    source: ClassVar[str] = "mixture"
    weights: dict[str, dict[str, float]] = field(default_factory=dict)  # per side: member -> weight

    def _extra(self) -> dict[str, Any]:
        return {"weights": self.weights}


@dataclass
class BestResponseTables(PolicyTables):
    """The exact best responses to a pair: as punter the best response to its banker, as
    banker the best response to its punter (``result``: the pair's NashConv)."""

    source: ClassVar[str] = "best responses"


_KINDS: dict[str, type[PolicyTables]] = {c.source: c for c in (CFRSolution, MixtureTables, BestResponseTables)}
_KEYS = ("rules", "iterations", "bet", "draw", "hit", "result", "history")


class TablePairAgent:
    """Plays ``PolicyTables``: its banker table on the banker's turn (or ``banker``, any
    policy of the same observations, given instead), its punter table otherwise; samples
    with its own generator."""

    deterministic = False

    def __init__(self, tables: PolicyTables, env: Any = None, seed: int | None = None, banker: Any = None):
        ev = tables.evaluator
        self.view: NoSplitView | None = None  # the same rules with splits: played as without them
        if env is not None:
            raw = env.unwrapped
            same = raw.rules == ev.rules
            with_splits = raw.rules.model_copy(update={"max_splits": 0}) == ev.rules and raw.layout.H > 1
            if raw.num_players != 2 or not (same or with_splits):
                mine, theirs = ev.rules.model_dump(mode="json"), raw.rules.model_dump(mode="json")
                diff = ", ".join(f"{k}: {mine[k]!r} here, {theirs[k]!r} there" for k in mine if mine[k] != theirs[k])
                raise ValueError(
                    f"this equilibrium was solved for heads-up {mine['preset']} rules; the table has "
                    f"{raw.num_players} players" + (f" and other rules ({diff})" if diff else "")
                )
            if with_splits:
                self.view = NoSplitView(raw.layout)
        self.tables = tables
        self.rng = np.random.default_rng(seed)
        self.punter = TabularPunterPolicy(ev, tables.bet, tables.draw)
        self.banker = banker if banker is not None else TabularBankerPolicy(ev, tables.hit)
        self._me_banker = ev.layout.seat_feature(ME, SeatFeature.IS_BANKER)

    def exact_punter_table(self, ev: ExactEvaluator) -> tuple[np.ndarray, np.ndarray] | None:
        return self.punter.exact_punter_table(ev)

    def exact_banker_table(self, ev: ExactEvaluator) -> np.ndarray | None:
        return self.banker.exact_banker_table(ev)

    def action_probs(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        if self.view is not None:  # a table with splits: each seat's first hand; every figure kept
            offered = np.asarray(masks)[:, SPLIT] > 0
            out = np.zeros(masks.shape)
            if (~offered).any():
                out[~offered] = self._probs(self.view(observations[~offered]), masks[~offered])
            return self.view.keep_figures(out, masks)
        return self._probs(observations, masks)

    def _probs(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        out = np.zeros(masks.shape)
        bank = observations[:, self._me_banker] == 1.0
        if bank.any():
            out[bank] = self.banker.action_probs(observations[bank], masks[bank])
        if (~bank).any():
            out[~bank] = self.punter.action_probs(observations[~bank], masks[~bank])
        return out

    def __call__(self, obs: dict) -> int:
        p = self.action_probs(np.asarray(obs["observation"])[None, :], np.asarray(obs["action_mask"])[None, :])[0]
        return int(self.rng.choice(len(p), p=p / p.sum()))


def _check_tables(bet: np.ndarray, draw: np.ndarray, hit: np.ndarray) -> None:
    """Refuse tables no solver writes: of the wrong dimensions, not finite, probabilities
    outside 0..1, action probabilities adding up to neither 1 nor 0 (a state a mixture
    never reaches) in some state, or to 0 in all of them (a table of zeros or NaN would
    otherwise play its fallback and report a NaN value)."""
    if bet.ndim != 2 or draw.ndim != 4 or hit.ndim != 2 or draw.shape[-1] != bet.shape[-1]:
        raise ValueError(
            f"tables of shapes bet {bet.shape}, draw {draw.shape}, hit {hit.shape}: expected bet (states, actions), "
            "draw (states, stakes, 2, actions), hit (banker rows, nodes)"
        )
    for name, t in (("bet", bet), ("draw", draw), ("hit", hit)):
        if not np.isfinite(t).all():
            raise ValueError(f"its {name} table holds {int((~np.isfinite(t)).sum()):,} values that are NaN or infinite")
        if t.size and (t.min() < -1e-6 or t.max() > 1 + 1e-6):
            raise ValueError(f"its {name} table holds probabilities outside 0..1 ({t.min():g}..{t.max():g})")
    for name, t in (("bet", bet), ("draw", draw)):
        sums = t.sum(axis=-1)
        one = np.abs(sums - 1.0) <= 1e-3
        bad = ~one & (np.abs(sums) > 1e-9)  # a state a mixture never reaches: all zeros
        if bad.any():
            raise ValueError(
                f"its {name} table's action probabilities add up to neither 1 nor 0 (a state never reached) in "
                f"{int(bad.sum()):,} states (e.g. {sums[bad].flat[0]:g})"
            )
        if t.size and not one.any():
            raise ValueError(f"its {name} table is all zeros: no state has action probabilities")


def load(path: str | Path) -> PolicyTables:
    """Tables saved by ``PolicyTables.save`` (the subclass they were saved from); a
    ``ValueError`` naming the file for anything else."""
    what = f"{path} is not a solution file (an .npz saved by evaluate.py --solve or a training run's final.npz)"
    try:
        z = np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as e:
        raise ValueError(f"{what}: {e}") from None
    if not isinstance(z, np.lib.npyio.NpzFile):
        raise ValueError(f"{what}: it holds a single array")
    with z:
        missing = [k for k in _KEYS if k not in z.files]
        if missing:
            raise ValueError(f"{what}: no {', '.join(missing)} in it")
        try:
            text = str(z["rules"])
            if len(text) > 10_000:
                raise ValueError(f"its rules are {len(text):,} characters long (a rule set is a few hundred)")
            rules = ast.literal_eval(text)
            if not isinstance(rules, dict):
                raise ValueError(f"its rules are a {type(rules).__name__}, not a dict of rule options")
            resolve_rules(rules)  # a clear error for rules that do not exist
            tables = (
                z["bet"].astype(np.float64),
                z["draw"].astype(np.float64),
                z["hit"].astype(np.float64),
                NashConv(*map(float, z["result"])),
            )
            _check_tables(*tables[:3])
            if not all(np.isfinite(tables[3])):
                raise ValueError(f"its exact result is not finite: {tables[3]}")
            source = str(z["source"]) if "source" in z else CFRSolution.source
            kind = _KINDS.get(source)
            if kind is None:
                raise ValueError(f"unknown source {source!r}")
            if kind is CFRSolution:
                history = [tuple(r) for r in z["history"].tolist()]
                return CFRSolution(rules, *tables, iterations=int(z["iterations"]), history=history)
            if kind is MixtureTables:
                weights = ast.literal_eval(str(z["weights"])) if "weights" in z else {}
                return MixtureTables(rules, *tables, weights=weights)
            return kind(rules, *tables)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError, zipfile.BadZipFile) as e:
            raise ValueError(f"{what}: {cut(str(e))}") from None


__all__ = [
    "BestResponseTables",
    "CFRSolution",
    "MixtureTables",
    "PolicyTables",
    "TablePairAgent",
    "TabularBankerPolicy",
    "TabularPunterPolicy",
    "load",
]
