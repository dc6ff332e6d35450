"""The compiled banker passes (``siete_env.solve.kernels``) against the numpy passes of
``siete_env.solve.banker``: the same values, decisions, regrets and reach on random
policies and reaches, under payouts, stakes, swaps and the forced banker."""

from __future__ import annotations

import numpy as np
import pytest

from siete_env.solve import banker, evaluator
from siete_env.solve.states import FOUR

from .helpers import some_v_rows
from .tolerance import FLOAT64

RULES = [
    {"preset": "spanish", "bet_levels": [1], "four_swap": "off", "max_splits": 0},
    {
        "preset": "spanish",
        "bet_levels": [1, 2],
        "four_swap": "off",
        "max_splits": 0,
        "seven_half_pays": 3,
        "banker_seven_half_collects": 2,
    },  # fmt: skip
    {"preset": "spanish", "bet_levels": [1], "max_splits": 0, "four_swap": "mandatory", "both_seven_half_collects": 1},
    {"preset": "spanish", "bet_levels": [1], "four_swap": "off", "max_splits": 0, "banker_policy_rule": "hit_below_6"},
]


def possible_nodes(ev) -> np.ndarray:
    """``(nV, n_M)``: the banker multisets it can hold beside each stood punter hand (the
    kernels skip the others; the numpy passes compute values there nobody reaches)."""
    a = banker.kernel_args(ev)
    A = 4 - a.vU
    A[:, FOUR] -= a.vk
    out = np.empty((len(a.vk), ev.n_M), bool)
    for m in range(ev.n_M):
        C = A - ev.M[m][None, :]
        C[:, FOUR] += ev.fixed_drawn(a.vk, a.vn, int(ev.M_n[m]))
        out[:, m] = (C >= 0).all(1)
    return out


V_SAMPLE = 500  # stood punter hands (k, U) compared per rule set (of 1,489; 7,315 with swaps)


@pytest.mark.parametrize(
    "rules",
    [  # all but the dearest run again with NUMBA_CPU_NAME=generic (the `processor` mark: tests/tolerance.py)
        pytest.param(RULES[0], id="single", marks=pytest.mark.processor),
        pytest.param(RULES[1], id="payouts-stakes", marks=pytest.mark.processor),
        pytest.param(RULES[2], id="mandatory-swap"),
        pytest.param(RULES[3], id="forced", marks=pytest.mark.processor),
    ],
)
def test_numba_and_numpy_passes_agree(rules):
    ev, _ = some_v_rows(evaluator(rules), V_SAMPLE)
    rng = np.random.default_rng(7)
    nV = ev.n_vu * ev.L
    hit = rng.random((nV, ev.n_M))
    W = rng.random((ev.n_vu, ev.L, 10)) * (rng.random((ev.n_vu, ev.L, 1)) < 0.8)  # some V unreached
    ok = possible_nodes(ev)
    assert 0.2 < ok.mean() < 0.9  # a real share of the nodes is skipped
    a = banker.kernel_args(ev)
    swapped = ev.fixed_drawn(a.vk[:, None], a.vn[:, None], ev.M_n[None, :]) > 0
    assert (swapped & ok).any() == (ev.kmax > 0)  # with swaps: nodes where the banker has drawn a swapped 4

    for scale in (True, False) if ev.L > 1 else (True,):
        a = banker.policy_values(ev, hit, scale_stakes=scale, backend="numba")
        b = banker.policy_values(ev, hit, scale_stakes=scale, backend="numpy")
        np.testing.assert_allclose(a, b, rtol=0, atol=FLOAT64)

    (Ga, hit_a), (Gb, hit_b) = (banker.best_response_values(ev, W, backend=x) for x in ("numba", "numpy"))
    np.testing.assert_allclose(Ga, Gb, rtol=0, atol=FLOAT64)
    assert (hit_a == hit_b)[ok].all()

    discounts = ((1.0, 1.0, True), (0.6, 0.5, False))  # CFR+, DCFR (the smallest game only: numpy is slow)
    for pos, neg, floor in discounts if rules is RULES[0] else discounts[1:]:
        Ra, Sa = rng.normal(size=(2, nV, ev.n_M))
        Rb, Sb = Ra.copy(), Sa.copy()
        Ga = banker.regret_update(ev, hit, W, Ra, Sa, pos_disc=pos, neg_disc=neg, plus=floor, backend="numba")
        Gb = banker.regret_update(ev, hit, W, Rb, Sb, pos_disc=pos, neg_disc=neg, plus=floor, backend="numpy")
        np.testing.assert_allclose(Ga, Gb, rtol=0, atol=FLOAT64)
        np.testing.assert_allclose(Ra[ok], Rb[ok], rtol=0, atol=FLOAT64)
        np.testing.assert_allclose(Sa[ok], Sb[ok], rtol=0, atol=FLOAT64)
        assert floor is False or (Ra[ok] >= 0).all()

    np.testing.assert_allclose(
        banker.reach(ev, hit, backend="numba"), banker.reach(ev, hit, backend="numpy"), rtol=0, atol=FLOAT64
    )


def test_backend_choice_is_checked(monkeypatch):
    ev = evaluator(RULES[0])
    hit = np.full((ev.n_vu * ev.L, ev.n_M), 0.5)
    with pytest.raises(ValueError, match="backend must be one of"):
        banker.policy_values(ev, hit, backend="cuda")
    monkeypatch.setenv("SIETE_SOLVE_BACKEND", "numpy")
    assert banker.default_backend() == "numpy"
    monkeypatch.setenv("SIETE_SOLVE_BACKEND", "fortran")
    with pytest.raises(ValueError, match="SIETE_SOLVE_BACKEND must be one of"):
        banker.default_backend()
