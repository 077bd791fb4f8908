"""Court Piece env surface (spec section 9; PettingZoo's api_test/seed_test: tests/core/test_pettingzoo_stock.py): config and reset errors (9.6),
action names (9.5), determinism (9.7) and AEC == BatchGame (9.8)."""
import copy
import json

import numpy as np
import pytest
from courtpiece_configs import CONFIGS
from courtpiece_reference import record_bytes

import courtpiece_env

DEAL_A = [
    "AH KH 5H 9C 3D | QS 7S 4C 2D | JD 8H 6C 2S",
    "AS KS 9H 7D 4H | AD KD 8D 5S | TS 3S 6H 2H",
    "AC KC QC 6D TH | JC TC 8C QD | 7C 5C 3C 2C",
    "JH 4D 4S 9S 3H | QH 5D 6S 8S | 7H 9D TD JS",
]

IDS = ["-".join(str(v) for v in c.values()) for c in CONFIGS]


def test_courtpiece_spaces_and_metadata():
    env = courtpiece_env.env(variant="double_sar")
    raw = env.unwrapped
    assert isinstance(raw, courtpiece_env.raw_env)
    assert raw.metadata["name"] == "courtpiece_v0"
    assert env.possible_agents == [f"player_{i}" for i in range(4)]
    env.reset(seed=3)
    for a in env.possible_agents:
        assert env.action_space(a).n == 60
        obs = env.observe(a)
        assert obs["observation"].shape == (916,) and obs["observation"].dtype == np.float32
        assert obs["action_mask"].shape == (60,) and obs["action_mask"].dtype == np.int8
        assert (obs["action_mask"].sum() > 0) == (a == env.agent_selection)
        assert env.infos[a]["phase"] == "call"
    # the raw env's public methods are reachable through the wrapper
    assert env.action_name(51) == "play AS" and env.hand(0) == raw.hand(0)


# ---- 9.6 config errors ------------------------------------------------------------------------
BAD_CONFIGS = [
    dict(variant="x"), dict(colour="red"), dict(change_cards_limit=0), dict(match_target=0),
    dict(split_win_points=-1, variant="mendi_coat"), dict(match_target=2.5), dict(play_out="yes"),
    dict(call_seconds=0), dict(call_seconds="20"),
    # an int too large for a float is no finite number of seconds (it raised OverflowError)
    dict(call_seconds=10**400), dict(band_hide_seconds=-10**400),
    dict(variant="single_sar", ace_on_ace=True), dict(variant="mendi_coat", scoring="kots"),
    dict(variant="be_rang", change_trump=True), dict(variant="mendi_coat", change_trump=True),
    dict(variant="chhupa_rang", trump_from_first_five=False), dict(variant="single_sar", mendi_trump="band"),
    dict(variant="be_rang", split_win_points=2), dict(variant="double_sar", closed_11_12=1),
]


@pytest.mark.parametrize("config", BAD_CONFIGS, ids=[json.dumps(c)[:60] for c in BAD_CONFIGS])
def test_courtpiece_bad_config_raises(config):
    with pytest.raises(ValueError):
        courtpiece_env.raw_env(**config)
    with pytest.raises(ValueError):
        courtpiece_env.env(**config)
    with pytest.raises(ValueError):
        courtpiece_env.BatchGame(2, **config)


def test_courtpiece_in_scope_options_accepted():
    courtpiece_env.env(variant="mendi_coat", streak_bonus=False, split_win_points=0, mendi_trump="band")
    courtpiece_env.env(variant="double_sar", ace_on_ace=True, trump_ace_blocks=True, closed_11_12=True,
                       trump_from_first_five=False, change_trump=True, scoring="kots")
    courtpiece_env.env(variant="chhupa_rang", change_trump=True, call_seconds=1.5, match_target=None)
    with pytest.raises(ValueError):
        courtpiece_env.BatchGame(2, variant="single_sar", render_mode="ansi")


# ---- 9.6 reset errors, env unchanged ----------------------------------------------------------
def _snapshot(env):
    raw = env.unwrapped
    return (json.dumps(raw.public_state()), env.agent_selection,
            {a: env.observe(a)["action_mask"].tolist() for a in env.possible_agents},
            dict(env.rewards), dict(env.terminations), repr(env.infos),
            [raw.hand(s) for s in range(4)])


A_SWAPPED = [DEAL_A[0].replace("AH", "AS"), DEAL_A[1].replace("AS", "AH")] + DEAL_A[2:]
BAD_RESETS = [
    {"colour": 1, "deals": []},  # (the unknown key only warns, 9.6: the known one's value fails)
    {"deal": {"hands": DEAL_A, "dealer": 3}, "deals": [{"hands": DEAL_A, "dealer": 3}]},
    {"deals": []},
    {"deals": [{"hands": DEAL_A, "dealer": 3}, {"hands": DEAL_A}]},
    {"match_state": {"score": [0, 0], "streak": [None, 0]}},
    {"deal": {"hands": DEAL_A[:3], "dealer": 3}},
    {"deal": {"hands": [DEAL_A[0]] * 4, "dealer": 3}},
    {"deal": {"hands": [DEAL_A[0] + " 2C"] + DEAL_A[1:], "dealer": 3}},
    {"deal": {"hands": [DEAL_A[0].replace("AH", "ZH")] + DEAL_A[1:], "dealer": 3}},
    {"deal": {"hands": DEAL_A, "dealer": 4}},
    {"deal": {"hands": DEAL_A, "dealer": True}},
    {"deal": {"hands": DEAL_A, "dealer": 3, "draw": ["AS", "KS", "QS", "JS"]}},
    {"deal": {"hands": DEAL_A, "draw": ["AS", "AD", "3C", "4C"]}},
    {"deal": {"hands": DEAL_A, "draw": ["AS", "AS", "3C", "4C"]}},
    {"deal": {"hands": DEAL_A, "dealer": 3, "turned": "AH"}},
    {"deal": {"hands": DEAL_A, "dealer": 3, "turned": "XX"}},
    {"deal": {"hands": DEAL_A, "dealer": 3, "band_timeout": "QS"}},
    {"deal": {"hands": DEAL_A, "dealer": 3, "extra": 1}},
    {"deal": {"hands": DEAL_A, "dealer": 3, "change_cards": [{"seat": 0, "hands": A_SWAPPED}]}},
    {"deal": {"hands": DEAL_A, "dealer": 3, "change_cards": [{"seat": 5, "hands": DEAL_A}]}},
    {"deal": "not a dict"},
]


@pytest.mark.parametrize("options", BAD_RESETS, ids=[str(i) for i in range(len(BAD_RESETS))])
def test_courtpiece_bad_reset_raises_and_changes_nothing(options):
    env = courtpiece_env.env(variant="single_sar")
    env.reset(seed=5)
    env.step(int(np.flatnonzero(env.infos[env.agent_selection]["action_mask"])[0]))
    before = _snapshot(env)
    with pytest.raises(ValueError):
        env.reset(seed=9, options=copy.deepcopy(options))
    assert _snapshot(env) == before
    # the generator is untouched too: a seedless reset continues the same stream as a twin env
    twin = courtpiece_env.env(variant="single_sar")
    twin.reset(seed=5)
    env.reset()
    twin.reset()
    assert env.unwrapped.public_state() == twin.unwrapped.public_state()
    assert [env.unwrapped.hand(s) for s in range(4)] == [twin.unwrapped.hand(s) for s in range(4)]


MATCH_BAD = [
    {"match_state": {"score": [0, 0], "streak": [None, 2]}},
    {"match_state": {"score": [0, 0], "streak": [1, 0]}},
    {"match_state": {"score": [0, 0], "streak": [2, 1]}},
    {"match_state": {"score": [0, 0], "streak": [0, 7]}},
    {"match_state": {"score": [0], "streak": [None, 0]}},
    {"match_state": {"score": [0, 0], "streak": [None, 0], "x": 1}},
    {"deals": [{"hands": DEAL_A, "dealer": 3}, {"hands": DEAL_A, "dealer": 1}]},
    {"deals": [{"hands": DEAL_A, "dealer": 3}, {"hands": DEAL_A, "turned": "QS"}]},
    {"deals": [{"hands": DEAL_A, "dealer": 3}, {"draw": ["AS", "KS", "QS", "JS"]}]},
    {"deals": [{"hands": DEAL_A, "dealer": 3}, {"band_timeout": "AH"}]},
]


@pytest.mark.parametrize("options", MATCH_BAD, ids=[str(i) for i in range(len(MATCH_BAD))])
def test_courtpiece_bad_match_reset_raises(options):
    env = courtpiece_env.env(variant="single_sar", episode="match")
    env.reset(seed=1)
    before = _snapshot(env)
    with pytest.raises(ValueError):
        env.reset(seed=2, options=options)
    assert _snapshot(env) == before


def test_courtpiece_match_state_and_deals_accepted():
    env = courtpiece_env.env(variant="single_sar", episode="match")
    env.reset(seed=1, options={"deals": [{"hands": DEAL_A, "dealer": 3}, {"hands": DEAL_A}],
                               "match_state": {"score": [2, 4], "streak": [1, 3], "bazi_index": 5}})
    s = env.unwrapped.public_state()
    assert s["score"] == [2, 4] and s["streak"] == [1, 3] and s["bazi_index"] == 5 and s["target"] == 10


def test_courtpiece_draw_from_generator_and_injected():
    env = courtpiece_env.env()
    env.reset(options={"deal": {"hands": DEAL_A, "draw": ["2C", "3C", "KD", "4C"]}})
    s = env.unwrapped.public_state()
    assert s["first_chooser"] == 2 and s["dealer"] == 1
    for seed in range(20):
        env.reset(seed=seed)
        perm = np.random.default_rng(seed).permutation(52)
        contenders, k = [0, 1, 2, 3], 0
        while True:
            ranks = {}
            for seat in contenders:
                ranks[seat] = perm[k] % 13
                k += 1
            best = max(ranks.values())
            contenders = [seat for seat in contenders if ranks[seat] == best]
            if len(contenders) == 1:
                break
        assert env.unwrapped.public_state()["first_chooser"] == contenders[0]


# ---- 9.6 step / timeout / names errors --------------------------------------------------------
def test_courtpiece_step_errors_leave_env_unchanged():
    env = courtpiece_env.env(variant="chhupa_rang")
    env.reset(seed=11)
    before = _snapshot(env)
    mask = env.infos[env.agent_selection]["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    for bad in (illegal, 60, -1, 3.0, "AS", None, True):
        with pytest.raises(ValueError):
            env.step(bad)
        assert _snapshot(env) == before
    env.step(np.int64(np.flatnonzero(mask)[0]))


def test_courtpiece_timeout_over_and_dead_steps():
    env = courtpiece_env.env(variant="single_sar")
    env.reset(seed=4)
    n = 0
    while not all(env.terminations.values()):
        env.unwrapped.timeout()
        n += 1
    assert env.unwrapped.public_state()["phase"] == "over" and env.unwrapped.public_state()["actor"] is None
    with pytest.raises(ValueError):
        env.unwrapped.timeout()
    rewards = [env.rewards[a] for a in env.possible_agents]
    assert rewards[0] == rewards[2] == -rewards[1] == -rewards[3] != 0
    for a in env.possible_agents:
        assert "result" in env.infos[a] and env.infos[a]["phase"] == "over"
    while env.agents:
        env.step(None)


def test_courtpiece_action_names_round_trip():
    raw = courtpiece_env.raw_env()
    for a in range(60):
        assert raw.action_from_name(raw.action_name(a)) == a
    assert raw.action_name(0) == "play 2C" and raw.action_name(34) == "play TH"
    assert raw.action_name(52) == "call trump C" and raw.action_name(55) == "call trump S"
    assert [raw.action_name(a) for a in (56, 57, 58, 59)] == ["pass", "ask reveal", "lead reveal", "change cards"]
    assert raw.action_from_name("play 10H") == 34
    for bad in (60, -1, 1.5, "3"):
        with pytest.raises(ValueError):
            raw.action_name(bad)
    # 9.5 / 9.6: action_name takes what step takes (a 0-d int array too) and refuses the rest with a
    # ValueError, never truncating a float or reading a bool as a card id
    assert raw.action_name(np.array(34)) == "play TH" and raw.action_name(np.uint8(56)) == "pass"
    for bad in (np.array(1.0), np.array(1.5), np.array(True), np.array([1]), np.array([[1]]), np.array([])):
        with pytest.raises(ValueError, match="action"):
            raw.action_name(bad)
    for bad in ("play 1H", "call trump X", "jump", "", 3, "play"):
        with pytest.raises(ValueError):
            raw.action_from_name(bad)
    raw.reset(seed=0)
    for bad in (4, -1, "0", 1.0):
        with pytest.raises(ValueError):
            raw.hand(bad)


def test_courtpiece_render_ansi():
    env = courtpiece_env.env(variant="double_sar", render_mode="ansi")
    env.reset(seed=2)
    while env.unwrapped.public_state()["phase"] != "play":
        env.step(int(np.flatnonzero(env.infos[env.agent_selection]["action_mask"])[0]))
    for _ in range(9):
        env.step(int(np.flatnonzero(env.infos[env.agent_selection]["action_mask"])[0]))
    text = env.render()
    assert "trump: " in text and "pile" in text and any(sym in text for sym in "♣♦♥♠")
    env = courtpiece_env.env(variant="chhupa_rang", render_mode="ansi")
    env.reset(seed=2, options={"deal": {"hands": DEAL_A, "dealer": 3}})
    env.step(37)
    assert "hidden" in env.render()
    text = env.render()
    assert "trick 1: -" in text or "trick 1: s" in text
    while env.agents:   # over: the table shows no trick after the last one
        agent = env.agent_selection
        env.step(None if env.terminations[agent] else int(np.flatnonzero(env.infos[agent]["action_mask"])[0]))
    text = env.render()
    assert "result: team" in text and "\ntrick " not in text


# ---- 9.7 determinism and 9.8 AEC == BatchGame ---------------------------------------------------
def _play_aec(config, seed, choices, deal=None, timeouts=False):
    env = courtpiece_env.env(**config)
    env.reset(seed=seed, options=None if deal is None else {"deal": deal})
    trace = []
    k = 0
    while not all(env.terminations[a] for a in env.agents):
        legal = np.flatnonzero(env.infos[env.agent_selection]["action_mask"])
        if timeouts and k % 7 == 3:
            env.unwrapped.timeout()
        else:
            env.step(int(legal[choices[k % len(choices)] % len(legal)]))
        k += 1
        trace.append((env.unwrapped.public_state(), [env.rewards[a] for a in env.possible_agents]))
    return trace


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_courtpiece_same_seed_same_game(config):
    choices = list(np.random.default_rng(0).integers(0, 1000, 400))
    for seed in (1, 2):
        assert _play_aec(config, seed, choices, timeouts=True) == _play_aec(config, seed, choices, timeouts=True)


BATCH_CONFIGS = CONFIGS + [
    dict(variant="single_sar", change_cards=True, change_cards_limit=2, change_trump=True),
    dict(variant="double_sar", ace_on_ace=True, trump_ace_blocks=True, closed_11_12=True, play_out=True),
    dict(variant="chhupa_rang", change_trump=True, play_out=True, scoring="kots"),
    dict(variant="be_rang", change_cards=True, play_out=True),
]


@pytest.mark.parametrize("config", BATCH_CONFIGS, ids=[json.dumps(c) for c in BATCH_CONFIGS])
def test_courtpiece_aec_equals_batch(config):
    n, seed = 6, 100
    g = courtpiece_env.BatchGame(n, **config)
    g.reset(seed=seed)
    assert g.rewards.shape == (n, 4) and not g.rewards.any()
    envs = [courtpiece_env.env(**config) for _ in range(n)]
    for b, e in enumerate(envs):
        e.reset(seed=seed + b)
    rng = np.random.default_rng(7)
    for _ in range(400):
        if g.done.all():
            break
        mask = g.legal_mask()
        acts = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in mask])
        g.step(acts)
        for b, e in enumerate(envs):
            live = not all(e.terminations[a] for a in e.agents)
            if live:
                e.step(int(acts[b]))
                assert g.rewards[b].tolist() == [e.rewards[a] for a in e.possible_agents]
            else:
                assert (g.rewards[b] == 0).all()   # a done game is not stepped: it gets nothing
            assert g.public_state(b) == e.unwrapped.public_state()
        obs = g.observe()
        for b, e in enumerate(envs):
            if not g.done[b]:
                seat = int(g.current_player[b])
                assert np.array_equal(obs[b], e.observe(f"player_{seat}")["observation"])
                assert np.array_equal(g.legal_mask()[b],
                                      e.observe(f"player_{seat}")["action_mask"].astype(np.uint8))
    assert g.done.all()
    # deal injection reaches game b exactly as reset(seed=s+b, options={"deal": ...})
    g.reset(seed=seed, deals=[{"hands": DEAL_A, "dealer": 3}] * n)
    e = courtpiece_env.env(**config)
    e.reset(seed=seed + 2, options={"deal": {"hands": DEAL_A, "dealer": 3}})
    assert g.public_state(2) == e.unwrapped.public_state()


def test_courtpiece_batch_errors():
    g = courtpiece_env.BatchGame(3, variant="single_sar")
    g.reset(seed=0)
    mask = g.legal_mask()
    before = g._st.copy()
    acts = mask.argmax(1)
    bad = acts.copy()
    bad[1] = int(np.flatnonzero(mask[1] == 0)[0])
    with pytest.raises(ValueError):
        g.step(bad)
    with pytest.raises(ValueError):
        g.step(acts[:2])
    assert record_bytes(g._st) == record_bytes(before)
    with pytest.raises(ValueError):
        g.reset(seed=0, deals=[{"hands": DEAL_A, "dealer": 3}, {"hands": DEAL_A[:3]}, None])
    assert record_bytes(g._st) == record_bytes(before)
    g.step(acts)
    n = g.rollout(policy="random", seed=3)
    assert n > 0 and g.done.all() and (g.current_player == -1).all()
    assert (g.legal_mask() == 0).all()
    assert np.allclose(g.rewards.sum(1), 0)


def test_courtpiece_batch_config_array_is_a_copy_of_the_kernels_options():
    from courtpiece_env.config import C_VARIANT, MENDI_COAT

    g = courtpiece_env.BatchGame(2, variant="mendi_coat")
    a = g.config_array
    assert a.dtype == np.int64 and np.array_equal(a, g.config.to_array()) and a[C_VARIANT] == MENDI_COAT
    a[C_VARIANT] = -1                     # writing to the copy leaves the games' options alone
    assert g.config_array[C_VARIANT] == MENDI_COAT


# ---- 3.3: the observation carries nothing hidden from the seat ---------------------------------
def _obs(env, seat):
    return env.observe(f"player_{seat}")["observation"]


def test_courtpiece_observation_hides_other_hands():
    other = list(DEAL_A)
    # seats 1 and 3 swap their third packets: nothing seat 0 or seat 2 can see changes
    p1, p3 = DEAL_A[1].split("|"), DEAL_A[3].split("|")
    other[1] = "|".join(p1[:2] + [p3[2]])
    other[3] = "|".join(p3[:2] + [p1[2]])
    envs = []
    for hands in (DEAL_A, other):
        e = courtpiece_env.env(variant="single_sar")
        e.reset(seed=0, options={"deal": {"hands": hands, "dealer": 3}})
        envs.append(e)
    for action in (None, 54, "9C", "AS", "AC", "4D"):
        for e in envs:
            if action is not None:
                e.step(action if isinstance(action, int) else e.unwrapped.action_from_name("play " + action))
        for seat in (0, 2):
            assert np.array_equal(_obs(envs[0], seat), _obs(envs[1], seat))
        assert envs[0].unwrapped.public_state() == envs[1].unwrapped.public_state()
    assert not np.array_equal(_obs(envs[0], 1), _obs(envs[1], 1))


def test_courtpiece_observation_hides_the_face_down_card():
    envs = []
    for card in (37, 38):            # s0 hides KH or AH (CP-7.1): only s0 can tell the difference
        e = courtpiece_env.env(variant="chhupa_rang")
        e.reset(seed=0, options={"deal": {"hands": DEAL_A, "dealer": 3}})
        e.step(card)
        envs.append(e)
    for seat in (1, 2, 3):
        assert np.array_equal(_obs(envs[0], seat), _obs(envs[1], seat))
    o0 = _obs(envs[0], 0)
    assert o0[104 + 37] == 1.0 and o0[37] == 0.0          # own face-down block, not in hand
    assert not np.array_equal(o0, _obs(envs[1], 0))
    # CP-7.8: the unseen card is in nobody's observation
    e = courtpiece_env.env(variant="chhupa_rang")
    e.reset(seed=0, options={"deal": {"hands": DEAL_A, "dealer": 3, "turned": "4C"}})
    e.step(56)
    e.unwrapped.timeout()
    assert e.unwrapped.public_state()["hidden_owner"] == 0
    for seat in range(4):
        o = _obs(e, seat)
        assert o[104:156].sum() == 0 and o[2] == 0.0      # 4C (id 2): in no hand, in no face-down block


def test_courtpiece_observation_layout():
    e = courtpiece_env.env(variant="double_sar")
    e.reset(seed=0, options={"deal": {"hands": DEAL_A, "dealer": 3}})
    o = _obs(e, 1)
    assert o.min() >= -1.0 and o.max() <= 1.0
    assert o[832 + 1] == 1.0                       # variant double_sar
    assert o[839 + 1] == 1.0                       # phase call
    assert o[850 + 2] == 1.0 and o[854 + 3] == 1.0  # dealer s3, first chooser s0, relative to s1
    assert np.allclose(o[885:889], 5 / 13)          # hand sizes in the call phase
    assert sorted(np.flatnonzero(o[:52]).tolist()) == sorted([51, 50, 33, 18, 28])  # AS KS 9H 7D 4H


# ---- CP-12: whole games played by timeouts ----------------------------------------------------
TIMEOUT_CONFIGS = [
    dict(variant="single_sar", change_cards=True, change_trump=True),
    dict(variant="double_sar"),
    dict(variant="chhupa_rang", change_trump=True),
    dict(variant="chhupa_rang", play_out=True),
    dict(variant="be_rang"),
    dict(variant="mendi_coat", mendi_trump="band"),
    dict(variant="single_sar", episode="match", match_target=2),
]


@pytest.mark.parametrize("config", TIMEOUT_CONFIGS, ids=[json.dumps(c) for c in TIMEOUT_CONFIGS])
def test_courtpiece_games_by_timeouts(config):
    """timeout() at every decision (CP-12.2): CP-3.5 / CP-7.8 / Band-hide events, random legal cards,
    forced reveals; the visible conservation of 9.3 holds after every call."""
    env = courtpiece_env.env(**config)
    for seed in range(12):
        env.reset(seed=seed)
        phases = set()
        while not all(env.terminations[a] for a in env.agents):
            before = env.unwrapped.public_state()
            env.unwrapped.timeout()
            s = env.unwrapped.public_state()
            phases.add(before["phase"])
            if before["phase"] in ("call", "hide") and before["passed"] and s["phase"] != before["phase"]:
                # the partner's timeout: nobody named or hid
                assert s["caller"] is None or s["trump_changed"]
                assert (s["turned_card"] is not None) == (config["variant"] != "chhupa_rang")
            if s["phase"] == "play":
                hidden = 1 if s["hidden_owner"] is not None else 0
                assert sum(s["hand_sizes"]) + hidden + len(s["current_trick"]) + 4 * s["trick_number"] == 52
                assert sum(s["tricks_won"]) == s["trick_number"] == len(s["tricks"])
        r = [env.rewards[a] for a in env.possible_agents]
        assert r[0] == r[2] == -r[1] == -r[3]
        assert env.unwrapped.public_state()["phase"] == "over"
        assert "play" in phases


def test_courtpiece_timeout_in_agent_iter_loop():
    """CP-12.2 / 9.1: the runner calls env.timeout() *instead of* env.step(action), and timeout updates
    everything "exactly as step does" -- so PettingZoo's standard agent_iter loop, which checks that
    every turn ends in step() or reset(), must accept a turn that ended in timeout()."""
    env = courtpiece_env.env(variant="single_sar", change_cards=True)
    env.reset(seed=1)
    decisions = 0
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        decisions += 1
        if decisions % 2:
            env.timeout()
        else:
            env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert not env.agents and decisions > 10
