"""Mixtures of heads-up policies, evaluated exactly (``siete_env.solve.mixture``).

A training run leaves populations of policies: its punter snapshots and its banker
snapshots. Mixing them (pick a member at random for a whole hand, then play it) can be
far less exploitable than any one of them: where an equilibrium mixes between two moves,
one network plays one and another the other. This module measures such mixtures exactly
on the exact evaluator's states (heads-up ``spanish`` without splits) and chooses
their weights with one of two meta-solvers:

* :meth:`Population.restricted_nash`: a Nash equilibrium of the *restricted game*, the
  matrix game whose entries are the exact expected values of every punter member against
  every banker member (the meta-solver of PSRO, Lanctot et al. 2017). ``train.py`` uses it
  to choose each learner's opponents among the other side's snapshots
  (``opponents.weighting: nash``);
* :meth:`Population.least_exploitable`: for each side, the weights whose worst case in the
  *full* game (against an exact best response) is best; found by exponentiated-gradient
  ascent (Hedge) against exact best responses, keeping the best weights measured.
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
        # value against the best response to it alone, and its tables (the banker's in float32)
        self._alone: dict[str, list[float | None]] = {"punter": [], "banker": []}
        self._tables: dict[str, list[Any]] = {"punter": [], "banker": []}

    # ------------------------------------------------------------------ members
    def add_punter(self, policy: Policy, name: str = "") -> None:
        bet, draw = self.ev.punter_table(policy)
        self._add_punter(policy, name, *self.ev.punter_forward(bet, draw))

    def _add_punter(self, policy: Policy, name: str, W: np.ndarray, bust: float,
                    alone: float | None = None, tables: Any = None) -> None:  # fmt: skip
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
        self._alone["banker"].append(alone)
        self._tables["banker"].append(hit)
        self.bankers.append(policy)
        self.names["banker"].append(name or f"banker {len(self.bankers)}")
        self._G.append(G)
        row = np.array([self._value(W, b, G) for W, b in zip(self._W, self._bust, strict=True)])
        self._M = np.hstack([self._M.reshape(len(self.punters), len(self.bankers) - 1), row[:, None]])

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
        self._add_banker(banker, names[1], pe.G, r.punter_br_value, np.asarray(pe.hit, np.float32))
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
        W = sum(wi * Wi for wi, Wi in zip(w, self._W, strict=True))
        G_br, _ = banker_side.best_response_values(self.ev, W)
        v = np.array([self._value(Wi, b, G_br) for Wi, b in zip(self._W, self._bust, strict=True)])
        return float(w @ v), v

    def banker_worst(self, w: np.ndarray) -> tuple[float, np.ndarray]:
        """The punter's value with its exact best response to the banker mixture ``w``, and
        that punter's value against every member."""
        G = sum(wj * Gj for wj, Gj in zip(w, self._G, strict=True))
        _, bact, dact = punter_side.best_response(self.ev, G)
        bet, draw = self.ev.punter_table(TabularPunterPolicy(self.ev, bact, dact))
        W, bust = self.ev.punter_forward(bet, draw)
        u = np.array([self._value(W, bust, Gj) for Gj in self._G])
        return float(w @ u), u

    def least_exploitable(self, iterations: int = 60, step: float = 30.0,
                          start: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
        """Weights whose full-game worst cases are the best found: for each side, Hedge
        (step ``step`` per chip) against exact best responses for ``iterations`` steps,
        from ``start`` (default: the restricted game's Nash weights) mixed half and half
        with uniform weights, keeping the best of every member alone, the iterates and
        their running average (each measured exactly): so the result is never more
        exploitable than the best member of each side."""
        if not self.punters or not self.bankers:
            raise ValueError("the population needs at least one punter and one banker")
        x0, y0 = start if start is not None else self.restricted_nash()
        # Hedge never revives a zero weight: start inside the simplex (half uniform)
        x0 = 0.5 * np.asarray(x0, np.float64) / np.sum(x0) + 0.5 / len(self.punters)
        y0 = 0.5 * np.asarray(y0, np.float64) / np.sum(y0) + 0.5 / len(self.bankers)
        wp = self._hedge(self.punter_worst, x0, +1, iterations, step, self._alone["punter"])
        wb = self._hedge(self.banker_worst, y0, -1, iterations, step, self._alone["banker"])
        return wp, wb

    @staticmethod
    def _hedge(worst, w: np.ndarray, sign: int, iterations: int, step: float,
               alone: list[float | None] | None = None) -> np.ndarray:  # fmt: skip
        w = w / w.sum()
        best_val, best_w = -np.inf, w.copy()
        for i in range(len(w)):  # every member alone: the mixture is never worse than the best of them
            e = np.zeros_like(w)
            e[i] = 1.0
            known = alone[i] if alone is not None else None
            val = known if known is not None else worst(e)[0]  # known from the member's own pair
            if sign * val > best_val:
                best_val, best_w = sign * val, e
        avg = np.zeros_like(w)
        for _ in range(iterations):
            val, v = worst(w)
            if sign * val > best_val:
                best_val, best_w = sign * val, w.copy()
            avg += w
            a = avg / avg.sum()
            aval, _ = worst(a)
            if sign * aval > best_val:
                best_val, best_w = sign * aval, a
            g = sign * v
            w = w * np.exp(step * (g - g.max()))
            w /= w.sum()
        return best_w

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
