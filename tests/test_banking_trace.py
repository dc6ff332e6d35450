"""The banking game's play is pinned: a seeded random-legal trace of the six banking presets
(observations, masks, rewards, chips) hashes to the value recorded at 68b0da9, the commit
before the rules became data (settle.py, issue 23). A rule change that moves any banking
preset's play changes the hash; a deliberate one records the new value here with why.

Re-recorded once since: when the AEC environment came to step the kernels
(``siete_env.table``), a session's later decks and reshuffles came from the row's seed
(``kernels.session_shuffle``) instead of the environment's generator. The one-hand episodes'
part of the trace (6,401 steps) hashes as before (``ef0c18fcb728aa77...`` both sides); the
three-hand sessions deal other cards."""

from __future__ import annotations

import hashlib

import numpy as np

from siete_env import raw_env

BANKING_PRESETS = ["spanish", "latin", "blackjack_style", "spanish_full", "italian", "french"]
RECORDED = "6fe9681dd83578e53450be2226666593503b3118575ae22b471e307a831e5388"  # 24,920 steps (25,407 at 68b0da9)


def test_banking_presets_play_as_recorded():
    h = hashlib.sha256()
    steps = 0
    for preset in BANKING_PRESETS:
        for n in (2, 3, 5):
            for extra in ({}, {"hands_per_episode": 3}):
                e = raw_env(num_players=n, rules={"preset": preset, **extra})
                for seed in range(40):
                    e.reset(seed=seed)
                    rng = np.random.default_rng(seed)
                    for _agent in e.agent_iter(5000):
                        obs, r, term, trunc, _ = e.last()
                        h.update(obs["observation"].tobytes())
                        h.update(obs["action_mask"].tobytes())
                        h.update(repr(r).encode())
                        if term or trunc:
                            e.step(None)
                            continue
                        legal = np.flatnonzero(obs["action_mask"])
                        e.step(int(legal[rng.integers(len(legal))]))
                        steps += 1
                    h.update(repr(e.game.chips).encode())
    assert steps == 24_920
    assert h.hexdigest() == RECORDED
