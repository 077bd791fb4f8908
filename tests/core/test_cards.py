import numpy as np
import pytest
from numba import njit

from cardzoo import cards


def test_card_text_round_trip_all_54():
    for c in range(54):
        assert cards.card_index(cards.card_text(c), jokers=True) == c


def test_card_index_accepts_ten_as_10_and_rejects_garbage():
    assert cards.card_index("10H") == cards.card_index("TH") == 2 * 13 + 8
    for bad in ["", "1H", "AX", "ZZ", "LJ", 5]:
        with pytest.raises(ValueError):
            cards.card_index(bad)


def test_parse_cards_ignores_packet_bars_and_checks_ids():
    assert cards.parse_cards("2C 3C | AS") == [0, 1, 51]
    assert cards.parse_cards([0, "AS"]) == [0, 51]
    with pytest.raises(ValueError):
        cards.parse_cards([52])


@njit
def _bits(m, k):
    return cards.popcount(m), cards.lowest_bit(m), cards.highest_bit(m), cards.nth_set_bit(m, k)


def test_bit_helpers_agree_with_python():
    rng = np.random.default_rng(0)
    for _ in range(200):
        m = int(rng.integers(1, 2**52))
        bits = cards.mask_to_cards(m)
        k = int(rng.integers(len(bits)))
        pop, low, high, kth = _bits(np.uint64(m), k)
        assert (int(pop), int(low), int(high), int(kth)) == (len(bits), bits[0], bits[-1], bits[k])


@njit
def _nth_both(m, k):
    return cards.nth_set_bit_loop(m, k), cards.nth_set_bit_pdep(m, k)


@pytest.mark.skipif(not cards.HAS_PDEP, reason="this CPU's pdep is not used (no BMI2, or microcoded)")
def test_nth_set_bit_pdep_agrees_with_the_loop_on_every_bit_of_full_words():
    rng = np.random.default_rng(1)
    words = [2**64 - 1, 1, 2**63, 2**54 - 1] + [int(w) for w in rng.integers(1, 2**63, 300, dtype=np.uint64)]
    for m in words:
        for k in range(bin(m).count("1")):
            assert _nth_both(np.uint64(m), k) == (cards.mask_to_cards(m)[k],) * 2


def test_kernel_generator_is_reproducible_and_uniform():
    g1 = cards.seed_generators(7, 3)
    g2 = cards.seed_generators(7, 3)
    assert (g1 == g2).all() and len(set(g1.tolist())) == 3
    counts = np.zeros(5, np.int64)

    @njit
    def draws(rng, n, out):
        for _ in range(n):
            out[cards.rng_below(rng, 0, 5)] += 1

    draws(g1, 50000, counts)
    assert counts.min() > 9000


def test_shuffle_prefix_is_a_seeded_permutation_of_the_prefix():
    from cardzoo.cards import seed_generators, shuffle_prefix

    buf = np.arange(10, dtype=np.int64)
    rng = seed_generators(7, 2)
    shuffle_prefix(buf, 6, rng, 1)
    assert sorted(buf[:6].tolist()) == list(range(6)) and buf[6:].tolist() == [6, 7, 8, 9]
    again = np.arange(10, dtype=np.int64)
    shuffle_prefix(again, 6, seed_generators(7, 2), 1)
    assert again.tolist() == buf.tolist() and rng[0] == seed_generators(7, 2)[0]   # only generator 1 moved
    seen = set()
    for s in range(200):
        b = np.arange(3, dtype=np.int64)
        shuffle_prefix(b, 3, seed_generators(s, 1), 0)
        seen.add(tuple(b.tolist()))
    assert len(seen) == 6                                   # every order of 3 cards occurs
