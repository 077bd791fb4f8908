"""benchmarks/limit_probe.py plays the game its docstring describes: a plain-Python twin written
from that description (same generator, same rules) gets the same trick counts game for game."""
from __future__ import annotations

import numpy as np

from benchmarks import limit_probe

M64 = (1 << 64) - 1


def _splitmix64(x):
    z = (x + 0x9E3779B97F4A7C15) & M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    z ^= z >> 31
    return z or 0x853C49E6748FEA9B


def _twin(seed):
    state = [_splitmix64(seed & M64)]

    def below(n):
        s = state[0]
        s ^= s >> 12
        s ^= (s << 25) & M64
        s ^= s >> 27
        state[0] = s
        return ((((s * 0x2545F4914F6CDD1D) & M64) >> 32) * n) >> 32

    deck = list(range(52))
    for i in range(51, 0, -1):
        j = below(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    hands = [sorted(deck[13 * p:13 * p + 13]) for p in range(4)]
    trump, leader = below(4), below(4)
    team0 = 0
    for _ in range(13):
        trick = []
        for k in range(4):
            p = (leader + k) % 4
            follow = [c for c in hands[p] if k and c // 13 == trick[0][1] // 13]
            legal = follow or hands[p]
            card = legal[below(len(legal))]
            hands[p].remove(card)
            trick.append((p, card))
        led = trick[0][1] // 13
        trumps = [(c % 13, p) for p, c in trick if c // 13 == trump]
        leader = max(trumps or [(c % 13, p) for p, c in trick if c // 13 == led])[1]
        team0 += leader % 2 == 0
    assert not any(hands)
    return team0


def test_probe_plays_the_documented_game():
    out = np.zeros(300, np.int8)
    total = limit_probe.play_games(1000, 300, out)
    assert total == out.sum()
    assert out.tolist() == [_twin(1000 + g) for g in range(300)]


def test_probe_is_one_game_per_seed_and_fair():
    out = np.zeros(4000, np.int8)
    limit_probe.play_games(7, 4000, out)
    one = np.zeros(1, np.int8)
    for g in (0, 1, 2, 3999):
        limit_probe.play_games(7 + g, 1, one)
        assert one[0] == out[g]
    assert abs(out.mean() - 6.5) < 0.2 and out.min() >= 0 and out.max() <= 13
