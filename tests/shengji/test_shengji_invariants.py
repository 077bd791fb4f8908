"""Randomized invariants over seeded random hands (batched), the legal-play enumerator against the
composition mask, and differential tests of follow legality and trick winner against the plain
Python reference in shengji_reference.py (SJ-8, SJ-9)."""
from collections import Counter

import numpy as np
import pytest

import shengji_env
from shengji_env import kernels as K
from shengji_env.rules import by_name
import shengji_reference as R


POINTS = np.array([K.card_points(c) for c in range(54)])


def random_actions(mask, rng):
    """One uniformly random legal action per row (rows without any: -1)."""
    u = rng.random(mask.shape) * mask
    a = u.argmax(axis=1)
    a[mask.sum(axis=1) == 0] = -1
    return a


def check_conservation(g, D):
    st = g.state
    ph = st.phase
    held = st.hand.astype(np.int64).sum(axis=1)              # [B, 54]
    played = st.played.astype(np.int64).sum(axis=1)
    for b in range(g.n):
        if ph[b] in (K.LEAD, K.FOLLOW) or (ph[b] == K.OVER and st.hand_over[b]):
            tot = held[b] + played[b] + st.buried[b]
            assert (tot == D).all(), f"game {b}: cards not conserved in phase {ph[b]}"
        elif ph[b] == K.BURY:
            assert (held[b] == D).all(), f"game {b}: the banker's pick-up lost cards"
        # the current selection is always inside the actor's hand
        if ph[b] in (K.BURY, K.LEAD, K.FOLLOW):
            assert (st.sel[b] <= st.hand[b, st.actor[b]]).all()


def run_random_batch(D, n, seed, **cfg):
    g = shengji_env.BatchGame(n, decks=D, **cfg)
    g.reset(seed=seed)
    rng = np.random.default_rng(seed)
    steps = 0
    while not g.done.all():
        mask = g.legal_mask()
        live = ~g.done
        assert (mask[live].sum(axis=1) > 0).all(), "a live game has an empty mask"
        assert (mask[~live] == 0).all()
        acts = random_actions(mask, rng)
        g.step(np.where(live, acts, 0))
        r = g.rewards
        assert np.allclose(r[:, 0], r[:, 2]) and np.allclose(r[:, 1], r[:, 3])
        assert np.allclose(r.sum(axis=1), 0, atol=1e-5)
        steps += 1
        if steps % 7 == 0:
            check_conservation(g, D)
    check_conservation(g, D)
    st = g.state
    for b in range(n):
        assert st.hand[b].sum() == 0
        nt = int(st.ntricks[b])
        tp = int(st.tr_points[b, :nt].sum())
        kp = int((st.buried[b].astype(np.int64) * POINTS).sum())
        assert tp + kp == 100 * D, "points in tricks + kitty must be 100 x decks"
        assert int(st.points[b].sum()) == tp
        assert st.r_valid[b] == 1
    return g


@pytest.mark.parametrize("D", [1, 2, 3, 4])
def test_random_hands_invariants(D):
    run_random_batch(D, 2000, seed=100 + D)


@pytest.mark.parametrize("D", [1, 2])
def test_random_hands_invariants_options(D):
    run_random_batch(D, 300, seed=7, declaration_mode="after_deal", throw_penalty="per_card",
                     kitty_multiplier="power_size", auto_forced=True)
    run_random_batch(D, 300, seed=8, declaration_mode="preset", first_banker="first_declarer")


@pytest.mark.slow
@pytest.mark.parametrize("D", [1, 2, 3, 4])
def test_random_hands_invariants_slow(D):
    for k in range(5):
        run_random_batch(D, 4000, seed=1000 * D + k)


@pytest.mark.parametrize("D", [1, 2, 3, 4])
def test_rollout_ends_every_game(D):
    g = shengji_env.BatchGame(256, decks=D)
    g.reset(seed=D)
    n = g.rollout(seed=3)
    assert n > 0 and g.done.all()
    st = g.state
    assert (st.played.astype(np.int64).sum(axis=1) + st.buried == D).all()


def plays_containing(plays, sel):
    return [p for p in plays if (p >= sel).all()]


def check_mask_vs_enumerator(raw):
    """Section 4: a CARD is allowed iff some complete legal play contains selection + card; every
    allowed prefix therefore completes (the enumerator lists legal plays only)."""
    st = raw._st
    s = st.view(np.recarray)[0]
    ph = int(s.phase)
    if ph not in (K.BURY, K.LEAD, K.FOLLOW):
        return False
    buf = np.zeros((20000, 54), np.int8)
    n = K.legal_plays(st, 0, raw._cfg, buf)
    if n < 0 or n > buf.shape[0]:
        return False
    plays = buf[:n].astype(np.int64)
    mask = raw.infos[raw.agent_selection]["action_mask"]
    sel = s.sel.astype(np.int64)
    assert n > 0
    for c in range(54):
        e = np.zeros(54, np.int64)
        e[c] = 1
        ok = bool(((plays >= sel + e).all(axis=1)).any())
        assert bool(mask[c]) == ok, f"card {c}: mask {mask[c]} but enumerator says {ok} (phase {ph})"
    if ph == K.LEAD:
        assert bool(mask[54]) == (int(s.nsel) > 0)
    return True


@pytest.mark.parametrize("D", [1, 2, 3, 4])
def test_enumerator_and_mask_agree(D):
    raw = shengji_env.raw_env(decks=D)
    rng = np.random.default_rng(D)
    checked = 0
    for game in range(4 if D < 3 else 2):
        raw.reset(seed=50 + game)
        while not raw.terminations[raw.agent_selection]:
            if check_mask_vs_enumerator(raw):
                checked += 1
            mask = raw.infos[raw.agent_selection]["action_mask"]
            raw.step(int(rng.choice(np.flatnonzero(mask))))
    assert checked > 100


# ---- differential tests against the reference --------------------------------------------------

def random_follow_case(rng, D):
    lvl = int(rng.integers(13))
    trump = int(rng.integers(5))
    pool = Counter({c: D for c in range(54)})
    # the lead: a random one-esuit multiset with tuples likely
    s = int(rng.integers(5))
    scards = [c for c in range(54) if R.esuit(c, lvl, trump) == s]
    if not scards:
        return None
    size = int(rng.integers(1, 6))
    lead = []
    while len(lead) < size:
        c = int(rng.choice(scards))
        k = int(rng.integers(1, D + 1))
        k = min(k, pool[c], size - len(lead))
        lead += [c] * k
        pool[c] -= k
    if not lead:
        return None
    # the follower: some cards of s (tuples likely) and some others
    hand = []
    want_s = int(rng.integers(0, 9))
    tries = 0
    while len(hand) < want_s and tries < 50:
        tries += 1
        c = int(rng.choice(scards))
        k = min(int(rng.integers(1, D + 1)), pool[c])
        hand += [c] * k
        pool[c] -= k
    others = [c for c in range(54) if pool[c] > 0 and R.esuit(c, lvl, trump) != s]
    for _ in range(int(rng.integers(0, 5))):
        c = int(rng.choice(others))
        if pool[c] > 0:
            hand.append(c)
            pool[c] -= 1
    if len(hand) < len(lead):
        return None
    return lvl, trump, sorted(lead), sorted(hand)


def as_text(cards):
    from cardzoo.cards import card_text
    return " ".join(card_text(c) for c in sorted(cards))


@pytest.mark.parametrize("D", [1, 2, 3, 4])
def test_follow_legality_differential(D):
    rng = np.random.default_rng(1234 + D)
    done = 0
    while done < 120:
        case = random_follow_case(rng, D)
        if case is None:
            continue
        lvl, trump, lead, hand = case
        tn = by_name._TRUMPS[trump]
        got = K.follow_plays(as_text(lead), as_text(hand), lvl, tn, decks=D)
        exp = {as_text(p) for p in R.legal_follows(lead, hand, lvl, trump, D)}
        assert got == exp, (lvl, tn, as_text(lead), as_text(hand))
        # the decomposition against the brute-force one (SJ-7.2)
        kd = [(k, L, top) for k, L, top, _ in K.decompose(as_text(lead), lvl, tn, D)]
        rd = [(k, L, top) for k, L, top, _ in R.decompose(lead, lvl, trump, D)]
        assert kd == rd, (as_text(lead), lvl, tn)
        done += 1


def random_play(rng, n, lvl, trump, pool, s, D):
    """A random n-card play: mostly of s or trump, with tuples likely."""
    e = int(rng.choice([s, 4, int(rng.integers(5))]))
    cards = [c for c in range(54) if R.esuit(c, lvl, trump) == e and pool[c] > 0]
    if not cards:
        cards = [c for c in range(54) if pool[c] > 0]
    play = []
    guard = 0
    while len(play) < n and guard < 100:
        guard += 1
        c = int(rng.choice(cards))
        k = min(int(rng.integers(1, D + 1)), pool[c], n - len(play))
        play += [c] * k
        pool[c] -= k
    while len(play) < n:
        c = int(rng.choice([c for c in range(54) if pool[c] > 0]))
        play.append(c)
        pool[c] -= 1
    return play


@pytest.mark.parametrize("D", [1, 2, 3, 4])
def test_trick_winner_differential(D):
    rng = np.random.default_rng(99 + D)
    for _ in range(150):
        lvl = int(rng.integers(13))
        trump = int(rng.integers(5))
        pool = Counter({c: D for c in range(54)})
        s = int(rng.integers(5))
        n = int(rng.integers(1, 6))
        lead = random_play(rng, n, lvl, trump, pool, s, D)
        es = {R.esuit(c, lvl, trump) for c in lead}
        if len(es) != 1:
            continue
        s = es.pop()
        plays = [lead] + [random_play(rng, n, lvl, trump, pool, s, D) for _ in range(3)]
        got = K.trick_winner([as_text(p) for p in plays], lvl, by_name._TRUMPS[trump], decks=D)
        exp = R.winner(plays, lvl, trump, D)
        assert got == exp, ([as_text(p) for p in plays], lvl, trump)
