"""numpy's default_rng, bit for bit, inside numba: SeedSequence -> PCG64 -> the Generator draws the
section-7 resets use (permutation, integers), for B games in one jitted call.

The specs seed game b of a batch with ``numpy.random.default_rng(seed + b)``. Building B numpy
Generators and dealing in Python costs more than playing the games, so the resets compute the same
draws here. Every function reproduces numpy's algorithm exactly (numpy >= 1.17 Generator, PCG64):

- ``SeedSequence(entropy)``: the entropy (an int >= 0 or a list of them) as uint32 words, little
  end first (0 -> [0]; a list concatenates its items' words); the 4-word pool mixed by hashmix;
  ``generate_state(4, uint64)`` from the pool.
- ``PCG64``: the 128-bit LCG "setseq" seeding (state = seed words 0-1, increment = words 2-3) and the
  XSL-RR output, kept as two uint64 halves; ``next_uint32`` hands out the two halves of one 64-bit
  output, low first (the has_uint32 / uinteger buffer of the bit generator's state).
- ``Generator.permutation(n)``: arange(n) shuffled by Fisher-Yates from the top, index j drawn by
  ``random_interval`` (smallest bit mask >= i, masked rejection on next_uint32).
- ``Generator.integers(high)``: ``random_bounded_uint64_fill`` with one value: high 1 draws nothing,
  otherwise Lemire's bounded multiply-shift on next_uint32 (for high <= 2**32).

A generator's state is one uint64 row of STATE_WORDS: state high/low, increment high/low, has_uint32,
uinteger. ``to_generator(row)`` hands it to a real numpy Generator when Python must draw on (redeals,
change cards): the next draws are then exactly those the per-game generator would have made.
Batch use: ``seeded_states(seeds)`` (or ``seeded_states(seeds, (1,))`` for default_rng([s, 1])),
then ``permutation_rows`` / ``integers_rows`` draw for every game in one call, in call order per
game. tests/core/test_nprandom.py checks all of it against the installed numpy on thousands of seeds.

numpy does not promise that its Generator's streams never change, so the module also checks itself
when it is imported (``check_stream``: a few seeds, permutations, integers and the state after them,
against the installed numpy). Should they ever differ, ``STREAM_MATCHES`` is False, a warning says
so, and ``seeds_fit`` answers False for every seed: the games then deal with numpy's own Generator
(slower resets, the same games the specs define).
"""
from __future__ import annotations

import warnings

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from cardzoo.cards import leading_zeros

STATE_WORDS = 6
STATE_HI, STATE_LO, INC_HI, INC_LO, HAS_UINT32, UINTEGER = range(6)

_M32 = np.uint64(0xFFFFFFFF)
_SHIFT32 = np.uint64(32)
_ONE = np.uint64(1)
_ZERO = np.uint64(0)
# PCG's 128-bit multiplier (pcg64.h PCG_DEFAULT_MULTIPLIER_128), high and low halves
_MULT_HI = np.uint64(2549297995355413924)
_MULT_LO = np.uint64(4865540595714422341)
# SeedSequence's hash constants (bit_generator.pyx)
_INIT_A = np.uint64(0x43B0D7E5)
_MULT_A = np.uint64(0x931E8875)
_INIT_B = np.uint64(0x8B51F9DD)
_MULT_B = np.uint64(0x58F38DED)
_MIX_MULT_L = np.uint64(0xCA01F9DD)
_MIX_MULT_R = np.uint64(0x4973F715)
_XSHIFT = np.uint64(16)
POOL_SIZE = 4


# ---- 128-bit arithmetic on (high, low) uint64 pairs ---------------------------------------------

@intrinsic
def _muladd_128(typingctx, s_hi, s_lo, m_hi, m_lo, c_hi, c_lo):
    """(s * m + c) mod 2**128 on (high, low) uint64 halves -> (high, low), as one LLVM i128
    multiply-add: the LCG step is the shuffle's loop-carried chain, and native 64 x 64 -> 128
    multiplies halve its latency against a product built from 32-bit halves."""
    u64 = types.uint64
    sig = types.UniTuple(u64, 2)(u64, u64, u64, u64, u64, u64)

    def codegen(context, builder, signature, args):
        i128 = ir.IntType(128)
        i64 = ir.IntType(64)
        shift = ir.Constant(i128, 64)

        def joined(hi, lo):
            return builder.or_(builder.shl(builder.zext(hi, i128), shift), builder.zext(lo, i128))

        s, m, c = (joined(args[k], args[k + 1]) for k in (0, 2, 4))
        r = builder.add(builder.mul(s, m), c)
        hi = builder.trunc(builder.lshr(r, shift), i64)
        return context.make_tuple(builder, signature.return_type, [hi, builder.trunc(r, i64)])

    return sig, codegen


@njit(inline="always", cache=True)
def _lcg_step(row):
    """state = state * MULT + inc (mod 2**128), pcg_setseq_128_step_r."""
    hi, lo = _muladd_128(row[STATE_HI], row[STATE_LO], _MULT_HI, _MULT_LO, row[INC_HI], row[INC_LO])
    row[STATE_HI] = hi
    row[STATE_LO] = lo


@njit(inline="always", cache=True)
def next_uint64(row):
    """PCG64's next output: step, then XSL-RR (xor of the halves rotated right by the top 6 bits)."""
    _lcg_step(row)
    hi = row[STATE_HI]
    x = hi ^ row[STATE_LO]
    r = hi >> np.uint64(58)
    # (64 - r) & 63 keeps the left shift below 64 when r == 0 (a shift by 64 is undefined)
    return (x >> r) | (x << ((np.uint64(64) - r) & np.uint64(63)))


@njit(inline="always", cache=True)
def next_uint32(row):
    """numpy's pcg64_next32: the low half of a fresh 64-bit output, the high half kept for the next call."""
    if row[HAS_UINT32] != _ZERO:
        row[HAS_UINT32] = _ZERO
        return row[UINTEGER]
    v = next_uint64(row)
    row[HAS_UINT32] = _ONE
    row[UINTEGER] = v >> _SHIFT32
    return v & _M32


# ---- seeding ---------------------------------------------------------------------------------------

@njit(inline="always", cache=True)
def _hashmix(value, hash_const):
    """SeedSequence's hashmix on uint32 values held in uint64: -> (mixed value, next hash constant)."""
    value = (value ^ hash_const) & _M32
    hash_const = (hash_const * _MULT_A) & _M32
    value = (value * hash_const) & _M32
    value ^= value >> _XSHIFT
    return value, hash_const


@njit(inline="always", cache=True)
def _mix(x, y):
    result = (_MIX_MULT_L * x - _MIX_MULT_R * y) & _M32
    return result ^ (result >> _XSHIFT)


@njit(inline="always", cache=True)
def _word(words, nwords, i):
    return np.uint64(words[i]) if i < nwords else _ZERO


@njit(inline="always", cache=True)
def _mixed(src, dst, h):
    """mix_entropy's step: src hashed (the hash constant moving on) and mixed into dst -> (dst, h)."""
    v, h = _hashmix(src, h)
    return _mix(dst, v), h


@njit(inline="always", cache=True)
def _mixed3(src, a, b, c, h):
    """_mixed into three destinations in turn -> (a, b, c, h)."""
    a, h = _mixed(src, a, h)
    b, h = _mixed(src, b, h)
    c, h = _mixed(src, c, h)
    return a, b, c, h


@njit(inline="always", cache=True)
def _generated_pair(a, b, hb):
    """Two generate_state uint32 words from pool words a, b -> (one uint64, low word first; hb)."""
    v = (a ^ hb) & _M32
    hb = (hb * _MULT_B) & _M32
    v = (v * hb) & _M32
    v ^= v >> _XSHIFT
    w = (b ^ hb) & _M32
    hb = (hb * _MULT_B) & _M32
    w = (w * hb) & _M32
    w ^= w >> _XSHIFT
    return v | (w << _SHIFT32), hb


@njit(cache=True)
def seed_row(words, nwords, row):
    """PCG64(SeedSequence(entropy)) into ``row``; ``words[:nwords]`` are the entropy's uint32 words
    (as numpy assembles them, no spawn key). Also resets the 32-bit buffer, as PCG64 does. The
    4-word pool is four scalars, not an array: the seeding of every game allocates nothing."""
    h = _INIT_A
    # mix_entropy: the entropy words up to the pool size (zeros past the entropy's end)
    p0, h = _hashmix(_word(words, nwords, 0), h)
    p1, h = _hashmix(_word(words, nwords, 1), h)
    p2, h = _hashmix(_word(words, nwords, 2), h)
    p3, h = _hashmix(_word(words, nwords, 3), h)
    # every pool word mixed into every other (in destination order), so late bits reach early ones
    p1, p2, p3, h = _mixed3(p0, p1, p2, p3, h)
    p0, p2, p3, h = _mixed3(p1, p0, p2, p3, h)
    p0, p1, p3, h = _mixed3(p2, p0, p1, p3, h)
    p0, p1, p2, h = _mixed3(p3, p0, p1, p2, h)
    # entropy words beyond the pool size, each mixed into every pool word
    for i_src in range(POOL_SIZE, nwords):
        src = np.uint64(words[i_src])
        p0, p1, p2, h = _mixed3(src, p0, p1, p2, h)
        p3, h = _mixed(src, p3, h)
    # generate_state(4, uint64): 8 uint32 words cycling over the pool, paired low word first
    hb = _INIT_B
    out0, hb = _generated_pair(p0, p1, hb)
    out1, hb = _generated_pair(p2, p3, hb)
    out2, hb = _generated_pair(p0, p1, hb)
    out3, hb = _generated_pair(p2, p3, hb)
    # pcg64_set_seed: state seed = (out0 high, out1 low), sequence = (out2 high, out3 low);
    # srandom: inc = seq << 1 | 1, state = 0, step, state += seed, step
    row[INC_HI] = (out2 << _ONE) | (out3 >> np.uint64(63))
    row[INC_LO] = (out3 << _ONE) | _ONE
    row[STATE_HI] = _ZERO
    row[STATE_LO] = _ZERO
    _lcg_step(row)
    hi, lo = _muladd_128(row[STATE_HI], row[STATE_LO], _ZERO, _ONE, out0, out1)  # state += seed
    row[STATE_HI] = hi
    row[STATE_LO] = lo
    _lcg_step(row)
    row[HAS_UINT32] = _ZERO
    row[UINTEGER] = _ZERO


@njit(cache=True, nogil=True)
def seed_rows(words, nwords, states):
    """seed_row for every game b: entropy words[b, :nwords[b]] -> states[b]."""
    for b in range(states.shape[0]):
        seed_row(words[b], nwords[b], states[b])


# ---- Generator draws ---------------------------------------------------------------------------------

@njit(inline="always", cache=True)
def _interval_mask(max_value):
    """The smallest all-ones bit mask >= max_value (1 <= max_value < 2**32), random_interval's mask.
    From the leading-zero count: in the shuffle, the next index waits on this mask, and a count
    is three instructions where five shift-or steps are ten cycles."""
    return (np.uint64(2) << (np.uint64(63) - leading_zeros(np.uint64(max_value)))) - _ONE


@njit(inline="always", cache=True)
def random_interval(row, max_value):
    """numpy's random_interval: uniform in 0..max_value by masked rejection (max_value < 2**32)."""
    if max_value == 0:
        return 0
    mask = _interval_mask(max_value)
    limit = np.uint64(max_value)
    while True:
        v = next_uint32(row) & mask
        if v <= limit:
            return np.int64(v)


@njit(inline="always", cache=True)
def _shuffle_step(row, out, i):
    """One draw of permutation_into's loop at index i: the index it moves on to."""
    c = np.int64(next_uint32(row) & _interval_mask(i))
    accept = c <= i
    j = c if accept else i
    t = out[j]
    out[j] = out[i]
    out[i] = t
    return i - np.int64(accept)


@njit(inline="always", cache=True)
def shuffle_into(row, out, n):
    """Generator.shuffle of out[:n] (whatever it holds): Fisher-Yates from the top, j =
    random_interval(i) for i = n-1 .. 1. Written as one loop over 32-bit draws (_shuffle_step): a
    rejected draw swaps out[i] with itself and keeps i, so the ~25% unpredictable rejections select
    instead of branch (same draws, same result, ~20% faster than the nested loops); what remains on
    the loop-carried path is the mask, the test and the decrement."""
    i = n - 1
    while i > 0:
        i = _shuffle_step(row, out, i)


@njit(inline="always", cache=True)
def shuffle_pair(row_a, out_a, row_b, out_b, n):
    """shuffle_into for two games in one loop: each game's shuffle is one long chain of dependent
    steps, so two interleaved keep the core busy (~20% faster a shuffle of 52, ~25% of 108)."""
    ia = n - 1
    ib = n - 1
    while ia > 0 and ib > 0:
        ia = _shuffle_step(row_a, out_a, ia)
        ib = _shuffle_step(row_b, out_b, ib)
    while ia > 0:
        ia = _shuffle_step(row_a, out_a, ia)
    while ib > 0:
        ib = _shuffle_step(row_b, out_b, ib)


@njit(cache=True)
def permutation_into(row, out, n):
    """Generator.permutation(n) into out[:n]: arange(n) shuffled (shuffle_into)."""
    for i in range(n):
        out[i] = i
    shuffle_into(row, out, n)


@njit(inline="always", cache=True)
def integers_below(row, high):
    """Generator.integers(high) for 1 <= high <= 2**32: Lemire's bounded draw on next_uint32
    (buffered_bounded_lemire_uint32); high 1 draws nothing."""
    rng = np.uint64(high - 1)
    if rng == _ZERO:
        return np.int64(0)
    if rng == _M32:
        return np.int64(next_uint32(row))
    rng_excl = rng + _ONE
    m = next_uint32(row) * rng_excl
    leftover = m & _M32
    if leftover < rng_excl:
        threshold = (_M32 - rng) % rng_excl
        while leftover < threshold:
            m = next_uint32(row) * rng_excl
            leftover = m & _M32
    return np.int64(m >> _SHIFT32)


@njit(cache=True)
def integers_below_jit(row, high):
    """integers_below as a plain jitted call (for Python callers and tests)."""
    return integers_below(row, high)


# ---- Python side: entropy, states, hand-over -------------------------------------------------------

def _int_words(x: int) -> list:
    if x < 0:
        raise ValueError("expected non-negative integer")
    if x == 0:
        return [0]
    out = []
    while x > 0:
        out.append(x & 0xFFFFFFFF)
        x >>= 32
    return out


def seeds_fit(seeds) -> bool:
    """True when every seed is an int >= 0, the seeds seeded_states takes (None, fresh entropy,
    and negative seeds, which numpy refuses, stay with numpy), and the import-time check found this
    module's stream equal to the installed numpy's (else every reset stays with numpy)."""
    if not STREAM_MATCHES:
        return False
    if isinstance(seeds, range):  # a batch's seed, seed + 1, ...: no need to look at each
        return len(seeds) > 0 and seeds.step > 0 and seeds.start >= 0
    try:
        return len(seeds) > 0 and min(seeds) >= 0
    except TypeError:
        return False


def entropy_words(seeds, suffix=()):
    """The SeedSequence entropy words of ``[seed, *suffix]`` (or of ``seed`` alone when suffix is
    empty) for every seed: (uint32[B, L], int64[B]) for seed_rows. Seeds must be ints >= 0 (numpy
    refuses negative ones; callers keep the numpy path for None). Seeds below 2**64 are
    converted in a few whole-array operations."""
    suffix = [int(x) for x in suffix]
    suffix_words = [w for x in suffix for w in _int_words(x)]
    arr = None
    if isinstance(seeds, range) and seeds.step == 1 and len(seeds) and seeds.start >= 0 and seeds.stop <= 2**64:
        arr = np.uint64(seeds.start) + np.arange(len(seeds), dtype=np.uint64)  # a batch's seeds, no list
    seeds = list(seeds) if arr is None else seeds
    n = len(seeds)
    if arr is not None or (n and min(seeds) >= 0 and max(seeds) < 2**64):
        if arr is None:
            arr = np.array(seeds, dtype=np.uint64)
        lo = (arr & np.uint64(0xFFFFFFFF)).astype(np.uint32)
        hi = (arr >> np.uint64(32)).astype(np.uint32)
        two = hi != 0
        L = 2 + len(suffix_words)
        words = np.zeros((n, L), np.uint32)
        words[:, 0] = lo
        words[:, 1] = hi  # a one-word seed's suffix overwrites it below
        nwords = np.where(two, 2, 1).astype(np.int64)
        for k, w in enumerate(suffix_words):
            words[np.arange(n), nwords + k] = w
        nwords += len(suffix_words)
        return words, nwords
    rows = [_int_words(int(s)) + suffix_words for s in seeds]
    L = max((len(r) for r in rows), default=1)
    words = np.zeros((n, L), np.uint32)
    for b, r in enumerate(rows):
        words[b, :len(r)] = r
    return words, np.array([len(r) for r in rows], np.int64)


def put_seed_words(seed: int, words, nwords) -> None:
    """entropy_words of one seed (an int 0 <= seed < 2**64) written into words[0, :2] (uint32) and
    nwords[0]: an env's per-reset call, without building arrays."""
    hi = seed >> 32
    words[0, 0] = seed & 0xFFFFFFFF
    words[0, 1] = hi
    nwords[0] = 2 if hi else 1


def seeded_states(seeds, suffix=()) -> np.ndarray:
    """uint64[B, STATE_WORDS]: the PCG64 state of default_rng(seed) (or default_rng([seed, *suffix]))
    for every seed, before any draw."""
    words, nwords = entropy_words(seeds, suffix)
    states = np.empty((len(nwords), STATE_WORDS), np.uint64)
    seed_rows(words, nwords, states)
    return states


def state_dict(row) -> dict:
    """The ``bit_generator.state`` dict numpy's PCG64 reports for this state row."""
    return {
        "bit_generator": "PCG64",
        "state": {"state": int(row[STATE_HI]) << 64 | int(row[STATE_LO]),
                  "inc": int(row[INC_HI]) << 64 | int(row[INC_LO])},
        "has_uint32": int(row[HAS_UINT32]),
        "uinteger": int(row[UINTEGER]),
    }


def to_generator(row) -> np.random.Generator:
    """A numpy Generator that continues exactly from this state row."""
    bg = np.random.PCG64(0)
    bg.state = state_dict(row)
    return np.random.Generator(bg)


class LazyGenerator:
    """Stands for the numpy Generator of one game whose draws so far were made here: the real
    Generator is built from the state row on the first attribute use (most games never draw again,
    and building one costs tens of microseconds)."""

    __slots__ = ("_states", "_row", "_gen")

    def __init__(self, states, row):
        self._states = states
        self._row = row
        self._gen = None

    def generator(self) -> np.random.Generator:
        if self._gen is None:
            self._gen = to_generator(self._states[self._row])
            self._states = None
        return self._gen

    def __getattr__(self, name):
        # only the Generator's own API is forwarded: dunder and slot lookups (copy, pickle, an unset
        # slot) must fail plainly instead of building the generator or recursing
        if name.startswith("__") or name in LazyGenerator.__slots__:
            raise AttributeError(name)
        return getattr(self.generator(), name)

    def __deepcopy__(self, memo):
        import copy
        if self._gen is not None:
            out = LazyGenerator(None, 0)
            out._gen = copy.deepcopy(self._gen, memo)
            return out
        return LazyGenerator(self._states[self._row:self._row + 1].copy(), 0)


# ---- whole-batch draws (game b from states[b]; each game's draws in the order of the calls) -----

@njit(cache=True)
def _permutation_pair(row_a, out_a, row_b, out_b, n):
    """permutation_into for two games side by side (shuffle_pair)."""
    for i in range(n):
        out_a[i] = i
        out_b[i] = i
    shuffle_pair(row_a, out_a, row_b, out_b, n)


@njit(cache=True, nogil=True)
def permutation_rows(states, out):
    """out[b, k] = Generator.permutation(n) of game b, k = 0, 1, ... in order (out: int[B, K, n]);
    games b and b + 1 are shuffled side by side (each from its own state: the same draws)."""
    n = out.shape[2]
    nb = out.shape[0]
    for b in range(0, nb - 1, 2):
        for k in range(out.shape[1]):
            _permutation_pair(states[b], out[b, k], states[b + 1], out[b + 1, k], n)
    if nb % 2:
        for k in range(out.shape[1]):
            permutation_into(states[nb - 1], out[nb - 1, k], n)


@njit(cache=True, nogil=True)
def integers_rows(states, high, counts, out):
    """out[b, k] = Generator.integers(high) of game b for k < counts[b] (1 <= high <= 2**32);
    games with count 0 draw nothing."""
    for b in range(out.shape[0]):
        row = states[b]
        for k in range(counts[b]):
            out[b, k] = integers_below(row, high)


# ---- the import-time check against the installed numpy ----------------------------------------------

_CHECK_SEEDS = (0, 1, 7, 2**32 + 5, 2**63 + 11)


def _numpy_generator(seed):
    return np.random.Generator(np.random.PCG64(seed))


def check_stream(reference=_numpy_generator) -> bool:
    """True when this module draws what ``reference(seed)`` (numpy's PCG64 Generator) draws for a few
    seeds: the seeded state, two permutation(52), five integers(4) and the state after them (the
    32-bit buffer included). Else False, with a RuntimeWarning."""
    # int8 card buffers and one-game kernels, as the games' own seeded draws use: on an empty numba
    # cache this check then compiles (at import) only code the first reset needs anyway
    seeds = list(_CHECK_SEEDS)
    states = seeded_states(seeds)
    perm = np.empty(52, np.int8)
    for b, seed in enumerate(seeds):
        row = states[b]
        perms = []
        for _ in range(2):
            permutation_into(row, perm, 52)
            perms.append(perm.copy())
        drawn = [int(integers_below_jit(row, 4)) for _ in range(5)]
        gen = reference(seed)
        want_perms = [gen.permutation(52) for _ in range(2)]
        want_ints = [int(gen.integers(4)) for _ in range(5)]
        if (any(not np.array_equal(p, w) for p, w in zip(perms, want_perms))
                or drawn != want_ints or state_dict(row) != gen.bit_generator.state):
            warnings.warn(f"cardzoo.nprandom: numpy {np.__version__}'s PCG64 stream differs from cardzoo's copy "
                          f"(seed {seed}); resets deal with numpy's own Generator instead (same games, slower)",
                          RuntimeWarning, stacklevel=2)
            return False
    return True


STREAM_MATCHES = True
STREAM_MATCHES = check_stream()
