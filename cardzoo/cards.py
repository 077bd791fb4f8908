"""Cards as integers and bits, shared by every game.

Card index = suit * 13 + rank (ranks 2..A = 0..12; suits C, D, H, S = 0..3); the jokers are
52 (little, "LJ") and 53 (big, "BJ"). A single-deck card set is one uint64 with bit i = card i.
The numba helpers here are the only bit tricks the kernels use, so they live once.
"""
from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.extending import intrinsic

RANKS = "23456789TJQKA"
SUITS = "CDHS"
SUIT_SYMBOLS = "♣♦♥♠"
LITTLE_JOKER = 52
BIG_JOKER = 53
NUM_CARDS = 52

SUIT_MASKS = np.array([((1 << 13) - 1) << (13 * s) for s in range(4)], dtype=np.uint64)
FULL_DECK = np.uint64((1 << 52) - 1)


def suit_of(card: int) -> int:
    return card // 13


def rank_of(card: int) -> int:
    return card % 13


def rank_index(text: str) -> int:
    """Rank text ("2".."9", "T" or "10", "J", "Q", "K", "A") -> 0..12."""
    t = str(text).strip().upper()
    if t == "10":
        t = "T"
    if len(t) != 1 or t not in RANKS:
        raise ValueError(f"unreadable rank {text!r}: expected one of 2-9, T (or 10), J, Q, K, A")
    return RANKS.index(t)


def card_index(text: str, jokers: bool = False) -> int:
    """Card text ("AS", "TD", "10H", and with jokers=True "LJ", "BJ") -> card index."""
    if not isinstance(text, str):
        raise ValueError(f"unreadable card {text!r}: expected card text such as 'AS' or '10H'")
    t = text.strip().upper()
    if jokers and t in ("LJ", "BJ"):
        return LITTLE_JOKER if t == "LJ" else BIG_JOKER
    if len(t) < 2 or t[-1] not in SUITS:
        raise ValueError(f"unreadable card {text!r}: expected rank then suit, such as 'AS' or '10H'")
    try:
        rank = rank_index(t[:-1])
    except ValueError:
        raise ValueError(f"unreadable card {text!r}: unknown rank {t[:-1]!r}") from None
    return SUITS.index(t[-1]) * 13 + rank


def card_text(card: int) -> str:
    card = int(card)
    if card == LITTLE_JOKER:
        return "LJ"
    if card == BIG_JOKER:
        return "BJ"
    if not 0 <= card < 52:
        raise ValueError(f"card index {card} is outside 0..53")
    return RANKS[card % 13] + SUITS[card // 13]


def card_symbol(card: int) -> str:
    """Human text with a suit symbol: 'Q♠', '10♥', 'LJ'."""
    t = card_text(card)
    if card >= 52:
        return t
    rank = "10" if t[0] == "T" else t[0]
    return rank + SUIT_SYMBOLS[card // 13]


def parse_cards(spec, jokers: bool = False, separators: str = "|,") -> list[int]:
    """A card group as text ("AS KD 10H", '|' and ',' ignored) or a list of texts/ints -> card ids."""
    if isinstance(spec, str):
        text = spec
        for sep in separators:
            text = text.replace(sep, " ")
        return [card_index(tok, jokers) for tok in text.split()]
    if isinstance(spec, (list, tuple)) or (isinstance(spec, np.ndarray) and spec.ndim == 1):
        top = 54 if jokers else 52
        out = []
        for item in spec:
            if isinstance(item, str):
                out.append(card_index(item, jokers))
            elif isinstance(item, (int, np.integer)) and not isinstance(item, bool) and 0 <= int(item) < top:
                out.append(int(item))
            else:
                raise ValueError(f"unreadable card {item!r}: expected card text or an id in 0..{top - 1}")
        return out
    what = f"a {spec.ndim}-d array of shape {spec.shape}" if isinstance(spec, np.ndarray) else repr(spec)[:80]
    raise ValueError(f"unreadable cards {what}: expected a string of card texts or a list")


def cards_text(cards) -> str:
    return " ".join(card_text(c) for c in cards)


def mask_to_cards(mask: int) -> list[int]:
    mask = int(mask)
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def cards_to_mask(cards) -> int:
    m = 0
    for c in cards:
        m |= 1 << int(c)
    return m


# ---------------------------------------------------------------------------------------------
# numba helpers (kernels import these; all inline)
# ---------------------------------------------------------------------------------------------


@intrinsic
def popcount(typingctx, x):
    """Hardware popcount of a uint64."""
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return sig, codegen


@intrinsic
def lowest_bit(typingctx, x):
    """Index of the lowest set bit of a non-zero uint64 (count trailing zeros)."""
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], context.get_constant(types.boolean, True))

    return sig, codegen


def _one_instruction_pdep() -> bool:
    """Does the CPU numba compiles for run BMI2's pdep as one fast instruction? Only for the host's
    own CPU (a portable target, NUMBA_CPU_NAME, may lack it); on AMD before Zen 3 pdep is microcode
    taking hundreds of cycles, slower than the loop it replaces."""
    from numba.core import config

    if config.CPU_NAME or config.CPU_FEATURES:
        return False
    try:
        import llvmlite.binding as llvm

        return ("+bmi2" in llvm.get_host_cpu_features().flatten().split(",")
                and llvm.get_host_cpu_name() not in ("znver1", "znver2", "bdver4"))
    except Exception:  # no feature query on this platform: take the portable loop
        return False


HAS_PDEP = _one_instruction_pdep()


@intrinsic
def deposit_bits(typingctx, src, mask):
    """BMI2 pdep: the bits of src deposited, lowest first, at the set bits of mask (only where
    HAS_PDEP)."""
    sig = types.uint64(types.uint64, types.uint64)

    def codegen(context, builder, signature, args):
        from llvmlite import ir

        i64 = ir.IntType(64)
        name = "llvm.x86.bmi.pdep.64"
        fn = builder.module.globals.get(name) or ir.Function(builder.module, ir.FunctionType(i64, [i64, i64]), name)
        return builder.call(fn, [args[0], args[1]])

    return sig, codegen


@intrinsic
def leading_zeros(typingctx, x):
    """Count of leading zeros of a uint64 (64 for zero)."""
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.ctlz(args[0], context.get_constant(types.boolean, False))

    return sig, codegen


@njit(inline="always", cache=True)
def highest_bit(x):
    """Index of the highest set bit of a non-zero uint64."""
    return np.int64(63) - np.int64(leading_zeros(x))


@njit(inline="always", cache=True)
def nth_set_bit_loop(x, n):
    """Index of the n-th (0-based) set bit of x, counting from bit 0: the lowest n bits cleared."""
    for _ in range(n):
        x &= x - np.uint64(1)
    return np.int64(lowest_bit(x))


@njit(inline="always", cache=True)
def nth_set_bit_pdep(x, n):
    """nth_set_bit_loop in two instructions: bit n deposited at x's n-th set bit."""
    return np.int64(lowest_bit(deposit_bits(np.uint64(1) << np.uint64(n), x)))


# a random rollout's every draw is one nth_set_bit over a hand: the loop costs up to a cycle a card
nth_set_bit = nth_set_bit_pdep if HAS_PDEP else nth_set_bit_loop


@njit(inline="always", cache=True)
def bit(i):
    return np.uint64(1) << np.uint64(i)


# A tiny xorshift64* generator for randomness inside kernels (random rollouts, sampled policies).
# Game-visible random events (deals, timeouts) use numpy's generator as the specs require; this one
# only drives policies, so a rollout is reproducible from its seed.

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_SM1 = np.uint64(0xBF58476D1CE4E5B9)
_SM2 = np.uint64(0x94D049BB133111EB)
_XS_MUL = np.uint64(0x2545F4914F6CDD1D)


@njit(inline="always", cache=True)
def splitmix64(x):
    z = x + _GOLDEN
    z = (z ^ (z >> np.uint64(30))) * _SM1
    z = (z ^ (z >> np.uint64(27))) * _SM2
    z = z ^ (z >> np.uint64(31))
    if z == np.uint64(0):
        z = np.uint64(0x853C49E6748FEA9B)
    return z


@njit(inline="always", cache=True)
def rng_next(rng, i):
    """Advance generator rng[i] (uint64 array) and return a uint64 draw."""
    x = rng[i]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    rng[i] = x
    return x * _XS_MUL


@njit(inline="always", cache=True)
def rng_below(rng, i, n):
    """Uniform integer in [0, n) from generator rng[i]."""
    return np.int64((rng_next(rng, i) >> np.uint64(32)) * np.uint64(n) >> np.uint64(32))


@njit(inline="always", cache=True)
def shuffle_prefix(buf, n, rng, i):
    """Fisher-Yates shuffle of buf[:n] in place with generator rng[i] (draws from the top down)."""
    for k in range(n - 1, 0, -1):
        j = rng_below(rng, i, k + 1)
        tmp = buf[k]
        buf[k] = buf[j]
        buf[j] = tmp


@njit(cache=True)
def seed_generators(seed, n):
    """n independent kernel generators: generator g starts at splitmix64(seed + g)."""
    out = np.empty(n, np.uint64)
    for g in range(n):
        out[g] = splitmix64(np.uint64(seed) + np.uint64(g))
    return out


@njit(inline="always", cache=True)
def random_set_bit(rng, i, mask):
    """A uniformly random set bit of a non-zero uint64 mask."""
    return nth_set_bit(mask, rng_below(rng, i, popcount(mask)))


@njit(inline="always", cache=True)
def random_legal(rng, i, mask_row):
    """A uniformly random index where mask_row (uint8/int8 array) is non-zero; -1 if none."""
    n = 0
    for a in range(mask_row.shape[0]):
        if mask_row[a]:
            n += 1
    if n == 0:
        return -1
    k = rng_below(rng, i, n)
    for a in range(mask_row.shape[0]):
        if mask_row[a]:
            if k == 0:
                return a
            k -= 1
    return -1
