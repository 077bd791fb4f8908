"""Section 8 cases marked "(kernel)": checked through the rule functions of shengji_env.kernels."""
import pytest

from shengji_env import kernels as K
from shengji_env.rules import by_name


def texts(cards):
    return " ".join(sorted(cards.split(), key=lambda t: by_name._counts(t).argmax()))


def norm(play):
    """card set text in ascending card index order"""
    return by_name._text(by_name._counts(play))


def comp_set(comps):
    return [(k, L) for k, L, top, cards in comps]


def test_shengji_case_P_01():
    # SJ-3.3/3.4, level 10, spades trump
    exp = {53: ("TRUMP", 15), 52: ("TRUMP", 14), 47: ("TRUMP", 13), 34: ("TRUMP", 12), 21: ("TRUMP", 12),
           8: ("TRUMP", 12), 51: ("TRUMP", 11), 50: ("TRUMP", 10), 48: ("TRUMP", 8), 46: ("TRUMP", 7),
           39: ("TRUMP", 0), 38: ("H", 11), 35: ("H", 8), 33: ("H", 7), 26: ("H", 0)}
    for c, e in exp.items():
        assert K.esuit_pos(c, "T", "S") == e, c


def test_shengji_case_P_03():
    # SJ-6.2/7.2, level 2, hearts trump
    assert comp_set(K.decompose("3C 3C 4C 4C", "2", "H")) == [(2, 2)]
    assert comp_set(K.decompose("AH AH 2C 2C", "2", "H")) == [(2, 2)]
    assert K.decompose("AH AH 2C 2C", "2", "H")[0][2] == 12
    assert comp_set(K.decompose("2H 2H LJ LJ", "2", "H")) == [(2, 2)]
    assert comp_set(K.decompose("2C 2C 2H 2H", "2", "H")) == [(2, 2)]
    assert comp_set(K.decompose("AC AC 3C 3C", "2", "H")) == [(2, 1), (2, 1)]
    d = K.decompose("2C 2C 2D 2D", "2", "H")
    assert comp_set(d) == [(2, 1), (2, 1)]
    assert [c[3] for c in d] == ["2D 2D", "2C 2C"]   # equal keys: descending index tuple


@pytest.mark.parametrize("cards", ["2H 2H 3H 3H", "9H 9H JH JH", "2S 2S 3S 3S", "9S 9S JS JS", "AS AS TD TD",
                                   "TC TC TS TS", "TS TS LJ LJ", "LJ LJ BJ BJ"])
def test_shengji_case_P_04(cards):
    assert comp_set(K.decompose(cards, "T", "S")) == [(2, 2)]


def test_shengji_case_P_04_not_tractors():
    assert comp_set(K.decompose("TS TS JS JS", "T", "S")) == [(2, 1), (2, 1)]
    assert comp_set(K.decompose("TD TD TC TC", "T", "S")) == [(2, 1), (2, 1)]
    with pytest.raises(ValueError):
        K.decompose("9H 9H TH TH", "T", "S")       # two effective suits: cannot be led


def test_shengji_case_P_04_lead_mask():
    # 9H9HTHTH cannot be led: after CARD 33 (9H) the lead mask excludes 34 (TH, TRUMP)
    import numpy as np
    st, cfg = by_name._blank_state(2, 8, 3)
    s = by_name._rec(st)
    s.hand[0, :] = by_name._counts("9H 9H TH TH 3C")
    s.phase = K.LEAD
    s.actor = 0
    s.leader = 0
    s.banker = 0
    s.sel[33] = 1
    s.nsel = 1
    K.sync_card_sets(st)           # the counts were written by hand: bring the card sets up to them
    out = np.zeros(84, np.uint8)
    K.legal_mask(st, 0, cfg, out)
    assert set(np.flatnonzero(out)) == {33, 54}


def test_shengji_case_P_06():
    assert comp_set(K.decompose("TD TD LJ LJ", "T", "NT")) == [(2, 2)]
    assert comp_set(K.decompose("TD TD TC TC", "T", "NT")) == [(2, 1), (2, 1)]
    assert comp_set(K.decompose("TH TH LJ LJ BJ BJ", "T", "NT")) == [(2, 3)]


def test_shengji_case_P_07():
    # SJ-4.4/4.5 overcall ladder, D = 2, level 10
    assert K.declaration_options("TH", "T", seat=1) == [64]
    st = (1, "TH", 1)
    assert K.declaration_options("TS TS", "T", seat=2, standing=st) == [69]
    st = (2, "TS", 2)
    assert K.declaration_options("LJ LJ TC", "T", seat=3, standing=st) == [73]
    st = (3, "LJ", 2)
    assert K.declaration_options("BJ BJ TH", "T", seat=0, standing=st) == [77]
    st = (0, "BJ", 2)
    assert K.declaration_options("TH", "T", seat=1, standing=st) == []


def test_shengji_case_P_08():
    st = (1, "2H", 1)
    assert K.declaration_options("2H 2H 2S 2S", "2", seat=1, standing=st) == [65]
    st = (1, "2H", 2)
    assert K.declaration_options("2C 2C", "2", seat=3, standing=st) == []
    assert K.declaration_options("2C 2C LJ LJ", "2", seat=3, standing=st) == [73]


def test_shengji_case_P_09():
    assert K.declaration_options("LJ BJ", "2", seat=2) == []
    assert K.declaration_options("BJ BJ 2D", "2", seat=2, allow_no_trump=False) == [60]


def test_shengji_case_P_10():
    st = (0, "LJ", 2)
    assert K.declaration_options("2D 2D 2D", "2", seat=1, standing=st, decks=3) == [62]
    st = (1, "2D", 3)
    assert K.declaration_options("BJ BJ BJ", "2", seat=2, standing=st, decks=3) == [78]
    st = (2, "BJ", 3)
    assert K.declaration_options("2S 2S 2S", "2", seat=3, standing=st, decks=3) == []


def plays(*texts_):
    return {norm(t) for t in texts_}


def test_shengji_case_P_17():
    got = K.follow_plays("8H 8H", "5H 5H 5H 9H KH 3C 4C", "2", "S", decks=3)
    assert got == plays("5H 5H")


def test_shengji_case_P_18():
    got = K.follow_plays("8H 8H", "3H 9H QH 4C 6C", "2", "S")
    assert got == plays("3H 9H", "3H QH", "9H QH")


def test_shengji_case_P_19():
    assert K.follow_plays("7H 7H 8H 8H", "3H 3H 4H 4H 9H 9H 5H", "2", "S") == plays("3H 3H 4H 4H")
    assert K.follow_plays("7H 7H 8H 8H", "3H 3H 9H 9H 5H 6H", "2", "S") == plays("3H 3H 9H 9H")


def test_shengji_case_P_20():
    got = K.follow_plays("7H 7H 8H 8H", "3H 3H 5H 6H 9H", "2", "S")
    assert got == plays("3H 3H 5H 6H", "3H 3H 5H 9H", "3H 3H 6H 9H")


def test_shengji_case_P_21():
    got = K.follow_plays("7H 7H 7H", "3H 3H 4H 4H 9H", "2", "S", decks=3)
    assert got == plays("3H 3H 4H", "3H 3H 9H", "3H 4H 4H", "4H 4H 9H")


def test_shengji_case_P_22():
    got = K.follow_plays("7H 7H 7H 8H 8H 8H", "3H 3H 3H 5H 5H 6H 6H QH", "2", "S", decks=3)
    assert got == plays("3H 3H 3H 5H 5H 6H", "3H 3H 3H 5H 5H QH", "3H 3H 3H 5H 6H 6H", "3H 3H 3H 6H 6H QH")


# ---- the SJ-8.4 ruling examples (D = 4, level 2, spades trump, hearts led) ----

def test_sj_8_4_rulings_four_decks():
    assert K.follow_plays("8H 8H", "5H 5H 5H 5H 9H KH", "2", "S", decks=4) == plays("5H 5H")
    assert K.follow_plays("8H 8H 8H", "5H 5H 5H 5H 9H KH", "2", "S", decks=4) == plays("5H 5H 5H")
    got = K.follow_plays("8H 8H 8H 8H", "5H 5H 6H 6H 9H KH", "2", "S", decks=4)
    assert norm("5H 6H 9H KH") not in got and len(got) > 0
    assert all("5H 5H" in g or "6H 6H" in g for g in got)
    assert K.follow_plays("8H 8H 9H 9H", "5H 5H 5H 5H 9H", "2", "S", decks=4) == plays("5H 5H 5H 5H")
    assert K.follow_plays("8H 8H 9H 9H", "5H 5H 5H 5H 7H 7H 8H 8H 9H", "2", "S", decks=4) == plays("7H 7H 8H 8H")
    got = K.follow_plays("8H 8H 8H 8H", "5H 5H 9H 9H KH", "2", "S", decks=4)
    assert {norm("5H 5H 9H 9H"), norm("5H 5H 9H KH"), norm("5H 9H 9H KH")} <= got


def test_sj_7_2_decomposition_examples():
    assert comp_set(K.decompose("3H 3H 4H 4H 5H 5H", "2", "S", 3)) == [(2, 3)]
    assert comp_set(K.decompose("3H 3H 3H 4H 4H", "2", "S", 3)) == [(2, 2), (1, 1)]
    assert comp_set(K.decompose("3H 3H 3H 4H 4H 4H 6H 6H", "2", "S", 3)) == [(3, 2), (2, 1)]
    assert comp_set(K.decompose("AH AH KH", "2", "S", 3)) == [(2, 1), (1, 1)]
    assert comp_set(K.decompose("3H 3H 3H 3H 4H 4H", "2", "S", 4)) == [(4, 1), (2, 1)]
    assert comp_set(K.decompose("3H 3H 3H 3H 4H 4H 5H 5H", "2", "S", 4)) == [(2, 3), (2, 1)]
    # the branch a greedy first choice gets wrong: 2C x3, 2D x2, 2S x2 (level 2, spades trump)
    assert comp_set(K.decompose("2C 2C 2C 2D 2D 2S 2S", "2", "S", 3)) == [(2, 2), (3, 1)]


def test_sj_7_4_throw_checks():
    # P-28 (level 10, spades trump): QH 4H4H
    assert K.throw_check("QH 4H 4H", ["5H 6H", "KH 3H", "7H 8H"], "T", "S") == (False, "QH")
    assert K.throw_check("QH 4H 4H", ["5H 5H", "JH 3H", ""], "T", "S") == (False, "4H 4H")
    assert K.throw_check("QH 4H 4H", ["5H 5H", "KH 3H", ""], "T", "S") == (False, "QH")
    assert K.throw_check("QH 4H 4H", ["3H 3H", "JH", "7H 8H"], "T", "S") == (True, norm("QH 4H 4H"))
    # P-29 (level 2, spades trump)
    assert K.throw_check("AH AH KH KH 9H", ["", "", "JH"], "2", "S") == (False, "9H")
    assert K.throw_check("6H 6H 7H 7H AH", ["9H 9H TH TH", "AH", ""], "2", "S") == (False, "6H 6H 7H 7H")


def test_sj_9_winner_examples():
    # P-27 successful throw AHAH KH, level 10 spades: s3's 4S4S 2S beats s1's 3S3S 5S
    assert K.trick_winner(["AH AH KH", "3S 3S 5S", "QH QH 5H", "4S 4S 2S"], "T", "S") == 3
    assert K.trick_winner(["AH AH KH", "3S 3S 5S", "QH QH 5H", "2S 2S AS"], "T", "S") == 1
    # SJ-9.2 mixed throw (D = 3)
    lead = "AH AH AH 5H 5H 6H 6H"
    assert K.trick_winner([lead, "9S 9S 9S 3S 3S 4S 4S", "6S 6S 6S 7S 7S 8S 8S"], "2", "S", decks=3) == 2


def test_sj_10_11_tables():
    assert K.kitty_multiplier([(1, 1)], "flat") == 2
    assert K.kitty_multiplier([(2, 2)], "times_size") == 8
    assert K.kitty_multiplier([(3, 1)], "power_size") == 8
    assert K.kitty_multiplier([(2, 1), (1, 1)], "single_or_multi") == 4
    assert K.kitty_multiplier([(2, 1), (1, 1)], "times_size") == 4
    assert K.level_result(0, 2) == ("hold", 3)
    assert K.level_result(35, 2) == ("hold", 2)
    assert K.level_result(75, 2) == ("hold", 1)
    assert K.level_result(80, 2) == ("takeover", 0)
    assert K.level_result(240, 2) == ("takeover", 4)
    assert K.level_result(100, 1) == ("takeover", 3)
    assert K.level_result(320, 4) == ("takeover", 2)
    assert K.advance_levels("K", 3, True) == (12, 1, False)
    assert K.advance_levels("A", 1, True) == (12, 1, True)
    assert K.advance_levels("Q", 3, False) == (12, 2, False)
    assert K.advance_levels("A", 2, False) == (12, 0, False)
    assert K.kitty_flip("LJ 9C 7D KS 7H 2C 3H AD", "7") == ("C", ["LJ", "9C"])
    assert K.kitty_flip("LJ 9C 7D KS 7H 2C 3H AD", "7", "first_level_or_highest") == ("D", ["LJ", "9C", "7D"])
    assert K.kitty_flip("BJ 4S KH 9C KD 2S QH 5D", "7") == ("S", ["BJ", "4S"])
    t, rev = K.kitty_flip("BJ 4S KH 9C KD 2S QH 5D", "7", "first_level_or_highest")
    assert t == "H" and len(rev) == 8
