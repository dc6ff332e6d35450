"""Differential testing of the batched engine against the reference engine.

The same decks and the same action sequences go to ``BatchedTables`` and to one reference
engine per table (``game.Game``, the readable specification, its observations from the
event-driven ``encoding.Encoder``); after every step the observations and masks of **every
seat** (full and suit-folded), the events, the step's rewards and the terminations must be
identical.

Mechanic groups (each a deck stacking, an action bias and table sizes):

| group | decks | actions | tables |
| --- | --- | --- | --- |
| ``random`` | uniform | uniform over the legal ones | 2..12 |
| ``swaps`` | 4s at the punters' initial cards and after them | swap a 4 when legal (80%) | 2..12 |
| ``splits`` | the figures on top | hit (85%), split (75%) | 2..5, and 6..12 with ``max_splits: 3`` |
| ``seven_half`` | 7s and figures on top | hit (70%) | 2..12 |
| ``raises`` | uniform | raise when legal (70%), low first stakes | 2..12 |
| ``exhaustion`` | the figures, aces and 2s on top | hit (95%), split (90%): the deck runs out | 8..12, ``max_splits: 3`` |
| ``rules`` | any of the above | any of the above | 2..12, with random supported rule options |
| ``presets`` | any of the above | any of the above | 2, 4 and 7, every preset the batched engine plays |
| ``wild`` | the wild card, 7s and figures on top | hit (70%) | 2..12, the wild card and the reale with random options |
| ``points`` | figures (nine make an instant 4½), or 6s and the wild card (doubles), or uniform | hit (60%) | 2..12, quattro e mezzo and variations of its options |
| ``sessions`` | any of the groups before ``rules`` | as that group | 2..12, several hands per episode (or quattro e mezzo to its target), the chips each seat starts with, every way the bank passes, the shoe; the reference engine's later decks and reshuffles are the kernels' (``kernels.session_shuffle``) |
| ``italian`` | aces, 3s, 4s and 7s on top | burn (60%), declare an ace ½ (60%), a side bet (50%), hit (60%) | 2..12, the italian and old-French options of the hand (burns, the ½ ace, the triplèe, side bets, every card face-down, the forced face, splits from the first hand only, other limits) on random rules |

``python -m tests.batched_differential --hands 10000`` runs every group with that many
hands (the test suite runs a few hundred per group).
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from typing import Any

import numpy as np

from siete_env import events as event_log
from siete_env.batched import BatchedTables, supported
from siete_env.cards import RANK
from siete_env.features import fold_suits
from siete_env.fuzz import batched_random_rules as random_rules  # the rule sets the batched engine plays
from siete_env.game import EV_DEAL, EV_NEW_HAND, EV_RESHUFFLE, EV_RESULT, HIT_DOWN, HIT_UP, SPLIT, Phase, Status
from siete_env.game import SWAP_FOUR as SWAP
from siete_env.rules import PRESETS as _PRESETS
from siete_env.rules import Rules, resolve_rules
from siete_env.settle import RuleFacts, half, is_reale
from tests.oracle import Encoder, Game

SEVEN_HALF = half(Rules().limit)  # the rules' limit (half points)

GROUPS = (
    "random", "swaps", "splits", "seven_half", "raises", "exhaustion", "rules", "presets", "wild", "points", "italian",
    "sessions",
)  # fmt: skip
MIXED = ("rules", "presets", "sessions")  # groups that deal and choose as one of the groups before them
PRESETS = tuple(p for p in _PRESETS if supported(p, 2))  # the presets the batched engine plays
SIZES = (2, 4, 7)


def _stack(deck: np.ndarray, want: np.ndarray, top: int, rng: np.random.Generator) -> np.ndarray:
    """``deck`` with the cards ``want`` (in random order) moved into the first ``top``
    places, the other cards after them in their order."""
    want = rng.permutation(want)[:top]
    rest = [c for c in deck if c not in set(want.tolist())]
    head = list(want) + rest[: max(0, top - len(want))]
    head = list(rng.permutation(head))
    return np.array(head + rest[max(0, top - len(want)) :], np.int32)


def make_deck(group: str, cards: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    deck = rng.permutation(cards).astype(np.int32)
    ranks = np.array([RANK[c] for c in cards])
    if group == "swaps":
        fours = cards[ranks == 4]
        top = int(rng.integers(n - 1, n + 5))
        return _stack(deck, fours, max(top, len(fours)), rng)
    if group == "splits":
        return _stack(deck, cards[ranks >= 10], int(rng.integers(n, n + 12)), rng)
    if group == "seven_half":
        return _stack(deck, cards[(ranks >= 10) | (ranks == 7)], int(rng.integers(n, n + 10)), rng)
    if group == "points":
        pick = rng.integers(3)
        if pick == 0:  # figures: a hand must draw to 4½, nine figures win the game at once
            return _stack(deck, cards[ranks >= 10], int(rng.integers(n, 13)), rng)
        if pick == 1:  # 6s and the matta: doubles
            return _stack(deck, cards[(ranks == 6) | (ranks == 12)], int(rng.integers(n, n + 6)), rng)
        return deck
    if group == "wild":  # the wild card (a king of oros by default), 7s and figures first
        return _stack(deck, cards[(ranks >= 10) | (ranks == 7)], int(rng.integers(n, n + 8)), rng)
    if group == "italian":  # what the italian options act on: aces (½), 3s and 4s (burns), 7s (triplèe)
        return _stack(
            deck, cards[(ranks == 1) | (ranks == 3) | (ranks == 4) | (ranks == 7)], int(rng.integers(n, n + 10)), rng
        )
    if group == "exhaustion":  # the low cards first: long hands
        return _stack(deck, cards[(ranks >= 10) | (ranks <= 2)], len(cards[(ranks >= 10) | (ranks <= 2)]), rng)
    return deck


def choose(group: str, mask: np.ndarray, rng: np.random.Generator, names: tuple[str, ...]) -> int:
    legal = np.flatnonzero(mask)
    bias = {
        "swaps": [(SWAP, 0.8)],
        "splits": [(SPLIT, 0.75), (HIT_UP, 0.45), (HIT_DOWN, 0.75)],
        "seven_half": [(HIT_UP, 0.35), (HIT_DOWN, 0.55)],
        "wild": [(HIT_UP, 0.7), (HIT_DOWN, 0.7)],
        "points": [(HIT_UP, 0.6)],
        "exhaustion": [(SPLIT, 0.9), (HIT_UP, 0.5), (HIT_DOWN, 0.9)],
    }.get(group, [])
    for a, p in bias:
        if mask[a] and rng.random() < p:
            return a
    if group == "italian":
        for prefix, p in (("BURN", 0.6), ("ACE_HALF", 0.6), ("SIDE_BET_", 0.5), ("HIT_", 0.6)):
            some = [a for a in legal if names[a].startswith(prefix)]
            if some and rng.random() < p:
                return int(rng.choice(some))
    if group == "raises":
        raises = [a for a in legal if names[a].startswith("RAISE_")]
        if raises and rng.random() < 0.7:
            return int(rng.choice(raises))
        bets = [a for a in legal if names[a].startswith("BET_")]
        if bets and rng.random() < 0.6:  # a low stake leaves room to raise
            return int(bets[0])
    return int(rng.choice(legal))


def _sizes(group: str, rng: np.random.Generator) -> tuple[int, dict[str, Any]]:
    rules: dict[str, Any] = {"preset": "spanish"}
    if group == "exhaustion":  # split hands take more cards
        rules["max_splits"] = 3
        return int(rng.integers(8, 13)), rules
    if group == "splits":
        n = int(rng.integers(2, 13))
        if n >= 6:
            rules["max_splits"] = 3
        return n, rules
    if group == "rules":
        n = int(rng.integers(2, 13))
        return n, random_rules(rng, n)
    if group == "points":
        rules = {"preset": "quattro_e_mezzo"}
        if rng.random() < 0.3:
            rules["more_cards_win_ties"] = False
        if rng.random() < 0.3:
            rules["upset"] = None
        if rng.random() < 0.3:
            rules["bank_totals"] = [float(rng.choice([5.0, 6.0, 7.5]))]
        if rng.random() < 0.3:
            rules["instant_win"] = [4.5, int(rng.integers(5, 10))]
        return int(rng.integers(2, 13)), rules
    if group == "italian":
        return _valid_rules(rng, _italian_rules)
    if group == "sessions":
        return _valid_rules(rng, _session_rules)
    if group == "wild":
        n = int(rng.integers(2, 13))
        rules = random_rules(rng, n)
        rules["wild_card"] = rules.get("wild_card", "12o")
        rules["reale_pays"] = rules.get("reale_pays", 2)
        return n, rules
    return int(rng.integers(2, 13)), rules


def _valid_rules(rng: np.random.Generator, draw: Any) -> tuple[int, dict[str, Any]]:
    """``draw(rng, n)``'s rules at a random table size, drawn again while they clash (options
    drawn separately may: the rules say so)."""
    while True:
        n = int(rng.integers(2, 13))
        rules = draw(rng, n)
        try:
            resolve_rules(rules)
        except ValueError:
            continue
        return n, rules


def _italian_rules(rng: np.random.Generator, n: int) -> dict[str, Any]:
    rules = random_rules(rng, n)
    rules["preset"] = str(rng.choice(["spanish", "italian"]))
    for name, p in (("burn_three_four", 0.6), ("ace_half", 0.6), ("triplee", 0.5), ("side_bets", 0.4)):
        if rng.random() < p and (name != "side_bets" or n >= 3):
            rules[name] = True
    if rules.get("burn_three_four"):
        rules["four_swap"] = "off"
    return rules


def _session_rules(rng: np.random.Generator, n: int) -> dict[str, Any]:
    if rng.random() < 0.2:
        return {"preset": "quattro_e_mezzo", "play_to_target": True, "target_score": int(rng.integers(3, 12))}
    rules = random_rules(rng, n)
    rules["preset"] = str(rng.choice(["spanish", "italian", "spanish_full", "latin"]))
    rules["hands_per_episode"] = int(rng.integers(2, 7))
    rules["bank_passes"] = str(rng.choice(["seven_half", "reale", "never", "when_exhausted"]))
    if rng.random() < 0.5:
        rules["reshuffle"] = "when_exhausted"
    if rng.random() < 0.5:
        rules["starting_chips"] = int(rng.integers(1, 25))
    return rules


class Mismatch(AssertionError):
    pass


class Reference:
    """One table of the reference engine: ``Game`` and its ``Encoder``, played as the
    environment plays it (observations with the acting seat's mask, rewards from payments)."""

    def __init__(self, n: int, rules: Any):
        self.rules = resolve_rules(rules)
        self.n = n
        self.game = Game(self.rules, n, lambda cards=None: list(cards or ()))
        self.encoder = Encoder(self.game)
        self.layout = self.encoder.layout
        self.A = len(self.game.actions)
        self.rewards = [0] * n

    def reset(self, deck: list[int], banker: int) -> None:
        self.game.start(banker, deck)
        self.game.payments.clear()
        self.encoder.reset()

    def observe(self, s: int) -> tuple[np.ndarray, np.ndarray]:
        g = self.game
        mask = np.zeros(self.A, np.int8)
        if s == g.seat and g.phase != Phase.OVER:
            mask[list(g.legal_actions())] = 1
        return self.encoder.observe(s), mask

    def step(self, a: int) -> None:
        g = self.game
        g.apply(a)
        self.rewards = [0] * self.n
        for frm, to, amount in g.payments:
            if frm >= 0:
                self.rewards[frm] -= amount
            self.rewards[to] += amount
        g.payments.clear()

    def table_text(self) -> str:
        g = self.game
        return "\n".join(
            f"seat {s} hand {h}: cards {g.cards[s * g.H + h]} status {Status(g.status[s * g.H + h]).name} "
            f"stake {g.stake[s * g.H + h]} chips {g.chips[s]}"
            for s in range(g.n)
            for h in range(g.nhands[s])
        )


class _KernelShuffle:
    """The reference engine's shuffle for a session at table ``i``: the decks and reshuffles
    the kernels draw from the row's seed (``kernels.session_shuffle``), so that both engines
    play the same cards after the first hand."""

    def __init__(self, bt: BatchedTables, i: int, game: Any):
        self.bt, self.i, self.game = bt, i, game
        self.reshuffles = 0

    def __call__(self, cards: list[int] | None = None) -> list[int]:
        from siete_env.batched import kernels as K

        words = self.bt.state[self.i, K.SEED0 : K.SEED0 + 4].astype(np.int64) & 0xFFFF
        seed = np.uint64(sum(int(w) << (16 * j) for j, w in enumerate(words)))
        if cards is None:  # hand ``hand_no``'s fresh deck
            stream, src = 2 * self.game.hand_no, self.bt.deck_cards
        else:  # the shoe's discards
            stream, src = 2 * self.reshuffles + 1, cards
            self.reshuffles += 1
        src = np.asarray(src, np.int64)
        out = np.empty(len(src), np.int64)
        K.session_shuffle(seed, stream, src, len(src), out)
        return out.tolist()


def run_table_set(group: str, n: int, rules: dict[str, Any], hands: int, rng: np.random.Generator,
                  counts: Counter, batch: int = 64, fold_check: bool = True) -> None:  # fmt: skip
    """``hands`` hands of ``group`` at ``n`` seats under ``rules``, ``batch`` tables at a time."""
    bt = BatchedTables(min(batch, hands), n, rules, events=event_log.EVENT_AREA)
    print("SET", n, rules, flush=True) if __import__("os").environ.get("DIFF_DEBUG") else None
    names = bt.action_names
    sub = rng.choice(GROUPS[: GROUPS.index("rules")]) if group in MIXED else group
    facts = RuleFacts(resolve_rules(rules))
    envs = [Reference(n, rules) for _ in range(bt.N)]
    logs: list[list[tuple]] = [[] for _ in range(bt.N)]  # the events each table's kernels logged
    started = 0

    def check_events(i: int, after: str) -> None:
        logs[i].extend(event_log.read(bt.state[i], bt.cfg))
        ref = envs[i].game.events
        if logs[i] != ref:
            j = next(
                (j for j, (a, b) in enumerate(zip(logs[i], ref, strict=False)) if a != b), min(len(ref), len(logs[i]))
            )
            raise Mismatch(
                f"{group} n={n} rules={rules}: event {j} differs after {after}: reference {ref[j - 2 : j + 3]}, "
                f"kernels {logs[i][j - 2 : j + 3]}\n{envs[i].table_text()}"
            )

    def deal(i: int) -> None:
        nonlocal started
        deck = make_deck(sub, bt.deck_cards, n, rng)
        banker = int(rng.integers(n))
        event_log.clear(bt.state[i])
        bt.start([i], [banker], deck[None, :])
        envs[i].game.shuffle = _KernelShuffle(bt, i, envs[i].game)  # a session's later decks: the kernels'
        envs[i].reset(deck.tolist(), banker)
        logs[i] = []
        check_events(i, "the deal")
        started += 1

    live = []
    for i in range(bt.N):
        deal(i)
        live.append(i)
    while live:
        games = np.array(live)
        for s in range(n):
            obs, masks = bt.observe(games, s)
            fobs = bt.observe(games, s, fold=True)[0] if fold_check else None
            for j, i in enumerate(live):
                ref_obs, ref_mask = envs[i].observe(s)
                if not (np.array_equal(ref_obs, obs[j]) and np.array_equal(ref_mask, masks[j])):
                    d = np.flatnonzero(ref_obs != obs[j])
                    raise Mismatch(
                        f"{group} n={n} rules={rules} seat {s}: observation differs at {d[:8].tolist()} "
                        f"(reference {ref_obs[d[:8]].tolist()}, batched {obs[j][d[:8]].tolist()}); masks "
                        f"{ref_mask.tolist()} vs {masks[j].tolist()}\n{envs[i].table_text()}"
                    )
                if fold_check and not np.array_equal(fold_suits(ref_obs, envs[i].layout), fobs[j]):
                    raise Mismatch(f"{group} n={n} rules={rules} seat {s}: folded observation differs")
        acting = bt.seat[games]
        masks = bt.legal_masks(games)
        actions = np.array([choose(sub, masks[j], rng, names) for j in range(len(live))])
        before = bt.chips[games].copy()
        for i in live:
            event_log.clear(bt.state[i])
        bt.apply(games, actions)
        after = bt.chips[games]
        nxt = []
        for j, i in enumerate(live):
            e = envs[i]
            assert e.game.acting_seat == acting[j], (e.game.acting_seat, acting[j])
            a = int(actions[j])
            counts[names[a].split("_")[0] if names[a].startswith(("BET_", "RAISE_")) else names[a]] += 1
            e.step(a)
            check_events(i, names[a])
            for s in range(n):
                if e.rewards[s] != after[j, s] - before[j, s]:
                    raise Mismatch(
                        f"{group} n={n} rules={rules}: reward of seat {s} differs after {names[a]} (reference "
                        f"{e.rewards[s]}, batched {after[j, s] - before[j, s]})\n{e.table_text()}"
                    )
            over = bool(bt.over()[i])
            if over != (e.game.phase == Phase.OVER):
                raise Mismatch(f"{group} n={n} rules={rules}: termination differs")
            if over:
                g = e.game
                counts["hands"] += 1
                counts["banker 7½"] += g.total[g.banker * g.H] == SEVEN_HALF
                counts["punter 7½"] += sum(
                    g.total[k] == SEVEN_HALF for s in g.order for k in range(s * g.H, s * g.H + g.nhands[s])
                )
                counts["reale"] += sum(
                    is_reale(g.cards[k], g.total[k], facts)
                    for s in (*g.order, g.banker)
                    for k in range(s * g.H, s * g.H + g.nhands[s])
                )
                if facts.points_game:
                    results = [j for j, ev in enumerate(g.events) if ev[0] == EV_RESULT]
                    counts["bank tie dealt"] += bool(results) and any(
                        ev[0] == EV_DEAL for ev in g.events[results[-1] :]
                    )
                    counts["instant win"] += g.instant >= 0
                    counts["double"] += any(g.double)
                counts["wild card held"] += facts.wild >= 0 and any(facts.wild in cards for cards in g.cards)
                counts["punter busts"] += sum(
                    g.status[k] == Status.BUST for s in g.order for k in range(s * g.H, s * g.H + g.nhands[s])
                )
                counts["deck ran out"] += g.pos >= len(g.deck)
                counts["split hands"] += sum(g.nhands) - n
                counts["triplee"] += sum(g.triple)
                if g.rules.hands_per_episode > 1 or g.rules.play_to_target:  # a session
                    new_hands = [ev for ev in g.events if ev[0] == EV_NEW_HAND]
                    counts["session hands"] += g.hand_no
                    counts["bank passed"] += sum(a[1] != b[1] for a, b in zip(new_hands, new_hands[1:], strict=False))
                    counts["reshuffles"] += sum(ev[0] == EV_RESHUFFLE for ev in g.events)
                    counts["seats out"] += sum(len(ev[6]) for ev in new_hands)
                if started < hands:
                    deal(i)
                    nxt.append(i)
            else:
                nxt.append(i)
        live = nxt


def run_group(group: str, hands: int, seed: int = 0, per_set: int = 100, batch: int = 64) -> Counter:
    """``hands`` hands of a mechanic group, in sets of ``per_set`` hands at one table size."""
    rng = np.random.default_rng([seed, GROUPS.index(group)])
    counts: Counter = Counter()
    done = 0
    combos = [(n, {"preset": p}) for p in PRESETS for n in SIZES]  # "presets": each in turn
    if group == "presets":
        per_set = max(1, min(per_set, hands // len(combos)))
    i = 0
    while done < hands:
        k = min(per_set, hands - done)
        n, rules = combos[i % len(combos)] if group == "presets" else _sizes(group, rng)
        run_table_set(group, n, rules, k, rng, counts, batch=batch)
        done += k
        i += 1
    return counts


def main() -> None:
    ap = argparse.ArgumentParser(description="batched engine vs reference engine, step by step")
    ap.add_argument("--hands", type=int, default=10_000, help="hands per mechanic group")
    ap.add_argument("--groups", nargs="+", default=list(GROUPS), choices=GROUPS)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    for group in args.groups:
        t0 = time.perf_counter()
        c = run_group(group, args.hands, args.seed)
        print(f"{group:11s} {c['hands']:6d} hands identical in {time.perf_counter() - t0:6.1f} s: " + ", ".join(
            f"{k} {v}" for k, v in sorted(c.items()) if k != "hands"
        ), flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
