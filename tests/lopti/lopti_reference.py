"""A small plain-Python LOPTI reference, written from docs/rules/lopti.md (no made rules): legality (LO-4.1),
the PLAY-phase mask (section 4.2) and move resolution (LO-3..LO-9), for differential tests of the
numba kernels. Positions are the section 7.2 dicts; the reference keeps its own copy as sets/lists.
"""
from __future__ import annotations

import random

RANKS = "23456789TJQKA"
SUITS = "CDHS"
SW_NAMES = ("CLEAR_RANK", "LOW_RANK", "LOW_BLOCKS_CLEAR", "SET_SIZE", "DRAW_BELOW", "DRAW_MODE",
            "VOLUNTARY_PICKUP", "CLEAR_EXTRA_MOVE", "SWAPS")
DEFAULT_SW = dict(zip(SW_NAMES, (8, 5, 1, 4, 3, 0, 1, 1, 1)))


def ctext(c):
    return RANKS[c % 13] + SUITS[c // 13]


def group(cs):
    return " ".join(ctext(c) for c in cs)


class Ref:
    """One LOPTI round position (PLAY phase)."""

    def __init__(self, n, hands, ups, downs, pile, chain, draw, out, to_act, move, known, sw, moves=0,
                 max_moves=1000, play_to_end=True, scheme="rank"):
        self.n = n
        self.hands = [set(h) for h in hands]
        self.known = [set(k) for k in known]
        self.ups = [list(u) for u in ups]
        self.downs = [list(d) for d in downs]
        self.pile = [(s, list(cs)) for s, cs in pile]
        self.chain = chain
        self.draw = list(draw)
        self.out = list(out)
        self.to_act = to_act
        self.move = move
        self.sw = dict(sw)
        self.moves = moves
        self.max_moves = max_moves
        self.play_to_end = play_to_end
        self.scheme = scheme
        listed = set().union(*self.hands) | {c for u in self.ups + self.downs for c in u if c is not None}
        listed |= {c for _, cs in self.pile for c in cs} | set(self.draw)
        self.gone = set(range(52)) - listed
        self.clears = 0
        self.last_clear = None
        self.done = False
        self.truncated = False
        self.rewards = [0.0] * n
        self.places = [None] * n
        for i, s in enumerate(self.out):
            self.places[s] = i

    # ---- LO-3.3 table facts ----
    def active(self, s):
        return s not in self.out

    def top(self):
        t = self.pile[-1][1][0] % 13
        c = len(self.pile[-1][1])
        run = 0
        for _, cs in reversed(self.pile):
            if cs[0] % 13 != t:
                break
            run += len(cs)
        return t, c, run

    def obligation(self):
        return self.chain > 0 and bool(self.pile)

    def limit(self):
        return bool(self.pile) and self.top()[0] == self.sw["LOW_RANK"]

    # ---- LO-4.1 ----
    def legal(self, r, k):
        CR, LR, SS = self.sw["CLEAR_RANK"], self.sw["LOW_RANK"], self.sw["SET_SIZE"]
        if self.obligation():
            return r == 1
        if not self.pile:
            return True
        if r == 1:
            return True
        t, c, run = self.top()
        if t == LR:
            if r == CR:
                return self.sw["LOW_BLOCKS_CLEAR"] == 0
            return r <= LR
        if r in (CR, LR):
            return True
        if r == 0:
            if t == 0:
                return k > c or run + k >= SS
            return True
        if r > t:
            return True
        if r == t:
            return k > c or run + k >= SS
        return False

    # ---- section 4.2 ----
    def mask(self):
        a = self.to_act
        out = set()
        if self.hands[a]:
            for r in range(13):
                cnt = sum(1 for c in self.hands[a] if c % 13 == r)
                for k in range(1, cnt + 1):
                    if self.legal(r, k):
                        out.add(4 * r + k - 1)
            if self.pile and (self.obligation() or self.sw["VOLUNTARY_PICKUP"] == 1 or not out):
                out.add(52)
        else:
            for j in range(3):
                if self.downs[a][j] is not None:
                    out.add(53 + j)
            if self.pile and (self.obligation() or self.sw["VOLUNTARY_PICKUP"] == 1):
                out.add(52)
        return out

    # ---- moves ----
    def _pickup(self, a):
        for _, cs in self.pile:
            self.hands[a] |= set(cs)
            self.known[a] |= set(cs)
        self.pile = []
        self.chain = 0

    def _value(self, p):
        n = self.n
        if self.scheme == "rank":
            return (n - 1 - 2 * p) / (n - 1)
        return 1.0 if p == 0 else -1.0 / (n - 1)

    def _finish(self, truncated):
        n = self.n
        if not truncated and self.play_to_end:
            for s in range(n):
                if self.active(s):
                    self.places[s] = len(self.out)
                    self.out.append(s)
        rest = [s for s in range(n) if self.active(s)]
        for s in self.out:
            self.rewards[s] = self._value(self.places[s])
        if rest:
            mean = sum(self._value(p) for p in range(len(self.out), n)) / len(rest)
            for s in rest:
                self.rewards[s] = mean
        self.done = True
        self.truncated = truncated
        self.to_act = None

    def _end_turn(self, a):
        n = self.n
        if self.play_to_end:
            if sum(1 for s in range(n) if self.active(s)) <= 1:
                return self._finish(False)
        elif self.out:
            return self._finish(False)
        if self.moves >= self.max_moves:
            return self._finish(True)
        s = a
        while True:
            s = (s + 1) % n
            if self.active(s):
                break
        self.to_act = s
        self.move = "first"

    def _go_out(self, a):
        self.places[a] = len(self.out)
        self.out.append(a)

    def holds(self, a):
        return bool(self.hands[a]) or any(c is not None for c in self.ups[a] + self.downs[a])

    def step(self, action):
        a = self.to_act
        first = self.move == "first"
        self.moves += 1
        if action == 52:
            self._pickup(a)
            return self._end_turn(a)
        if action >= 53:
            j = action - 53
            card = self.downs[a][j]
            self.downs[a][j] = None
            r, k = card % 13, 1
            if not self.legal(r, 1):  # LO-8.2 failed flip
                self.pile.append((a, [card]))
                self._pickup(a)
                return self._end_turn(a)
            cards = [card]
            from_hand = False
        else:
            r, k = divmod(action, 4)
            k += 1
            of_rank = [c for c in self.hands[a] if c % 13 == r]
            ordered = sorted(c for c in of_rank if c in self.known[a]) + sorted(
                c for c in of_rank if c not in self.known[a])
            cards = ordered[:k]
            self.hands[a] -= set(cards)
            self.known[a] -= set(cards)
            from_hand = True
        beneath = bool(self.pile)
        if r == 1:
            self.gone |= set(cards)
            self.chain += k
        else:
            self.chain = 0
            self.pile.append((a, cards))
        went_out = wait = False
        if not self.holds(a):
            if first and from_hand and self.draw:
                wait = True
            else:
                self._go_out(a)
                went_out = True
        cause = 0
        SS = self.sw["SET_SIZE"]
        if r == 1:
            if self.chain >= SS:
                if beneath:
                    cause = 3
                else:
                    self.chain = 0
        elif r == self.sw["CLEAR_RANK"]:
            cause = 1
        elif self.top()[2] >= SS:
            cause = 2
        if cause:
            cleared = [c for _, cs in self.pile for c in cs]
            self.gone |= set(cleared)
            self.last_clear = {"seat": a, "cause": cause, "cards": group(cleared)}
            self.clears += 1
            self.pile = []
            self.chain = 0
        if went_out:
            return self._end_turn(a)
        db = self.sw["DRAW_BELOW"]
        if first and self.draw and len(self.hands[a]) < db:
            want = 1 if self.sw["DRAW_MODE"] == 0 else db - len(self.hands[a])
            for _ in range(want):
                if self.draw:
                    self.hands[a].add(self.draw.pop(0))
        if wait and not self.hands[a]:
            self._go_out(a)
            return self._end_turn(a)
        if not self.hands[a] and any(c is not None for c in self.ups[a]):
            for c in self.ups[a]:
                if c is not None:
                    self.hands[a].add(c)
                    self.known[a].add(c)
            self.ups[a] = [None, None, None]
        if cause and self.sw["CLEAR_EXTRA_MOVE"] == 1:
            self.move = "extra"
            if self.moves >= self.max_moves:
                self._finish(True)
            return
        return self._end_turn(a)

    # ---- what public_state should say ----
    def public(self):
        seats = []
        for s in range(self.n):
            if not self.active(s):
                stage = 3
            elif any(c is not None for c in self.ups[s]):
                stage = 0
            elif self.hands[s]:
                stage = 1
            else:
                stage = 2
            seats.append({"hand_size": len(self.hands[s]), "known": group(sorted(self.known[s])),
                          "up": [None if c is None else ctext(c) for c in self.ups[s]],
                          "down": [c is not None for c in self.downs[s]], "stage": stage,
                          "place": self.places[s]})
        top = None
        if self.pile:
            t, c, run = self.top()
            top = {"rank": t, "count": c, "run": run}
        return {
            "phase": "done" if self.done else "play",
            "to_act": self.to_act,
            "move": None if self.done else self.move,
            "moves": self.moves,
            "seats": seats,
            "out": list(self.out),
            "pile": [[s, group(cs)] for s, cs in self.pile],
            "top": top,
            "chain": self.chain,
            "obligation": self.obligation(),
            "limit": self.limit(),
            "gone": group(sorted(self.gone)),
            "draw_size": len(self.draw),
            "clears": self.clears,
            "last_clear": self.last_clear,
        }

    def hand_text(self, s):
        return group(sorted(self.hands[s]))


def random_position(rng: random.Random, n=None, switches=True):
    """A random legal section 7.2 position plus the Ref built from it."""
    n = n or rng.randint(2, 5)
    sw = dict(DEFAULT_SW)
    if switches and rng.random() < 0.5:
        cr = rng.randint(2, 12)
        lr = rng.choice([r for r in range(2, 13) if r != cr])
        sw.update(CLEAR_RANK=cr, LOW_RANK=lr, LOW_BLOCKS_CLEAR=rng.randint(0, 1), SET_SIZE=rng.randint(3, 4),
                  DRAW_BELOW=rng.randint(1, 5), DRAW_MODE=rng.randint(0, 1), VOLUNTARY_PICKUP=rng.randint(0, 1),
                  CLEAR_EXTRA_MOVE=rng.randint(0, 1))
    deck = list(range(52))
    rng.shuffle(deck)
    SS = sw["SET_SIZE"]
    # the pile: plays of one rank each, no 3s, the top run below SS
    pile = []
    for _ in range(rng.choice([0, 0, 1, 2, 3, 5, 8])):
        r = rng.choice([x for x in range(13) if x != 1])
        avail = [c for c in deck if c % 13 == r]
        if not avail:
            continue
        k = rng.randint(1, min(3, len(avail)))
        cs = avail[:k]
        trial = pile + [(rng.randrange(n), cs)]
        run = 0
        t = cs[0] % 13
        for _, p in reversed(trial):
            if p[0] % 13 != t:
                break
            run += len(p)
        if run >= SS:
            continue
        pile = trial
        for c in cs:
            deck.remove(c)
    n_out = rng.choice([0, 0, 0, 1, 2]) if n > 2 else 0
    n_out = min(n_out, n - 2)
    out = rng.sample(range(n), n_out)
    hands, ups, downs, known = [], [], [], []
    for s in range(n):
        if s in out:
            hands.append([]), ups.append([None] * 3), downs.append([None] * 3), known.append([])
            continue
        budget = max(2, (len(deck) - 4) // (n - s))
        while True:
            hs = rng.choice([0, 1, 1, 2, 3, 4, 6, 9])
            nu = rng.choice([0, 0, 1, 3]) if hs > 0 else 0
            nd = rng.choice([0, 1, 2, 3])
            if 0 < hs + nu + nd <= budget:
                break
        h = [deck.pop() for _ in range(hs)]
        u = [deck.pop() if rng.random() < nu / 3 else None for _ in range(3)] if nu else [None] * 3
        d = [deck.pop() if rng.random() < nd / 3 else None for _ in range(3)] if nd else [None] * 3
        if not h and all(c is None for c in d):
            d[rng.randrange(3)] = deck.pop()
        if not h:
            u = [None] * 3
        hands.append(h)
        ups.append(u)
        downs.append(d)
        known.append([c for c in h if rng.random() < 0.3])
    draw = [deck.pop() for _ in range(min(len(deck), rng.choice([0, 0, 1, 2, 5, 10])))]
    # 3s pass-on chain: only some chains
    chain = rng.choice([0, 0, 0, 1, 2, 3])
    chain = min(chain, SS - 1)
    active = [s for s in range(n) if s not in out]
    to_act = rng.choice(active)
    move = "extra" if (not pile and rng.random() < 0.3) else "first"
    moves = rng.choice([0, 0, 5, 997, 999])
    state = {
        "seats": [{"hand": group(hands[s]), "up": [None if c is None else ctext(c) for c in ups[s]],
                   "down": [None if c is None else ctext(c) for c in downs[s]]} for s in range(n)],
        "pile": [[s, group(cs)] for s, cs in pile],
        "chain": chain,
        "draw": group(draw),
        "out": out,
        "to_act": to_act,
        "move": move,
        "known": {s: group(known[s]) for s in range(n) if known[s]},
        "switches": sw,
        "moves": moves,
    }
    ref = Ref(n, hands, ups, downs, pile, chain, draw, out, to_act, move, known, sw, moves=moves)
    return n, state, ref
