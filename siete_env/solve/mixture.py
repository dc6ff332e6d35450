"""Mixtures of heads-up policies, evaluated exactly (``siete_env.solve.mixture``).

A training run leaves populations of policies: its punter snapshots and its banker
snapshots. Mixing them (pick a member at random for a whole hand, then play it) can be
far less exploitable than any one of them: where an equilibrium mixes between two moves,
one network plays one and another the other. This module measures such mixtures exactly
on the exact evaluator's states (heads-up ``spanish`` without splits) and chooses
their weights with one of two meta-solvers:

* :meth:`Population.restricted_nash`: a Nash equilibrium of the *restricted game*, the
  matrix game whose entries are the exact expected values of every punter member against
  every banker member (the meta-solver of PSRO, Lanctot et al. 2017);
* :meth:`Population.least_exploitable`: for each side, the weights whose worst case in the
  *full* game (against an exact best response) is best; found by a cutting-plane method
  whose planes are exact best responses (the double oracle with one side restricted to the
  members), keeping the best weights measured.
  ``train.py`` makes it the final policy pair with ``evaluation.select: mixture``.

A mixture is played as the behaviour strategy it is realization-equivalent to (Kuhn's
theorem): at every information state each member's action probabilities weighted by its
weight times its own reach of that state. :meth:`Population.mixture` builds those tables as
:class:`siete_env.solve.tables.MixtureTables` (``save`` it; agent spec ``table:PATH.npz``).

Why the values are linear in the weights: the punter's stood reach and bust losses
(``siete_env.solve.punter.forward``) and the banker's stood values
(``siete_env.solve.banker.policy_values``) of a mixture are the weighted sums of its members', so
one best-response pass against the mixture values every member at once.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from . import banker as banker_side
from . import punter as punter_side
from .evaluator import ExactEvaluator, as_evaluator
from .exact import evaluate_pair, nash_conv, stood_value
from .policy import Policy
from .results import NashConv, PairEvaluation
from .tables import MixtureTables, TabularBankerPolicy, TabularPunterPolicy

__all__ = ["Population", "matrix_nash"]


def _combine(z: np.ndarray, arrays: list[Any]) -> Any:
    """``sum_k z_k arrays_k`` of arrays, or of ``(array, number)`` pairs."""
    keep = [(zk, a) for zk, a in zip(z, arrays, strict=True) if zk > 0]
    if isinstance(keep[0][1], tuple):
        return sum(zk * a[0] for zk, a in keep), float(sum(zk * a[1] for zk, a in keep))
    return sum(zk * a for zk, a in keep)


def matrix_nash(M: np.ndarray, iterations: int = 20_000, tol: float = 1e-7) -> tuple[np.ndarray, np.ndarray, float]:
    """A Nash equilibrium of the zero-sum matrix game ``M`` (the row player maximises
    ``x @ M @ y``) by regret matching+ with alternating updates and linear averaging.
    Returns ``(x, y, gap)``; ``gap = max(M @ y) - min(x @ M)`` (0 at an equilibrium)."""
    M = np.asarray(M, np.float64)
    n, m = M.shape
    x, y = np.full(n, 1.0 / n), np.full(m, 1.0 / m)
    Rx, Ry = np.zeros(n), np.zeros(m)
    Sx, Sy = np.zeros(n), np.zeros(m)
    gap = np.inf
    for t in range(1, iterations + 1):
        u = M @ y
        Rx = np.maximum(Rx + u - x @ u, 0.0)
        x = Rx / Rx.sum() if Rx.sum() > 0 else np.full(n, 1.0 / n)
        Sx += t * x
        v = -(x @ M)
        Ry = np.maximum(Ry + v - y @ v, 0.0)
        y = Ry / Ry.sum() if Ry.sum() > 0 else np.full(m, 1.0 / m)
        Sy += t * y
        if t % 100 == 0 or t == iterations:
            ax, ay = Sx / Sx.sum(), Sy / Sy.sum()
            gap = float((M @ ay).max() - (ax @ M).min())
            if gap <= tol:
                break
    return Sx / Sx.sum(), Sy / Sy.sum(), gap


class Population:
    """Punter and banker policies of one heads-up rule set, each reduced to what values
    mixtures of them exactly: the punter's stood reach and bust losses, the banker's
    stood values. The policies are kept to build the mixture's tables at the end."""

    def __init__(self, rules: Any = None):
        self.ev: ExactEvaluator = as_evaluator(rules if rules is not None else {"preset": "spanish", "max_splits": 0})
        self.punters: list[Policy] = []
        self.bankers: list[Policy] = []
        self.names: dict[str, list[str]] = {"punter": [], "banker": []}
        self._W: list[np.ndarray] = []  # stood reach (n_vu, L, 10)
        self._bust: list[float] = []
        self._G: list[np.ndarray] = []  # stood values (n_vu, L, 10), punter's chips
        self._M: np.ndarray = np.zeros((0, 0))
        # kept from an exact evaluation of each member's pair (add_evaluated), so that the
        # meta-solver and the mixture's tables do not query the policies again: each member's
        # value against the best response to it alone, and its tables (the banker's in float32,
        # in a temporary file mapped into memory: 220 MB each with stakes and the swap, which
        # a run's dozens of members would otherwise hold in RAM; removed with the population)
        self._alone: dict[str, list[float | None]] = {"punter": [], "banker": []}
        self._tables: dict[str, list[Any]] = {"punter": [], "banker": []}
        self._files: tempfile.TemporaryDirectory | None = None
        self.gaps: dict[str, float] = {}  # least_exploitable's bounds (see there)
        self.duals: dict[str, Any] = {}  # and its planes' equilibria (see oracles)

    # ------------------------------------------------------------------ members
    def add_punter(self, policy: Policy, name: str = "") -> None:
        bet, draw = self.ev.punter_table(policy)
        self._add_punter(policy, name, *self.ev.punter_forward(bet, draw))

    def _add_punter(self, policy: Policy, name: str, W: np.ndarray, bust: float,
                    alone: float | None = None, tables: Any = None) -> None:  # fmt: skip
        self.duals = {}  # the planes' equilibria were for the members before
        self._alone["punter"].append(alone)
        self._tables["punter"].append(tables)
        self.punters.append(policy)
        self.names["punter"].append(name or f"punter {len(self.punters)}")
        self._W.append(W)
        self._bust.append(float(bust))
        col = np.array([self._value(W, bust, G) for G in self._G])
        self._M = np.vstack([self._M.reshape(len(self.punters) - 1, len(self.bankers)), col[None, :]])

    def add_banker(self, policy: Policy, name: str = "") -> None:
        G = banker_side.policy_values(self.ev, self.ev.banker_table(policy))
        self._add_banker(policy, name, G)

    def _add_banker(self, policy: Policy, name: str, G: np.ndarray,
                    alone: float | None = None, hit: np.ndarray | None = None) -> None:  # fmt: skip
        self.duals = {}
        self._alone["banker"].append(alone)
        self._tables["banker"].append(None if hit is None else self._on_disk(hit))
        self.bankers.append(policy)
        self.names["banker"].append(name or f"banker {len(self.bankers)}")
        self._G.append(G)
        row = np.array([self._value(W, b, G) for W, b in zip(self._W, self._bust, strict=True)])
        self._M = np.hstack([self._M.reshape(len(self.punters), len(self.bankers) - 1), row[:, None]])

    def _on_disk(self, hit: np.ndarray) -> np.ndarray:
        """``hit`` in float32, saved to the population's temporary folder and mapped back read-only."""
        if self._files is None:
            self._files = tempfile.TemporaryDirectory(prefix="siete-population-")
        path = Path(self._files.name) / f"banker_{len(self._tables['banker'])}.npy"
        np.save(path, np.asarray(hit, np.float32))
        return np.load(path, mmap_mode="r")

    def add_pair(self, punter: Policy, banker: Policy, names: tuple[str, str] = ("", "")) -> NashConv:
        """Add one punter and one banker (each policy's tables computed once) and return
        the exact NashConv of the pair (as ``siete_env.solve.nash_conv``)."""
        return self.add_evaluated(punter, banker, evaluate_pair(punter, banker, self.ev), names).result

    def add_evaluated(self, punter: Policy, banker: Policy, pe: PairEvaluation,
                      names: tuple[str, str] = ("", "")) -> PairEvaluation:  # fmt: skip
        """Add a pair already evaluated by ``siete_env.solve.evaluate_pair`` (its best
        responses' values and its tables are kept too)."""
        r = pe.result
        tables = (pe.bet, pe.draw) if pe.bet is not None else None
        self._add_punter(punter, names[0], pe.W, pe.bust, -r.banker_br_value, tables)
        self._add_banker(banker, names[1], pe.G, r.punter_br_value, pe.hit)
        return pe

    _value = staticmethod(stood_value)

    @property
    def matrix(self) -> np.ndarray:
        """``(punters, bankers)``: the punter's exact expected chips per hand of every pairing."""
        return self._M.copy()

    # ------------------------------------------------------------------ meta-solvers
    def restricted_nash(self, iterations: int = 20_000) -> tuple[np.ndarray, np.ndarray]:
        """Weights of a Nash equilibrium of the restricted game (see the module docstring)."""
        if not self.punters or not self.bankers:
            raise ValueError("the population needs at least one punter and one banker")
        x, y, _ = matrix_nash(self._M, iterations)
        return x, y

    def punter_worst(self, w: np.ndarray) -> tuple[float, np.ndarray]:
        """The punter mixture ``w``'s value against the banker's exact best response to it,
        and every member's value against that same banker."""
        return self._punter_worst(w)[:2]

    def _punter_worst(self, w: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
        """``punter_worst``, and that banker's stood values (``G``)."""
        W = sum(wi * Wi for wi, Wi in zip(w, self._W, strict=True))
        G_br, _ = banker_side.best_response_values(self.ev, W)
        v = np.array([self._value(Wi, b, G_br) for Wi, b in zip(self._W, self._bust, strict=True)])
        return float(w @ v), v, G_br

    def banker_worst(self, w: np.ndarray) -> tuple[float, np.ndarray]:
        """The punter's value with its exact best response to the banker mixture ``w``, and
        that punter's value against every member."""
        return self._banker_worst(w)[:2]

    def _banker_worst(self, w: np.ndarray) -> tuple[float, np.ndarray, tuple[np.ndarray, float]]:
        """``banker_worst``, and that punter's stood reach and bust losses (``(W, bust)``)."""
        G = sum(wj * Gj for wj, Gj in zip(w, self._G, strict=True))
        _, bact, dact = punter_side.best_response(self.ev, G)
        bet, draw = self.ev.punter_table(TabularPunterPolicy(self.ev, bact, dact))
        W, bust = self.ev.punter_forward(bet, draw)
        u = np.array([self._value(W, bust, Gj) for Gj in self._G])
        return float(w @ u), u, (W, float(bust))

    def least_exploitable(self, iterations: int = 30, tol: float = 1e-5) -> tuple[np.ndarray, np.ndarray]:
        """Weights whose full-game worst cases are the best found, for each side by a
        cutting-plane method (Kelley's): a side's worst case is concave and piecewise
        linear in its weights (the minimum, over the other side's pure strategies, of a
        linear function), and every exact best response to a mixture is a plane above it
        that touches it there. The next weights are the best under all the planes found —
        the Nash equilibrium of the matrix game of the members against those strategies
        (the first: the restricted game's, the other side's members being planes too) —
        until ``iterations`` best responses or the planes' bound is within ``tol`` of the
        best weights measured. The result is never more exploitable than the best member
        of each side alone; ``self.gaps`` says, per side, how far (chips per hand) its
        worst case may still be from the best mixture of the members."""
        if not self.punters or not self.bankers:
            raise ValueError("the population needs at least one punter and one banker")
        M = self._M
        wp, self.gaps["punter"], G_dual = self._cutting_plane(
            self._punter_worst, list(M.T), +1, iterations, tol, self._alone["punter"], list(self._G)
        )
        wb, self.gaps["banker"], Wb_dual = self._cutting_plane(
            self._banker_worst, list(M), -1, iterations, tol, self._alone["banker"],
            list(zip(self._W, self._bust, strict=True)),
        )  # fmt: skip
        self.duals = {"banker": G_dual, "punter": Wb_dual}
        return wp, wb

    def oracles(self) -> tuple[TabularPunterPolicy, TabularBankerPolicy]:
        """The double oracle's next members (after ``least_exploitable``): the punter's exact
        best response to the banker mixture that holds the punter members' best mixture
        down (the last planes' equilibrium, ``self.duals``), and the banker's to the punter
        mixture that holds the banker members down. A member that plays one of them would
        raise its side's bound the most against those planes."""
        if not self.duals:
            raise ValueError("oracles() needs the planes of least_exploitable(): call it first")
        _, bact, dact = punter_side.best_response(self.ev, self.duals["banker"])
        W, _ = self.duals["punter"]
        _, br_hit = banker_side.best_response_values(self.ev, W)
        return TabularPunterPolicy(self.ev, bact, dact), TabularBankerPolicy(self.ev, br_hit)

    @staticmethod
    def _cutting_plane(worst, planes: list[np.ndarray], sign: int, iterations: int, tol: float,
                       alone: list[float | None], arrays: list[Any]) -> tuple[np.ndarray, float, Any]:  # fmt: skip
        """Maximise ``sign * worst(w)[0]`` over the simplex; ``worst(w)`` returns the value
        against the best response to ``w``, every member's value against that response
        (a plane: ``sign * worst(x)[0] <= x @ (sign * v)`` for every ``x``) and what the
        other side's arrays of that response are (``arrays``: the first planes', the other
        side's members). Returns the best weights measured, the planes' bound on what any
        weights could gain over them, and the arrays of the planes' equilibrium mixture
        (the other side's strategy that holds every mixture of these members down)."""
        n = len(alone)
        best_val, best_w = -np.inf, np.full(n, 1.0 / n)
        for i, known in enumerate(alone):  # every member alone: the result is never worse than the best of them
            e = np.eye(n)[i]
            val = known if known is not None else worst(e)[0]  # known from the member's own pair
            if sign * val > best_val:
                best_val, best_w = sign * val, e
        planes = [sign * np.asarray(p, np.float64) for p in planes]
        arrays = list(arrays)
        for k in range(iterations + 1):
            U = np.stack(planes, axis=1)  # (members, planes)
            w, z, _ = matrix_nash(U)
            gap = max(float((U @ z).max()) - best_val, 0.0)  # the planes' bound on every mixture, above the best
            if gap <= tol or k == iterations:
                break
            val, v, arr = worst(w)
            if sign * val > best_val:
                best_val, best_w = sign * val, w
            planes.append(sign * v)
            arrays.append(arr)
        return best_w, gap, _combine(z, arrays)

    # ------------------------------------------------------------------ the mixture
    def mixture(self, wp: np.ndarray, wb: np.ndarray, cutoff: float = 1e-6):
        """The behaviour strategies of the mixtures ``wp`` (punters) and ``wb`` (bankers) as
        ``MixtureTables`` (tables, rules, exact NashConv, the weights). Members with a weight
        below ``cutoff`` are left out (the rest renormalised)."""
        ev = self.ev
        wp, wb = self._clean(wp, cutoff), self._clean(wb, cutoff)
        S_bet = S_draw = breach_sum = reach_sum = None
        for w, pol, kept in zip(wp, self.punters, self._tables["punter"], strict=True):
            if w == 0:
                continue
            bet, draw = kept if kept is not None else ev.punter_table(pol)
            _, _, breach, reach = ev.punter_forward(bet, draw, return_reach=True)
            if S_bet is None:
                S_bet, S_draw = np.zeros_like(bet), np.zeros_like(draw)
                breach_sum, reach_sum = np.zeros_like(breach), np.zeros_like(reach)
                fb, fd = bet, draw  # where no member reaches a state: the first member's play
            S_bet += w * breach[:, None] * bet
            S_draw += w * reach[..., None] * draw
            breach_sum += w * breach
            reach_sum += w * reach
        bet = np.where(breach_sum[:, None] > 0, S_bet / np.where(breach_sum > 0, breach_sum, 1.0)[:, None], fb)
        draw = np.where(reach_sum[..., None] > 0, S_draw / np.where(reach_sum > 0, reach_sum, 1.0)[..., None], fd)
        S_hit = x_sum = None
        for w, pol, kept in zip(wb, self.bankers, self._tables["banker"], strict=True):
            if w == 0:
                continue
            hit = np.asarray(kept, np.float64) if kept is not None else ev.banker_table(pol)
            x = ev.banker_reach(hit)
            if S_hit is None:
                S_hit, x_sum, fh = np.zeros_like(hit), np.zeros_like(x), hit
            S_hit += w * x * hit
            x_sum += w * x
        hit = np.where(x_sum > 0, S_hit / np.where(x_sum > 0, x_sum, 1.0), fh)
        result = nash_conv(TabularPunterPolicy(ev, bet, draw), TabularBankerPolicy(ev, hit), ev)
        weights = {"punter": dict(zip(self.names["punter"], map(float, wp), strict=True)),
                   "banker": dict(zip(self.names["banker"], map(float, wb), strict=True))}  # fmt: skip
        return MixtureTables(ev.rules.model_dump(mode="json"), bet, draw, hit, result, ev, weights=weights)

    @staticmethod
    def _clean(w: np.ndarray, cutoff: float) -> np.ndarray:
        w = np.where(np.asarray(w, np.float64) >= cutoff, w, 0.0)
        if w.sum() <= 0:
            raise ValueError("the mixture has no weight left")
        return w / w.sum()
