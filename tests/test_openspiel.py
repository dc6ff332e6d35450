"""The OpenSpiel game (``siete_env.openspiel``; skipped without the ``openspiel`` extra):
OpenSpiel's own random-simulation checks, the same play as the PettingZoo environment, chance
nodes card by card (the swapped 4 where the engine puts it), information states, and
policies in both directions measured against the exact evaluator."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

import siete_env.openspiel  # noqa: E402,F401  (registers the game)
from agents.specs import make_agent  # noqa: E402
from siete_env import PRESETS, raw_env  # noqa: E402
from siete_env.cards import CARD_IDS, CARD_INDEX  # noqa: E402
from siete_env.openspiel.game import max_decisions  # noqa: E402
from siete_env.openspiel.policy import from_openspiel, sample_returns, to_openspiel  # noqa: E402
from siete_env.openspiel.solvers import solvers  # noqa: E402

NAME = "python_siete_y_media"
SINGLE = "bet_levels:[1] four_swap:off max_splits:0"
SINGLE_RULES = {"preset": "spanish", "bet_levels": [1], "four_swap": "off", "max_splits": 0}


def _random_episode(game, rng, choose=None):
    """Play one episode with uniform choices; returns the final state."""
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = [o for o, _ in state.chance_outcomes()]
            state.apply_action(int(rng.choice(outcomes)))
        else:
            legal = state.legal_actions()
            state.apply_action(int(choose(state, legal) if choose else rng.choice(legal)))
    return state


def test_load_game_and_parameters():
    g = pyspiel.load_game(NAME)
    assert g.num_players() == 2 and g.num_distinct_actions() == 15
    assert g.get_type().information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert g.get_type().chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    g4 = pyspiel.load_game(f"{NAME}(players=4,preset=italian)")
    assert g4.num_players() == 4 and g4.cfg.rules.deck == "italian"
    g1 = pyspiel.load_game(NAME, {"rules": SINGLE, "recall": "observation"})
    assert g1.cfg.rules.bet_levels == (1,) and g1.cfg.rules.four_swap == "off" and g1.num_distinct_actions() == 7
    assert g1.observation_tensor_shape() == [79]  # the suit-folded heads-up observation
    assert g1.information_state_tensor_shape() == [79 + 7]  # + the legal actions
    assert pyspiel.load_game(str(g1)).cfg is g1.cfg  # the game string round-trips
    for bad, match in (
        ({"rules": "max_splits=0"}, "option:value"),
        ({"rules": "fourswap:off"}, "unknown rule option"),
        ({"players": 13}, "players must be"),
        ({"recall": "total"}, "recall must be"),
        ({"banker": 2}, "banker must be"),
        ({"preset": "klondike"}, "unknown rules preset"),
    ):
        with pytest.raises(Exception, match=match):
            pyspiel.load_game(NAME, bad)


@pytest.mark.parametrize("preset", list(PRESETS))
def test_random_sim_test_every_preset(preset):
    if PRESETS[preset].get("scoring") == "points":  # quattro e mezzo: general-sum, refused
        with pytest.raises(Exception, match="zero-sum banking game"):
            pyspiel.load_game(NAME, {"players": 4, "preset": preset})
        return
    for players in (2, 4):
        game = pyspiel.load_game(NAME, {"players": players, "preset": preset})
        pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


@pytest.mark.parametrize(
    "params",
    [
        {"rules": SINGLE, "recall": "observation"},
        {"banker": -1, "players": 3, "rules": "hands_per_episode:3"},
        {"players": 3, "rules": "fusilar:true canto:true banker_must_chase:true side_bets:true"},
        {"players": 5, "preset": "italian", "rules": "burn_three_four:true ace_half:true triplee:true"},
        {"players": 3, "rules": "bank_auction:true starting_chips:4 hands_per_episode:3", "suits": "keep"},
        {"players": 6, "rules": "reshuffle:when_exhausted bank_passes:when_exhausted hands_per_episode:6"},
    ],
)
def test_random_sim_test_options(params):
    pyspiel.random_sim_test(pyspiel.load_game(NAME, params), num_sims=5, serialize=True, verbose=False)


def _free_outcomes(state):
    """The chance outcomes of a history, minus the first banker and the forced swapped 4s:
    a stacked deck for the environment (the engine puts the 4s back itself)."""
    deck, banker = [], None
    replay = state.get_game().new_initial_state()
    for a in state.history():
        if replay.is_chance_node():
            outcomes = replay.chance_outcomes()
            if replay.table.banker < 0:
                banker = a
            elif len(outcomes) > 1:
                deck.append(CARD_IDS[a])
        replay.apply_action(a)
    return deck, banker


@pytest.mark.parametrize(
    "players, rules",
    [
        (2, "spanish"),
        (3, "spanish"),
        (2, {"preset": "spanish", "four_swap": "mandatory"}),
        (4, "italian"),
        (3, "french"),
        (3, "spanish_full"),
        (2, "blackjack_style"),
        (5, "latin"),
    ],
)
def test_same_play_as_the_environment(players, rules):
    """Every episode played through OpenSpiel, dealt again to the PettingZoo environment from
    a stacked deck (the free chance outcomes), gives every seat the same observation at every
    decision, the same legal actions and the same chips."""
    rng = np.random.default_rng(players)
    spec = rules if isinstance(rules, str) else {k: v for k, v in rules.items()}
    params = {"players": players, "banker": -1, "suits": "keep"}
    if isinstance(spec, str):
        params["preset"] = spec
    else:
        params["preset"] = spec.pop("preset")
        params["rules"] = " ".join(f"{k}:{v}" for k, v in spec.items())
    game = pyspiel.load_game(NAME, params)
    cfg = game.cfg
    for _ in range(12):
        final = _random_episode(game, rng)
        deck, banker = _free_outcomes(final)
        e = raw_env(num_players=players, rules=cfg.rules)
        e.reset(seed=0, options={"deck": deck, "banker": banker})
        replay = game.new_initial_state()
        for a in final.history():
            if replay.is_chance_node():
                replay.apply_action(a)
                continue
            p = replay.current_player()
            assert e.agent_selection == f"player_{p}"
            for s in range(players):
                ours = cfg.observe(replay.engine, s)
                np.testing.assert_array_equal(ours, e.observe(f"player_{s}")["observation"])
                np.testing.assert_array_equal(replay.observation_tensor(s), ours)
            mask = e.observe(f"player_{p}")["action_mask"]
            assert replay.legal_actions() == [int(i) for i in np.flatnonzero(mask)]
            replay.apply_action(a)
            e.step(a)
        assert replay.is_terminal() and all(e.terminations.values())
        assert final.returns() == [float(c) for c in e.game.chips]


def _play_to(game, outcomes, actions):
    """Apply chance outcomes (card ids, in dealing order) and player actions (names) in turn:
    at a chance node the next card, at a decision the next action."""
    s = game.new_initial_state()
    names = game.cfg.action_names
    outcomes, actions = list(outcomes), list(actions)
    while outcomes or actions:
        if s.is_chance_node():
            s.apply_action(CARD_INDEX[outcomes.pop(0)])
        else:
            s.apply_action(names.index(actions.pop(0)))
    return s


def test_chance_nodes_card_by_card_and_the_swapped_four():
    """Every card dealt is a chance node, uniform over the cards not yet dealt; a swapped 4
    goes back where the engine puts it (8 players: after the deal and the replacement, deck
    position 9 + (40 - 9) // 2 = 24) and that draw's chance node has the 4 as its only outcome."""
    game = pyspiel.load_game(NAME, {"players": 8})
    names = game.cfg.action_names
    rng = np.random.default_rng(1)
    s = game.new_initial_state()
    swapped = False
    while not s.is_terminal():
        if s.is_chance_node():
            outcomes = [o for o, p in s.chance_outcomes()]
            probs = {p for _, p in s.chance_outcomes()}
            drawn = len(s.table.cards)
            if drawn == 24 and swapped:
                assert outcomes == [CARD_INDEX["4o"]]
                return
            assert len(probs) == 1 and probs.pop() == pytest.approx(1 / len(outcomes))
            assert len(outcomes) == 40 - drawn and not set(outcomes) & set(s.table.cards)
            s.apply_action(CARD_INDEX["4o"] if drawn == 0 else int(rng.choice(outcomes)))
            continue
        legal = [names[a] for a in s.legal_actions()]
        if "SWAP_FOUR" in legal and not swapped:
            assert s.current_player() == 1  # the first punter, dealt the 4o
            swapped = True
            choice = "SWAP_FOUR"
        else:
            choice = (
                next(a for a in ("HIT_UP", "BET_1") if a in legal) if {"HIT_UP", "BET_1"} & set(legal) else legal[0]
            )
        s.apply_action(names.index(choice))
    pytest.fail("the deck never reached the swapped 4's place")


def test_clone_and_pickle_replay_the_history():
    game = pyspiel.load_game(NAME, {"players": 3, "banker": -1})
    rng = np.random.default_rng(5)
    s = game.new_initial_state()
    for _ in range(9):
        if s.is_chance_node():
            s.apply_action(int(rng.choice([o for o, _ in s.chance_outcomes()])))
        else:
            s.apply_action(int(rng.choice(s.legal_actions())))
    c = s.clone()
    assert str(c) == str(s) and c.history() == s.history()
    t = pickle.loads(pickle.dumps(s.table))
    assert t.cards == s.table.cards and t.actions == s.table.actions and t.current_player() == s.table.current_player()


def test_information_states():
    """Perfect recall: the information state holds the player's earlier decisions, so the
    same observation reached by different own moves gives different information states;
    each information state has one set of legal actions, and its tensor has the game's shape."""
    game = pyspiel.load_game(NAME, {"rules": "max_splits:0"})
    # a hidden 5 then a face-up ace, or a hidden ace turned up by HIT_DOWN on a 5: same observation
    a = _play_to(game, ["5o", "12o", "1o"], ["BET_1", "HIT_UP"])
    b = _play_to(game, ["1o", "12o", "5o"], ["BET_1", "HIT_DOWN"])
    assert a.current_player() == b.current_player() == 1
    assert a.observation_tensor(1) == b.observation_tensor(1)
    assert a.information_state_string(1) != b.information_state_string(1)
    assert a.information_state_tensor(1) != b.information_state_tensor(1)
    # a stake of 3 by a bet or by a raise: same observation, a raise open or not
    c = _play_to(game, ["5o", "12o", "1o"], ["BET_3", "HIT_UP"])
    d = _play_to(game, ["5o", "12o", "1o"], ["BET_1", "HIT_UP", "RAISE_3"])
    assert c.observation_tensor(1) == d.observation_tensor(1)
    assert c.legal_actions() != d.legal_actions()
    assert c.information_state_string(1) != d.information_state_string(1)
    obs_game = pyspiel.load_game(NAME, {"rules": "max_splits:0", "recall": "observation"})
    c2 = _play_to(obs_game, ["5o", "12o", "1o"], ["BET_3", "HIT_UP"])
    d2 = _play_to(obs_game, ["5o", "12o", "1o"], ["BET_1", "HIT_UP", "RAISE_3"])
    assert c2.information_state_string(1) != d2.information_state_string(1)  # the legal actions differ
    # one set of legal actions per information state, over random play
    rng = np.random.default_rng(0)
    for g in (game, obs_game, pyspiel.load_game(NAME, {"players": 3})):
        seen: dict[str, list[int]] = {}
        shape = g.information_state_tensor_shape()
        for _ in range(40):

            def choose(state, legal, seen=seen, shape=shape):
                key = state.information_state_string()
                assert seen.setdefault(key, legal) == legal
                assert len(state.information_state_tensor()) == shape[0]
                return rng.choice(legal)

            _random_episode(g, rng, choose)
    # the other player's face-down card is never in a string or tensor
    e = _play_to(game, ["5o", "7c"], [])
    assert "7" not in e.observation_string(1).split("|")[1] and "7" not in e.information_state_string(1)
    assert game.cfg.T == max_decisions(game.cfg.rules, 2)


def test_openspiel_sampling_agrees_with_the_exact_value():
    """threshold:5.5 against banker:6 played through OpenSpiel's API: the mean return lands
    inside the 95% interval of the exact value (-0.1777828)."""
    solve, _ = solvers()
    game = pyspiel.load_game(NAME, {"rules": SINGLE})
    env = raw_env(num_players=2, rules=SINGLE_RULES)
    punter, banker = make_agent("threshold:5.5", env), make_agent("banker:6", env)
    value = solve.expected_value(punter, banker, SINGLE_RULES)
    assert value == pytest.approx(-0.1777828, abs=1e-6)
    r = sample_returns(game, to_openspiel({0: banker, 1: punter}, game), 3000, seed=3)
    assert (r.sum(1) == 0).all()
    half = 1.96 * r[:, 1].std(ddof=1) / np.sqrt(len(r))
    assert abs(r[:, 1].mean() - value) <= half


def test_mccfr_policy_scored_by_the_exact_evaluator():
    """A short external-sampling MCCFR run: its average policy, looked up by information state,
    is scored by the exact evaluator; every table entry is a row the evaluator asks about."""
    solve, _ = solvers()
    game = pyspiel.load_game(NAME, {"rules": SINGLE, "recall": "observation"})
    solver = pyspiel.ExternalSamplingMCCFRSolver(game, seed=0)
    for _ in range(30):
        solver.run_iteration()
    avg = solver.average_policy()
    punter, banker = from_openspiel(avg, game, 1), from_openspiel(avg, game, 0)
    assert punter.table and banker.table
    nc = solve.nash_conv(punter, banker, SINGLE_RULES)
    assert 0 < nc.nash_conv < 2
    assert punter.used.all() and banker.used.all()  # every information state visited is a row of the evaluator
    # the adapter plays the table: the first punter decision it was trained on
    s = game.new_initial_state()
    while s.is_chance_node():
        s.apply_action(s.chance_outcomes()[0][0])
    env_obs = game.cfg.observe_raw(s.engine, 1)
    mask = np.zeros(game.num_distinct_actions(), np.int8)
    mask[s.legal_actions()] = 1
    got = punter.action_probs(env_obs[None], mask[None])[0]
    want = dict(avg.get_state_policy(s.information_state_string()))
    assert {a: got[a] for a in want} == pytest.approx(want)
    # and back: the adapted policy as an OpenSpiel policy gives the same probabilities
    back = to_openspiel({0: banker, 1: punter}, game).action_probabilities(s)
    assert back == pytest.approx(want)


def test_uniform_policy_direct_mode():
    from open_spiel.python import policy as os_policy

    game = pyspiel.load_game(NAME, {"rules": SINGLE, "recall": "observation"})
    uni = from_openspiel(os_policy.UniformRandomPolicy(game), game, 1)
    env = raw_env(num_players=2, rules=SINGLE_RULES)
    env.reset(seed=0)
    o = env.observe(env.agent_selection)
    mask = o["action_mask"]
    p = uni.action_probs(o["observation"][None], mask[None])[0]
    assert p == pytest.approx(mask / mask.sum())
    with pytest.raises(ValueError, match="recall=observation"):
        from_openspiel(os_policy.UniformRandomPolicy(game), pyspiel.load_game(NAME), 1)
