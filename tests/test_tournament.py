"""Matches and tournaments (``agents.tournament``): the same chips as the AEC API, the
confidence intervals, the known value of threshold:5.5 against banker:6, parallel
workers, round robins and their worst cases."""

from __future__ import annotations

import math

import numpy as np
import pytest

from agents.specs import make_agent
from agents.tournament import Z95, Estimate, play_match, play_matches, round_robin
from siete_env import env as aec_env
from training.report import worst_cases

from .tolerance import FLOAT64

EXACT = -0.1777828  # tests/test_baseline_value.py: exact enumeration, single stake, no swaps/splits


def _via_aec(banker, punters, n, hands, seed, rules="spanish"):
    """The hands of ``play_match`` played through the wrapped AEC API (agent_iter / last /
    step), with the seeds play_match derives: table seed from the first spawned child of
    SeedSequence(seed), each seat's agent seed from the next ones."""
    e = aec_env(num_players=n, rules=rules)
    seeds = np.random.SeedSequence(seed).spawn(n + 1)
    specs = [banker, *([punters] * (n - 1) if isinstance(punters, str) else punters)]
    agents = [make_agent(s, e, seed=int(seeds[i + 1].generate_state(1)[0])) for i, s in enumerate(specs)]
    table_seed = int(seeds[0].generate_state(1)[0])
    chips = np.zeros((hands, n))
    decisions = []
    for ep in range(hands):
        e.reset(seed=table_seed if ep == 0 else None, options={"banker": 0})
        for name in e.agent_iter():
            obs, reward, term, trunc, info = e.last()
            if term or trunc:
                e.step(None)
                continue
            seat = int(name.split("_")[1])
            a = agents[seat](obs)
            decisions.append((seat, a))
            e.step(a)
            step_rewards = e.rewards
            chips[ep] += [step_rewards[f"player_{s}"] for s in range(n)]
        # rewards of the final step are read after it; the loop above read them every step
    return chips, decisions


@pytest.mark.parametrize(
    "banker, punters, n, hands",
    [
        ("banker:6", "threshold:5.5", 2, 400),
        ("smart:6", ["random", "bold:5.5"], 3, 300),
        ("random", "random", 4, 200),
    ],
)
def test_play_match_equals_the_aec_api(banker, punters, n, hands):
    decisions = []
    res = play_match(
        banker, punters, num_players=n, hands=hands, seed=17, recorder=lambda s, o, a: decisions.append((s, a))
    )
    chips, aec_decisions = _via_aec(banker, punters, n, hands, 17)
    assert decisions == aec_decisions
    assert res.hands == hands and res.num_players == n
    for s in range(n):
        want = Estimate.of(chips[:, s])
        assert res.seats[s].mean == pytest.approx(want.mean, abs=FLOAT64)
        assert res.seats[s].sd == pytest.approx(want.sd, abs=FLOAT64)
        assert res.seats[s].n == hands
    assert res.punter.mean == pytest.approx(chips[:, 1:].mean(), abs=FLOAT64)
    assert res.banker_result == res.seats[0]
    # every hand is zero-sum across the seats
    np.testing.assert_array_equal(chips.sum(axis=1), 0)
    assert sum(s.mean for s in res.seats) == pytest.approx(0, abs=FLOAT64)


def test_same_seed_same_match_other_seed_other_match():
    a = play_match("smart:6", "random", num_players=3, hands=500, seed=1)
    b = play_match("smart:6", "random", num_players=3, hands=500, seed=1)
    c = play_match("smart:6", "random", num_players=3, hands=500, seed=2)
    assert a.seats == b.seats and a.punter == b.punter
    assert a.seats != c.seats


def test_heads_up_banker_result_is_minus_the_punters():
    r = play_match("smart:6", "bold:5.5", hands=2000, seed=4)
    assert r.seats[0].mean == pytest.approx(-r.seats[1].mean, abs=FLOAT64)
    assert r.seats[0].sd == pytest.approx(r.seats[1].sd, abs=FLOAT64)
    assert r.punter == r.seats[1]


def test_common_decks_across_pairings():
    # the punter's first card of every hand is the same whoever banks (same seed)
    L = aec_env(num_players=2).unwrapped.layout

    def first_cards(banker):
        seen = []

        def rec(seat, obs, a):
            if seat == 1 and 6 <= a <= 10:  # threshold bets once a hand (BET_1), before any hit
                cards = obs["observation"][: 40 * L.W].reshape(40, L.W)
                seen.append(np.flatnonzero(cards[:, 0]).tolist())  # its own hand's cards

        play_match(banker, "threshold:5.5", hands=300, seed=9, recorder=rec)
        return seen

    a, b = first_cards("banker:6"), first_cards("random")
    assert len(a) == 300 and a == b


def test_estimate_formula():
    v = np.array([1.0, -1.0, 2.0, 0.0, 3.0])
    e = Estimate.of(v)
    sd = math.sqrt(((1 - 1) ** 2 + (-1 - 1) ** 2 + (2 - 1) ** 2 + (0 - 1) ** 2 + (3 - 1) ** 2) / 4)
    assert (e.mean, e.n) == (1.0, 5)
    assert e.sd == pytest.approx(sd, rel=1e-15)
    assert e.ci95 == pytest.approx(1.959963984540054 * sd / math.sqrt(5), rel=1e-15)
    assert Z95 == pytest.approx(1.959963984540054)
    assert e.low == pytest.approx(1 - e.ci95) and e.high == pytest.approx(1 + e.ci95)
    assert str(e) == f"+1.0000 ± {e.ci95:.4f}"
    one = Estimate.of(np.array([2.0]))
    assert one.mean == 2.0 and one.ci95 == math.inf and one.n == 1


def test_threshold_against_banker_six_matches_the_exact_value():
    r = play_match("banker:6", "threshold:5.5", hands=20_000, seed=0)
    se = r.punter.sd / math.sqrt(r.punter.n)
    assert r.punter.n == 20_000
    assert abs(r.punter.mean - EXACT) < 4 * se, (r.punter, se)
    assert r.punter.ci95 == pytest.approx(Z95 * se)


def _strip(d):
    d = dict(d)
    d.pop("seconds")
    return d


def test_play_matches_workers_two_equals_one():
    jobs = [
        {"banker": "banker:6", "punters": "threshold:5.5", "hands": 1500, "seed": 3},
        {"banker": "smart:6", "punters": "random", "hands": 800, "seed": 3, "num_players": 3},
        {"banker": "random", "punters": ["bold:5.5", "threshold:5"], "hands": 600, "seed": 5, "num_players": 3},
    ]
    one = play_matches(jobs, workers=1)
    two = play_matches(jobs, workers=2)
    assert [_strip(r.to_dict()) for r in one] == [_strip(r.to_dict()) for r in two]
    assert [r.banker for r in two] == ["banker:6", "smart:6", "random"]  # in the order of the jobs


def test_play_match_refuses_a_wrong_number_of_punters():
    with pytest.raises(ValueError, match="2 punter seats but 1 punter specs"):
        play_match("banker:6", ["threshold:5.5"], num_players=3, hands=10)
    with pytest.raises(ValueError, match="unknown agent spec"):
        play_match("nope", "threshold:5.5", hands=10)


def test_round_robin_and_worst_cases():
    punters = ["threshold:5.5", "bold:5.5", "random"]
    bankers = ["banker:6", "smart:6", "random"]
    t = round_robin(punters, bankers, hands=1500, seed=8, skip=lambda p, b: p == "random" and b == "random")
    assert set(t.results) == {(p, b) for p in punters for b in bankers} - {("random", "random")}
    # every pairing is the same as its own match with the same seed
    r = play_match("smart:6", "bold:5.5", hands=1500, seed=8)
    assert t.results[("bold:5.5", "smart:6")].seats == r.seats
    t = round_robin(punters, bankers, hands=1500, seed=8)
    worst = t.punter_worst("threshold:5.5")
    assert worst.punter.mean == min(t.results[("threshold:5.5", b)].punter.mean for b in bankers)
    wb = t.banker_worst("smart:6")
    assert wb.banker_result.mean == min(t.results[(p, "smart:6")].banker_result.mean for p in punters)
    # worst cases over the *baselines* only: "bold:5.5" and "smart:6" play the learned ones
    wc = worst_cases(t, "bold:5.5", "smart:6")
    base_b, base_p = ["banker:6", "random"], ["threshold:5.5", "random"]
    for p in punters:
        b = min(base_b, key=lambda b: t.results[(p, b)].punter.mean)
        assert wc["punters"][p] == {
            "against": b,
            "mean": t.results[(p, b)].punter.mean,
            "ci95": t.results[(p, b)].punter.ci95,
        }
    for b in bankers:
        p = min(base_p, key=lambda p: t.results[(p, b)].banker_result.mean)
        assert wc["bankers"][b]["against"] == p
        assert wc["bankers"][b]["mean"] == t.results[(p, b)].banker_result.mean
    c = wc["punters_criterion"]
    best = max(base_p, key=lambda s: wc["punters"][s]["mean"])
    assert c["best_baseline"] == best
    mine, bb = wc["punters"]["bold:5.5"], wc["punters"][best]
    assert c["margin_between_intervals"] == pytest.approx((mine["mean"] - mine["ci95"]) - (bb["mean"] + bb["ci95"]))
    assert c["met"] == (c["margin_between_intervals"] > 0)


def test_worst_over_the_pairings_played_when_some_are_skipped():
    t = round_robin(["threshold:5.5", "random"], ["banker:6", "random"], hands=200, seed=1,
                    skip=lambda p, b: p == "random" and b == "random")  # fmt: skip
    assert t.punter_worst("random") is t.results[("random", "banker:6")]
    assert t.banker_worst("random") is t.results[("threshold:5.5", "random")]


def test_common_decks_survive_shoe_reshuffles():
    """Two tables with the same seed, played by different agents, are dealt the same fresh
    deck at every episode even when their shoes run out at different moments (a reshuffle
    draws from a generator of its own)."""
    import numpy as np

    from siete_env import raw_env

    rules = {"preset": "italian", "hands_per_episode": 5}
    tables = [raw_env(num_players=8, rules=rules) for _ in range(2)]
    rngs = [np.random.default_rng(1), np.random.default_rng(2)]
    reshuffles = [0, 0]
    for ep in range(300):  # past the first batch of 256 pre-drawn decks
        decks = []
        for i, e in enumerate(tables):
            e.reset(seed=7 if ep == 0 else None, options={"banker": 0})
            decks.append(list(e.game.deck))
            g = e.game
            while g.phase != 4:
                before = len(g.events)
                legal = g.legal_actions()
                g.apply(legal[int(rngs[i].integers(len(legal)))])
                reshuffles[i] += sum(1 for ev in g.events[before:] if ev[0] == 9)  # EV_RESHUFFLE
        assert decks[0] == decks[1], ep
    assert reshuffles[0] > 0 and reshuffles[1] > 0 and reshuffles[0] != reshuffles[1]


def test_less_exploitable_than_every_baseline_from_bounds_and_responders():
    """A baseline's exploitability is bounded below by the best result of the round robin
    against it, raised by a responder against it; the learned policy's is its final
    responder's result; "apart" needs the learned interval below the bound's."""
    from training.report import exploitability_markdown, exploitability_vs_baselines

    def est(mean, ci=0.01):
        return {"mean": mean, "ci95": ci}

    def match(p, b, punter, bank):
        return {"banker": b, "punters": [p, p, p], "punter": est(punter), "banker_result": est(bank)}

    lp, lb = "ppo:p.zip:sample", "ppo:b.zip:sample"
    tournament = {"matches": [
        match("bold:5.5", "banker:6", 0.10, -0.30), match(lp, "banker:6", 0.50, -1.50),
        match("bold:5.5", lb, 0.20, -0.60), match(lp, lb, 0.45, -1.35),
    ]}  # fmt: skip
    final = [
        {"name": "final pair", "seat": "punter", "learned": est(0.48), "gain": est(0.03)},
        {"name": "final pair", "seat": "banker", "learned": est(-1.20), "gain": est(0.15)},
    ]
    ex = exploitability_vs_baselines(tournament, final, lp, lb, 4)
    (bank,) = ex["banker"]["baselines"]
    assert bank["baseline"] == "banker:6" and bank["bound"]["mean"] == 0.50 and bank["bound"]["by"] == lp
    assert not bank["apart"] and not ex["banker"]["met"]  # 0.48 + 0.01 is not below 0.50 - 0.01
    (punt,) = ex["punter"]["baselines"]
    assert punt["bound"]["mean"] == -0.30 and punt["apart"] and ex["punter"]["met"]  # the best bank against bold
    assert (
        ex["banker"]["gain_per_punter"]["mean"] == pytest.approx(0.05)
        and ex["punter"]["gain_per_punter"]["mean"] == 0.03
    )
    # a responder against banker:6 raises its bound: now apart
    more = [{"name": "against banker:6", "seat": "punter", "banker": "banker:6", "punters": lp, "learned": est(0.60)}]
    ex = exploitability_vs_baselines(tournament, final + more, lp, lb, 4)
    assert (
        ex["banker"]["met"] and ex["banker"]["baselines"][0]["bound"]["by"] == "a punter responder (against banker:6)"
    )
    text = "\n".join(exploitability_markdown(ex, {lp: "learned punter", lb: "learned banker"}, "chips"))
    assert "less exploitable than every baseline banker: **MET**" in text
    assert exploitability_vs_baselines(tournament, final[:1], lp, lb, 4) is None  # one seat measured: no verdict


def test_less_exploitable_than_every_baseline_exactly_heads_up():
    """Where the rules are measured exactly, every policy's exploitability is its exact best
    response's value: the baselines' as the learned pair's, no interval, "apart" is "below"
    (a tie is not)."""
    from siete_env import raw_env, solve
    from training.config import TrainConfig
    from training.report import exact_exploitability_vs_baselines, exploitability_markdown

    rules = {"preset": "spanish", "bet_levels": [1], "four_swap": "off", "max_splits": 0}
    table = raw_env(2, rules)

    def verdict(lp, lb, punters, bankers):
        cfg = TrainConfig.model_validate({"rules": rules, "evaluation": {"punters": punters, "bankers": bankers}})
        nc = solve.nash_conv(make_agent(lp, table), make_agent(lb, table), rules)
        fnc = {"ev": nc.ev, "punter_br": nc.punter_br_value, "banker_br": nc.banker_br_value}
        return nc, exact_exploitability_vs_baselines(cfg, lp, lb, fnc)

    def br(spec, role):  # what a best response earns against it (the punter's chips / the bank's)
        return solve.best_response(make_agent(spec, table), role, rules).value

    # "learned" here: heuristics whose exact values differ. In these rules banker:6 and smart:6
    # play alike, as do threshold:5.5 and bold:5.5 (ties); random is far more exploitable.
    nc, ex = verdict("threshold:5.5", "banker:6", ["random", "threshold:5", "bold:5.5"],
                     ["random", "banker:5.5", "smart:6", "banker:6"])  # fmt: skip
    assert br("banker:5.5", "banker") < br("banker:6", "banker") < br("random", "banker")
    assert br("threshold:5", "punter") < br("threshold:5.5", "punter") < br("random", "punter")
    banks = {r["baseline"]: r for r in ex["banker"]["baselines"]}
    assert list(banks) == ["random", "banker:5.5", "smart:6"]  # the learned policy is not its own baseline
    assert {b: r["apart"] for b, r in banks.items()} == {"random": True, "banker:5.5": False, "smart:6": False}
    assert all(r["bound"]["mean"] == br(b, "banker") for b, r in banks.items())
    assert ex["banker"]["learned"]["mean"] == pytest.approx(br("banker:6", "banker"), abs=FLOAT64)
    assert not ex["banker"]["met"]  # below random only
    punts = {r["baseline"]: r for r in ex["punter"]["baselines"]}
    assert {b: r["apart"] for b, r in punts.items()} == {"random": True, "threshold:5": False, "bold:5.5": False}
    assert all(r["bound"]["mean"] == br(b, "punter") for b, r in punts.items())
    assert ex["punter"]["learned"]["mean"] == pytest.approx(br("threshold:5.5", "punter"), abs=FLOAT64)
    assert not ex["punter"]["met"]
    # each seat's gain is the exact best response's over the learned policy in that seat
    assert ex["banker"]["gain_per_punter"]["mean"] == pytest.approx(nc.banker_br_value + nc.ev, abs=FLOAT64)
    assert ex["punter"]["gain_per_punter"]["mean"] == pytest.approx(nc.punter_br_value - nc.ev, abs=FLOAT64)
    text = "\n".join(
        exploitability_markdown(ex, {"threshold:5.5": "learned punter", "banker:6": "learned banker"}, "chips")
    )
    assert "here exactly" in text and "±" not in text
    assert "less exploitable than every baseline banker: **NOT MET** (not below: banker:5.5, smart:6)" in text
    # below every baseline of its role: met
    _, ex = verdict("threshold:5", "banker:5.5", ["threshold:5.5", "random"], ["banker:6", "random"])
    assert ex["banker"]["met"] and ex["punter"]["met"]
    assert all(r["apart"] for role in ("banker", "punter") for r in ex[role]["baselines"])
    assert exact_exploitability_vs_baselines(TrainConfig(), "threshold:5", "banker:5.5", None) is None  # not exact


def test_the_exact_verdict_is_left_out_not_the_report_when_a_baseline_cannot_be_measured(monkeypatch, capsys):
    from siete_env import solve
    from training.config import TrainConfig
    from training.report import exact_exploitability_vs_baselines

    def refuse(policy, against, rules):
        raise ValueError("this policy cannot be tabulated")

    monkeypatch.setattr(solve, "best_response", refuse)
    rules = {"preset": "spanish", "bet_levels": [1], "four_swap": "off", "max_splits": 0}
    cfg = TrainConfig.model_validate(
        {"rules": rules, "evaluation": {"punters": ["threshold:5"], "bankers": ["banker:6"]}}
    )
    fnc = {"ev": 0.1, "punter_br": 0.2, "banker_br": -0.05}
    assert exact_exploitability_vs_baselines(cfg, "threshold:5.5", "banker:5.5", fnc) is None
    assert "banker:6 (banker) was not measured: this policy cannot be tabulated" in capsys.readouterr().out
