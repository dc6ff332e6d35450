"""The batched engine (``siete_env.batched``): step-by-step identity with the reference
engine over every mechanic group, the rules it refuses, its single-seat ``VectorEnv``
against ``SeatEnv``, ``gymnasium.make_vec``, the SB3 adapter, and batched matches.

The full differential count (10,000 hands per group) is
``python -m tests.batched_differential --hands 10000`` (or ``SIETE_DIFF_HANDS=10000``
with this file); the suite runs a few hundred hands per group.
"""

from __future__ import annotations

import math
import os

import gymnasium
import numpy as np
import pytest

pytest.importorskip("numba")

import siete_env  # noqa: E402,F401  (registers the ids)
from agents.batched_play import match_decks, play_chips  # noqa: E402
from agents.specs import make_agent  # noqa: E402
from agents.tournament import play_match  # noqa: E402
from siete_env import raw_env  # noqa: E402
from siete_env.batched import BatchedTables, check_rules  # noqa: E402
from siete_env.batched.vector import SB3VecEnv, SeatVectorEnv, random_legal_actions  # noqa: E402
from siete_env.cards import CARD_IDS  # noqa: E402
from siete_env.encoding import HandFeature  # noqa: E402
from siete_env.game import Phase  # noqa: E402
from siete_env.gym_env import SeatEnv  # noqa: E402
from tests.batched_differential import GROUPS, run_group  # noqa: E402

SUITE_HANDS = {
    "random": 150,
    "swaps": 120,
    "splits": 80,
    "seven_half": 120,
    "raises": 120,
    "exhaustion": 40,
    "rules": 150,
    "presets": 180,
    "wild": 120,
    "points": 300,
    "italian": 200,
    "sessions": 60,  # episodes of several hands (about 300 hands)
}


@pytest.mark.parametrize("group", GROUPS)
def test_identical_to_the_reference_engine(group):
    counts = run_group(
        group, SUITE_HANDS[group], seed=1, per_set={"exhaustion": 20, "italian": 10, "sessions": 4}.get(group, 40)
    )
    assert counts["hands"] == SUITE_HANDS[group]
    want = {
        "swaps": "SWAP_FOUR",
        "splits": "SPLIT",
        "seven_half": "punter 7½",
        "raises": "RAISE",
        "exhaustion": "deck ran out",
        "random": "punter busts",
        "wild": "reale",
        "points": "double",
        "presets": "wild card held",  # the italian preset's matta
    }.get(group)
    if want:
        assert counts[want] >= 10, counts
    if group == "italian":
        for want in ("BURN", "ACE_HALF", "SIDE_BET_1", "triplee"):
            assert counts[want] >= 10, (want, counts)
    if group == "sessions":
        for want in ("session hands", "bank passed", "reshuffles", "seats out"):
            assert counts[want] >= 10, (want, counts)


@pytest.mark.skipif(not os.environ.get("SIETE_DIFF_HANDS"), reason="set SIETE_DIFF_HANDS for the full count")
@pytest.mark.parametrize("group", GROUPS)
def test_identical_full_count(group):
    hands = int(os.environ["SIETE_DIFF_HANDS"])
    assert run_group(group, hands, seed=2)["hands"] == hands


@pytest.mark.parametrize(
    "rules, n, match",
    [
        ({"preset": "spanish", "side_bets": True}, 2, "side_bets: true needs at least 3 players"),
        (
            {"preset": "spanish", "bet_levels": [1, 500], "hands_per_episode": 40},
            2,
            r"can move 320,000 chips in an episode",
        ),
        ("spanish", 13, "num_players must be 2..12"),
        (
            {"preset": "spanish", "bet_levels": [1, 5000]},
            2,
            r"can move 80,000 chips in an episode at 2 seats \(at most 32,767\)",
        ),
        ({"preset": "spanish_full", "auction_bids": [40000]}, 2, r"can move 40,080 chips"),
        ({"preset": "quattro_e_mezzo", "points_otherwise": 40000}, 4, r"can move 40,000 chips"),
    ],
)
def test_refuses_rules_it_does_not_play(rules, n, match):
    with pytest.raises(ValueError, match=match):
        check_rules(rules, n)
    with pytest.raises(ValueError, match=match):
        BatchedTables(4, n, rules)
    with pytest.raises(ValueError, match=match):
        SeatVectorEnv(num_envs=4, rules=rules, num_players=n)


def test_a_long_tie_for_the_bank_is_dealt_out_as_the_reference_does():
    """Quattro e mezzo: two punters tie for the bank 17 times (equal pairs stacked), each hand
    growing to 19 cards: the batched engine's observations stay the reference's."""
    pairs = "10e 10b 11o 11c 11e 11b 12c 12e 12b 12o 1o 1c 1e 1b 2o 2c 2e 2b 3o 3c 3e 3b 5o 5c 5e 5b 6o 6c 6e 6b 7c 7e 4e 4b"
    deck = ["4o", "4c", "7o", "10o", "10c", *pairs.split(), "7b"]
    bt = BatchedTables(1, 3, "quattro_e_mezzo")
    ids = [CARD_IDS.index(c) for c in deck]
    bt.start([0], [0], np.array([ids]))
    e = raw_env(num_players=3, rules="quattro_e_mezzo")
    e.reset(options={"deck": deck, "banker": 0})
    script = ["HIT_UP", "STAND", "HIT_UP", "STAND", "STAND"]  # 4 + ½ (both punters), the banker's 7
    for name in script:
        a = bt.action_names.index(name)
        bt.apply([0], [a])
        e.step(a)
        for s in range(3):
            np.testing.assert_array_equal(bt.observe([0], s)[0][0], e.observe(f"player_{s}")["observation"])
    assert bt.over()[0] and e.game.phase == Phase.OVER
    assert (
        len(e.game.cards[e.game.slot(1)])
        == 19
        == bt.observe([0], 1)[0][0][e.layout.hand_feature(0, 0, HandFeature.N_CARDS)]
    )


def test_what_each_engine_plays_names_real_options():
    """``rules.ENGINE_OPTIONS`` (the one list per engine) and the options that belong to a
    feature name fields of ``Rules``: a misspelt name would silently refuse its option."""
    from siete_env import rules as R

    fields = set(R.Rules.model_fields)
    for engine, names in R.ENGINE_OPTIONS.items():
        assert names <= fields, (engine, names - fields)
    assert all(k in fields and f in fields for k, (f, _) in R._PART_OF.items())
    assert R.options_not_played(R.resolve_rules("spanish"), "exact") == []
    assert R.options_not_played(R.resolve_rules("italian"), "batched") == []


def test_illegal_action_is_refused_and_not_applied():
    bt = BatchedTables(3, 2)
    bt.start(None, 1, np.tile(bt.deck_cards, (3, 1)))  # seat 0 punts: bet phase
    before = bt.state.copy()
    with pytest.raises(ValueError, match=r"illegal action 0 \(STAND\) at table 0; legal there: \['BET_1'"):
        bt.apply([0, 1], [0, 6])
    np.testing.assert_array_equal(bt.state, before)


def test_decks_are_a_function_of_seed_and_hand():
    cards = np.arange(40, dtype=np.int32)
    a = match_decks(5, 0, 300, cards)
    np.testing.assert_array_equal(a[100:], match_decks(5, 100, 200, cards))
    assert not np.array_equal(a, match_decks(6, 0, 300, cards))
    assert all(sorted(d) == list(range(40)) for d in a)
    counts = np.bincount(match_decks(1, 0, 20_000, cards)[:, 0], minlength=40)  # first cards: uniform
    assert ((counts - 500) ** 2 / 500).sum() < 80  # chi-square, 39 degrees of freedom


# --------------------------------------------------------------------------- single-seat views
def _first_episodes(role, n, opponents, tables=24, seed=3, copunters=None, fold=False, native=True):
    """Each table's first episode in SeatVectorEnv and in SeatEnv, with the same deck, the
    same opponents (deterministic) and the same learner actions: identical step by step."""
    rng = np.random.default_rng(seed)
    venv = SeatVectorEnv(num_envs=tables, role=role, num_players=n, opponents=opponents, copunters=copunters,
                         fold_suits=fold, seed=seed, native=native)  # fmt: skip
    decks = [[CARD_IDS[c] for c in rng.permutation(40)] for _ in range(tables)]
    obs, infos = venv.reset(options={"decks": decks})
    envs, live = [], []
    for i in range(tables):
        e = SeatEnv(role=role, num_players=n, opponents=opponents, copunters=copunters, fold_suits=fold, seed=i)
        o, info = e.reset(options={"deck": decks[i]})
        envs.append(e)
        if info["skipped_episodes"] or infos["skipped_episodes"][i]:
            continue  # no learner decision in that deck: each skips to a deck of its own
        live.append(i)
        np.testing.assert_array_equal(o, obs[i])
        np.testing.assert_array_equal(info["action_mask"], infos["action_mask"][i])
        assert info["reward_before_first_decision"] == infos["reward_before_first_decision"][i]
    assert len(live) >= tables // 2
    steps = 0
    while live:
        actions = random_legal_actions(infos["action_mask"], np.array([seed], np.uint64))
        obs, rew, term, trunc, infos = venv.step(actions)
        assert not trunc.any()
        nxt = []
        for i in live:
            o, r, t, _, info = envs[i].step(int(actions[i]))
            steps += 1
            assert r == rew[i] and t == term[i], (i, r, rew[i], t, term[i])
            if t:
                np.testing.assert_array_equal(o, infos["final_obs"][i])
                assert info["chips"] == infos["final_info"]["chips"][i]
            else:
                np.testing.assert_array_equal(o, obs[i])
                np.testing.assert_array_equal(envs[i].action_masks(), venv.action_masks()[i])
                nxt.append(i)
        live = nxt
    return steps


@pytest.mark.parametrize(
    "role, n, opponents, copunters, fold",
    [
        ("punter", 2, "smart:6", None, False),
        ("punter", 2, ["smart:6"], None, True),
        ("banker", 2, "bold:5.5", None, False),
        ("punter", 4, "banker:6", "threshold:5", False),
        ("banker", 5, ["threshold:5.5"], None, True),
    ],
)
def test_seat_vector_env_is_seat_env(role, n, opponents, copunters, fold):
    assert _first_episodes(role, n, opponents, copunters=copunters, fold=fold) > 0
    assert _first_episodes(role, n, opponents, copunters=copunters, fold=fold, native=False) > 0


def test_opponents_drawn_per_seat_and_episode_from_their_pools():
    v = SeatVectorEnv(num_envs=4000, num_players=4, opponents={"banker:6": 3, "smart:6": 1},
                      copunters=["threshold:5", "bold:5.5"], seed=0)  # fmt: skip
    v.reset()
    banker = v.banker_seat
    assert banker == 3
    names = {i: a for i, a in enumerate(v._agents) if a is not None}
    bank = v._agent_of[:, banker]
    assert {type(names[i]).__name__ for i in np.unique(bank)} == {"BankerThreshold", "SmartBanker"}
    share = np.mean([type(names[i]).__name__ == "BankerThreshold" for i in bank])
    assert abs(share - 0.75) < 0.03
    co = v._agent_of[:, 1:3].ravel()
    assert {type(names[i]).__name__ for i in np.unique(co)} == {"ThresholdPunter", "BoldPunter"}
    assert (v._agent_of[:, 0] == -1).all()


@pytest.mark.parametrize(
    "env_id, role, rules, n",
    [
        ("SieteYMedia-Punter-v0", "punter", "spanish", 2),
        ("SieteYMedia-Banker-v0", "banker", "spanish", 2),
        ("QuattroEMezzo-Punter-v0", "punter", "quattro_e_mezzo", 4),
        ("QuattroEMezzo-Banker-v0", "banker", "quattro_e_mezzo", 4),
    ],
)
def test_make_vec_gives_the_batched_view(env_id, role, rules, n):
    opponent = "smart:6" if rules == "spanish" else "quattro:6"
    envs = gymnasium.make_vec(env_id, num_envs=64, vectorization_mode="vector_entry_point", opponents=opponent)
    assert isinstance(envs, SeatVectorEnv) and envs.role == role
    assert envs.rules.preset == rules and envs.num_players == n
    assert envs.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.SAME_STEP
    obs, infos = envs.reset(seed=0)
    assert obs.shape == (64, envs.single_observation_space.shape[0]) and obs.dtype == np.float32
    ended = 0
    for _ in range(30):
        masks = envs.action_masks()
        np.testing.assert_array_equal(masks, infos["action_mask"].astype(bool))
        assert masks.any(axis=1).all()  # same-step autoreset: always a decision to take
        obs, rew, term, trunc, infos = envs.step(random_legal_actions(infos["action_mask"], np.ones(1, np.uint64)))
        if term.any():
            ended += term.sum()
            assert infos["_final_obs"].tolist() == term.tolist()
            assert infos["final_obs"].shape == obs.shape
            assert (infos["final_obs"][term][:, envs.layout.phase_feature(Phase.OVER)] == 1).all()  # phase over
    assert ended > 0
    envs.close()


def test_same_seed_same_run_and_copy_flag():
    def run(seed, copy=True):
        v = SeatVectorEnv(num_envs=32, opponents=["random", "smart:6"], seed=seed, copy=copy)
        obs, infos = v.reset()
        out = [obs.copy()]
        for _ in range(10):
            obs, r, t, _, infos = v.step(random_legal_actions(infos["action_mask"], np.array([1], np.uint64)))
            out += [obs.copy(), r]
        return out

    a, b, c = run(4), run(4), run(5)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert not all(np.array_equal(x, y) for x, y in zip(a, c, strict=True))
    v = SeatVectorEnv(num_envs=4, seed=0, copy=False)
    o1, _ = v.reset()
    o2, *_ = v.step(random_legal_actions(v.action_masks(), np.array([1], np.uint64)))
    assert o1 is o2  # views of one buffer


@pytest.mark.parametrize(("role", "n", "opponents"), [("banker", 2, "random"), ("punter", 3, ["smart:6", "external"])])
def test_threads_play_the_same_tables(role, n, opponents):
    """``threads=2`` splits the tables over numba's threads: every table has its own row and
    stream, so observations, masks, rewards and final observations are those of one thread,
    with external opponents (asked between the kernels' calls) and illegal actions too."""
    import numba

    from agents.baselines import ThresholdPunter

    class External(ThresholdPunter):  # the same play, asked through action_probs (not native)
        pass

    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("one core: numba has one thread")
    threads = 2

    def run(th):
        ext = External(raw_env(num_players=n), 5.5)
        opp = [ext if o == "external" else o for o in opponents] if isinstance(opponents, list) else opponents
        v = SeatVectorEnv(num_envs=37, role=role, num_players=n, opponents=opp, seed=3, threads=th)
        obs, infos = v.reset()
        out = [obs.copy(), infos["action_mask"].copy()]
        rng = np.array([7], np.uint64)
        for i in range(40):
            a = random_legal_actions(infos["action_mask"], rng)
            if i % 9 == 4:
                a[i % 37] = (a[i % 37] + 1) % v.single_action_space.n  # sometimes illegal: ends that episode
            obs, r, t, _, infos = v.step(a)
            out += [obs.copy(), infos["action_mask"].copy(), r, t]
            if t.any():
                out += [infos["final_obs"][t].copy(), infos["final_info"]["chips"].copy()]
                out += [infos["skipped_episodes"].copy(), infos["reward_before_first_decision"].copy()]
        out += [v.tables.state.copy(), v.tables.rng.copy()]
        v.close()
        return out, v.threads

    (one, t1), (two, t2) = run(1), run(threads)
    assert (t1, t2) == (1, threads)
    assert len(one) == len(two)
    assert all(np.array_equal(x, y) for x, y in zip(one, two, strict=True))


def test_threads_are_checked():
    import numba

    for bad in (0, -1, True, 1.5, "2", numba.config.NUMBA_NUM_THREADS + 1):
        with pytest.raises(ValueError, match="threads must be 1"):
            SeatVectorEnv(num_envs=4, threads=bad)
    assert SeatVectorEnv(num_envs=4, threads=np.int64(1)).threads == 1  # numpy integers too
    assert SeatVectorEnv(num_envs=1, threads=numba.config.NUMBA_NUM_THREADS).threads == 1  # one table: one part


def test_the_fuzz_campaign_plays_the_views_on_threads(capsys):
    """``python -m siete_env.fuzz --engine batched --threads N``: the batched view on N
    threads checked against ``SeatEnv`` (every preset); a violation's repro names them."""
    import numba

    from siete_env import fuzz

    with pytest.raises(SystemExit):
        fuzz.main(["--engine", "batched", "--threads", str(numba.config.NUMBA_NUM_THREADS + 1)])
    assert "--threads must be 1.." in capsys.readouterr().err
    with pytest.raises(SystemExit):
        fuzz.main(["--threads", "2"])  # the AEC campaign has no threads
    assert "--threads go with --engine batched" in capsys.readouterr().err
    v = fuzz.Violation("batched", {"preset": "spanish"}, 2, "banker", 5, 3, "x", ", tables=8, threads=2")
    assert "check_batched({'preset': 'spanish'}, 2, 'banker', 5, tables=8, threads=2)" in str(v)
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("one core: numba has one thread")
    args = ["--engine", "batched", "--hands", "450", "--players", "2", "4", "--threads", "2"]
    assert fuzz.main(args) == 0
    out = capsys.readouterr().out
    total = next(line.split() for line in out.splitlines() if line.startswith("total"))
    assert "on 2 threads" in out and int(total[-2]) >= 28 and total[-1] == "0", out  # 7 presets x 2 sizes x 2 seats


def test_illegal_learner_action():
    v = SeatVectorEnv(num_envs=4, seed=0)
    obs, infos = v.reset()
    acts = random_legal_actions(infos["action_mask"], np.array([2], np.uint64))
    bad = acts.copy()
    bad[2] = 0  # STAND while betting
    _, r, t, _, infos2 = v.step(bad)
    assert t[2] and r[2] == -1.0
    assert "illegal action 0 (STAND)" in infos2["final_info"]["illegal_action"][2]
    np.testing.assert_array_equal(infos2["final_obs"][2], obs[2])
    strict = SeatVectorEnv(num_envs=4, seed=0, illegal_action="raise")
    obs, infos = strict.reset()
    state = strict.tables.state.copy()
    with pytest.raises(ValueError, match="table 2: illegal action 0 .STAND."):
        strict.step(bad)
    np.testing.assert_array_equal(strict.tables.state, state)  # nothing applied


def test_sb3_adapter_trains_maskable_ppo():
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
    from stable_baselines3.common.vec_env import VecMonitor

    venv = VecMonitor(SB3VecEnv(SeatVectorEnv(num_envs=16, opponents="smart:6", fold_suits="auto")))
    assert is_masking_supported(venv)
    obs = venv.reset()
    np.testing.assert_array_equal(get_action_masks(venv), venv.venv.venv.action_masks())
    seen_terminal = False
    for _ in range(20):
        obs, rew, dones, infos = venv.step(random_legal_actions(get_action_masks(venv), np.ones(1, np.uint64)))
        for i in np.flatnonzero(dones):
            seen_terminal = True
            assert infos[i]["terminal_observation"].shape == obs[i].shape
            assert "episode" in infos[i]
    assert seen_terminal
    model = MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=128, n_epochs=1, seed=0, device="cpu")
    model.learn(1024)
    assert model.num_timesteps >= 1024


# --------------------------------------------------------------------------- matches
def test_batched_match_replays_through_the_reference_engine():
    """Deterministic agents: every hand's chips are those of the same deck played through
    the AEC engine with the same agents."""
    specs = ["smart:6", "bold:5.5", "threshold:5"]
    chips = play_chips(specs, num_players=3, hands=300, seed=11, batch=64)
    e = raw_env(num_players=3)
    agents = [make_agent(s, e) for s in specs]
    decks = match_decks(11, 0, 300, np.arange(40))
    for i, deck in enumerate(decks):
        e.reset(seed=0, options={"deck": [CARD_IDS[c] for c in deck], "banker": 0})
        g = e.game
        while g.phase != Phase.OVER:
            g.apply(agents[g.seat](e.observe(f"player_{g.seat}")))
        assert g.chips == chips[i].tolist(), i
    # the same hands whatever the batch size
    np.testing.assert_array_equal(chips, play_chips(specs, num_players=3, hands=300, seed=11, batch=7))


@pytest.mark.parametrize(
    "specs, n, rules",
    [
        (["smart:6", "bold:5.5"], 2, "spanish"),
        (["bold:5", "smart:4.5"], 2, "spanish"),
        (["smart:6", "threshold:5", "bold:6", "banker:5.5", "smart:5"], 5, "spanish"),
        (["banker:6.5", *["bold:5.5", "threshold:4.5", "smart:6"] * 3, "threshold:7", "bold:7.5"], 12, "spanish"),
        (["smart:5.5", "bold:5", "threshold:6"], 3, {"bet_levels": [2, 5, 7], "four_swap": "mandatory"}),
        (["smart:6", "bold:5.5", "smart:7"], 3, {"all_face_up": True, "draw_face_down": False, "max_splits": 1}),
        (["smart:6", "bold:5.5"], 2, {"reveal_seven_half": True, "split_any_pair": True, "remove_sotas": True}),
        (["smart:6", "bold:5.5", "threshold:5", "smart:5"], 4, "italian"),  # the matta: visible totals, reale
        (["smart:6", "bold:5.5", "threshold:6", "bold:5"], 4, "spanish_full"),  # the auction, shots, the chase
        (["quattro:6", "quattro:5.5", "quattro:7", "quattro:6.5"], 4, "quattro_e_mezzo"),
        (["banker:6", "threshold:5.5", "smart:5"], 3, {"min_stand": 6.0}),  # thresholds below min_stand draw on
        (["quattro:6", "threshold:4", "quattro:5"], 3, "quattro_e_mezzo"),
        # the hand's italian and old-French options: burns, the ½ ace, the triplèe, side bets,
        # face-down hits only, a forced face, another limit
        (
            ["smart:6", "bold:5.5", "threshold:5", "smart:5"],
            4,
            {
                "preset": "italian",
                "burn_three_four": True,
                "burn_drawn": True,
                "ace_half": True,
                "triplee": True,
                "side_bets": True,
            },
        ),
        (
            ["smart:6", "bold:5.5", "threshold:4"],
            3,
            {"max_face_down": "all", "split_first_hand_only": True, "limit": 6.5},
        ),
        (["smart:6", "bold:5.5", "threshold:4"], 3, {"face_down_choice": False, "triplee": True}),
        # a limit above 7½: the smart banker chases standing hands it can still beat up to the limit
        (["smart:6", "threshold:7.5", "threshold:7"], 3, {"limit": 15.0}),
    ],  # fmt: skip
)
def test_native_heuristics_decide_as_their_action_probs(specs, n, rules):
    """The kernels' heuristics (from the state) and the agents' own batched decisions (from
    the observations) play every hand alike."""
    a = play_chips(specs, rules=rules, num_players=n, hands=3000, seed=5, batch=512)
    b = play_chips(specs, rules=rules, num_players=n, hands=3000, seed=5, batch=512, native=False)
    np.testing.assert_array_equal(a, b)
    v = SeatVectorEnv(num_envs=64, num_players=n, rules=rules, opponents=specs[0], copunters=specs[1], seed=1)
    assert (v._params[[i for i, x in enumerate(v._agents) if x is not None], 0] > 0).all()


@pytest.mark.parametrize("banker, punters, n", [("smart:6", "bold:5.5", 2), ("random", ["random", "threshold:5.5"], 3)])
def test_batched_and_aec_matches_agree_in_distribution(banker, punters, n):
    a = play_match(banker, punters, num_players=n, hands=20_000, seed=3, engine="batched")
    b = play_match(banker, punters, num_players=n, hands=20_000, seed=3, engine="aec")
    assert a.extra["engine"] == "batched" and b.extra["engine"] == "aec"
    for s in range(n):
        se = math.hypot(a.seats[s].sd, b.seats[s].sd) / math.sqrt(20_000)
        assert abs(a.seats[s].mean - b.seats[s].mean) < 4.5 * se, (s, a.seats[s], b.seats[s])


def test_play_match_engine_choice():
    assert play_match("banker:6", "threshold:5.5", hands=50, seed=0).extra["engine"] == "batched"
    assert play_match("banker:6", "threshold:5.5", hands=50, seed=0, recorder=lambda *a: None).extra["engine"] == "aec"
    assert play_match("banker:6", "threshold:5.5", rules="italian", hands=50).extra["engine"] == "batched"
    assert play_match("banker:6", "threshold:5.5", rules="spanish_full", hands=50).extra["engine"] == "batched"
    assert (
        play_match("banker:6", "threshold:5.5", rules={"hands_per_episode": 2}, hands=50).extra["engine"] == "batched"
    )
    with pytest.raises(ValueError, match="recorder needs engine='aec'"):
        play_match("banker:6", "threshold:5.5", hands=5, engine="batched", recorder=lambda *a: None)
    # amounts beyond the kernels' int16: tests/test_table.py (the int64 row compiles once there)


def test_seat_tables_take_learned_snapshots_and_the_learner_needs_batched_rules(tmp_path):
    """``training.learners.seat_venv``: SeatVectorEnv tables behind the SB3 adapter, whose
    pools take learned snapshots (asked through ``action_probs``); and a training config
    the batched engine cannot play is refused before anything starts."""
    pytest.importorskip("sb3_contrib")
    import yaml

    from tests.test_train_cli import TINY
    from training.config import load_config
    from training.learners import make_model, make_venv, seat_venv

    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump(TINY))
    cfg = load_config(path)
    venv = seat_venv("banker", cfg.rules, 2, "threshold:5.5", None, 8, 0)
    assert isinstance(venv.venv.venv, SeatVectorEnv) and venv.num_envs == 8
    snap = tmp_path / "punter.zip"
    make_model(cfg.punter, make_venv(cfg, "punter", 1), 0, None).save(snap)
    venv.env_method("set_opponents", {"threshold:5.5": 0.5, f"ppo:{snap}": 0.5}, None)
    kinds = venv.venv.venv._params[:, 0]
    assert sorted(kinds.tolist()) == [0, 2]  # the heuristic in the kernels, the snapshot through action_probs
    venv.reset()
    rng = np.array([1], np.uint64)
    for _ in range(64):  # the learned punter plays inside step
        venv.step(random_legal_actions(venv.venv.venv.action_masks(), rng))
    huge = tmp_path / "huge.yaml"
    huge.write_text("preset: spanish\nbet_levels: [1, 5000]\n")
    with pytest.raises(
        ValueError, match="the vine learner needs rules the batched engine plays.*can move 80,000 chips"
    ):
        load_config(path, [f"rules={huge}"])
