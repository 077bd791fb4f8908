"""Every input is checked with exact types and ranges (specs section 6, 9.6; docs/env_contract_inputs.md):
a refused input is one ValueError naming it, and it changes nothing -- position, masks,
agent_selection, rewards, generator. Table-driven cases for every game; tests/core/test_fuzz_inputs.py
searches the same inputs at random."""
from __future__ import annotations

import json
import math
import os
import pickle
from pathlib import Path

import numpy as np
import pytest

import courtpiece_env
import lopti_env
import shengji_env
from cardzoo.options import MAX_INT, SEED_MAX, NotResetError
from cardzoo.wrappers import SingleSeatEnv

ROOT = Path(__file__).resolve().parents[2]
from env_snapshot import snapshot

GAMES = {"courtpiece": courtpiece_env, "lopti": lopti_env, "shengji": shengji_env}


def assert_generator_untouched(mod, env, seed, **config):
    """After refused calls, the next unseeded reset deals what a twin that saw none of them deals."""
    twin = mod.env(**config)
    twin.reset(seed=seed)
    env.reset()
    twin.reset()
    assert env.unwrapped.public_state() == twin.unwrapped.public_state()
    assert [env.unwrapped.hand(s) for s in range(env.unwrapped.num_players)] == \
        [twin.unwrapped.hand(s) for s in range(twin.unwrapped.num_players)]


# ---- factories (section 6 / 9.1) ------------------------------------------------------------------
BAD_OPTIONS = [
    ("courtpiece", {"match_target": 2**63}, "match_target"),          # was an OverflowError
    ("courtpiece", {"match_target": MAX_INT + 1}, "match_target"),
    ("courtpiece", {"match_target": True}, "match_target"),
    ("courtpiece", {"match_target": 3.0}, "match_target"),
    ("courtpiece", {"change_cards_limit": 2**63}, "change_cards_limit"),
    ("courtpiece", {"change_cards_limit": np.float64(1)}, "change_cards_limit"),
    ("courtpiece", {"variant": "mendi_coat", "split_win_points": 2**40}, "split_win_points"),
    ("courtpiece", {"call_seconds": math.inf}, "call_seconds"),
    ("courtpiece", {"call_seconds": math.nan}, "call_seconds"),
    ("courtpiece", {"band_hide_seconds": True}, "band_hide_seconds"),
    ("courtpiece", {"play_out": 1}, "play_out"),
    ("courtpiece", {"variant": b"single_sar"}, "variant"),
    ("lopti", {"num_players": 2**63}, "num_players"),
    ("lopti", {"num_players": 4.0}, "num_players"),
    ("lopti", {"max_moves": True}, "max_moves"),
    ("lopti", {"session_rounds": 5.0}, "session_rounds"),
    ("lopti", {"first_dealer": np.float32(1)}, "first_dealer"),
    ("lopti", {"base_rules": {"SWAPS": True}}, "SWAPS"),
    ("lopti", {"initial_rules": [[1, 2.0, 0, 1]]}, "initial_rules"),
    ("lopti", {"session": 1}, "session"),
    ("shengji", {"decks": 2.0}, "decks"),                             # was accepted, then AxisError in reset
    ("shengji", {"decks": True}, "decks"),
    ("shengji", {"decks": np.float64(2)}, "decks"),
    ("shengji", {"max_hands": 2**63}, "max_hands"),
    ("shengji", {"first_drawer": True}, "first_drawer"),
    ("shengji", {"throw_penalty_points": 2**63}, "throw_penalty_points"),
    ("shengji", {"throw_penalty_points": 10.0}, "throw_penalty_points"),
    ("shengji", {"throw_penalty_points": MAX_INT + 5}, "throw_penalty_points"),  # a multiple of 5 past MAX_INT
    ("shengji", {"max_redeals": -1}, "max_redeals"),
    ("shengji", {"must_defend": ["A", 12]}, "must_defend"),
    ("shengji", {"auto_forced": np.True_}, "auto_forced"),
]


@pytest.mark.parametrize("game,kwargs,word", BAD_OPTIONS, ids=[f"{g}-{k}" for g, k, _ in BAD_OPTIONS])
def test_factories_refuse_bad_option_values(game, kwargs, word):
    mod = GAMES[game]
    for factory in (mod.env, mod.raw_env, lambda **k: mod.BatchGame(2, **k)):
        with pytest.raises(ValueError, match=word):
            factory(**kwargs)


def test_int_options_take_numpy_ints_and_keep_python_ints():
    cfgs = [courtpiece_env.raw_env(match_target=np.int64(5), change_cards_limit=np.uint8(2)).config,
            lopti_env.raw_env(num_players=np.int32(3), max_moves=np.int64(50)).config,
            shengji_env.raw_env(decks=np.int64(1), max_hands=np.int16(3)).config]
    values = [cfgs[0].match_target, cfgs[0].change_cards_limit, cfgs[1].num_players, cfgs[1].max_moves,
              cfgs[2].decks, cfgs[2].max_hands]
    assert values == [5, 2, 3, 50, 1, 3] and all(type(v) is int for v in values)
    assert courtpiece_env.raw_env(match_target=MAX_INT).config.target == MAX_INT
    with pytest.raises(ValueError, match="batch size"):
        courtpiece_env.BatchGame(2.0)


def test_batch_helpers_take_only_game_indices():
    helpers = [(courtpiece_env.BatchGame(2), "public_state"), (lopti_env.BatchGame(2), "public_state"),
               (shengji_env.BatchGame(2), "legal_plays")]
    for g, name in helpers:
        g.reset(seed=0)
        call = getattr(g, name)
        for b in (1.5, "1", True, -1, 2, None):
            with pytest.raises(ValueError, match="game index"):
                call(b)
        call(np.int64(1))
    with pytest.raises(ValueError, match="seat"):
        helpers[0][0].hand(0, 4)


# ---- seeds (docs/env_contract_inputs.md: None or an int in 0..SEED_MAX) ---------------------------
BAD_SEEDS = [1.5, "x", "7", math.nan, True, -1, 2**63, 2**64, np.uint64(2**63), np.float64(3), [1, 2], b"1"]


@pytest.mark.parametrize("game", GAMES)
def test_reset_refuses_bad_seeds_and_changes_nothing(game):
    mod = GAMES[game]
    env = mod.env()
    env.reset(seed=3)
    before = snapshot(env)
    for seed in BAD_SEEDS:
        with pytest.raises(ValueError, match="seed"):
            env.reset(seed=seed)
        assert snapshot(env) == before, seed
    assert_generator_untouched(mod, env, 3)
    # numpy ints are ints: the same game as the Python int
    a, b = mod.raw_env(), mod.raw_env()
    a.reset(seed=np.uint32(11))
    b.reset(seed=11)
    assert a.public_state() == b.public_state()
    a.reset(seed=SEED_MAX)  # the largest seed is accepted


@pytest.mark.parametrize("game", GAMES)
def test_batch_seeds_share_the_range_and_rollout_checks_its_seed(game):
    g = GAMES[game].BatchGame(3)
    g.reset(seed=SEED_MAX - 2)  # game 2 gets SEED_MAX
    with pytest.raises(ValueError, match=r"seed \+ b"):
        g.reset(seed=SEED_MAX - 1)
    for seed in BAD_SEEDS:
        with pytest.raises(ValueError, match="seed"):
            g.reset(seed=seed)
    g.reset(seed=5)
    masks, obs = g.legal_mask(), g.observe()
    for seed in BAD_SEEDS:
        with pytest.raises(ValueError, match="seed"):
            g.rollout(seed=seed)
        assert (g.legal_mask() == masks).all() and (g.observe() == obs).all(), seed
    assert g.rollout(seed=SEED_MAX) > 0 and g.done.all()
    g.reset(seed=5)
    assert g.rollout(seed=None) > 0 and g.done.all()  # None: a seed from fresh entropy


# ---- before reset: one NotResetError everywhere ---------------------------------------------------
@pytest.mark.parametrize("game", GAMES)
def test_every_call_before_reset_raises_not_reset_error(game):
    mod = GAMES[game]
    raw, wrapped, batch = mod.raw_env(render_mode="ansi"), mod.env(), mod.BatchGame(2)
    calls = {
        "raw.step": lambda: raw.step(0), "raw.observe": lambda: raw.observe("player_0"), "raw.last": raw.last,
        "raw.render": raw.render, "raw.public_state": raw.public_state, "raw.hand": lambda: raw.hand(0),
        "env.step": lambda: wrapped.step(0), "env.observe": lambda: wrapped.observe("player_0"),
        "env.last": wrapped.last, "env.agent_iter": wrapped.agent_iter,
        "env.public_state": lambda: wrapped.unwrapped.public_state(),
        "batch.step": lambda: batch.step(np.zeros(2, np.int64)), "batch.observe": batch.observe,
        "batch.legal_mask": batch.legal_mask, "batch.rollout": batch.rollout,
        "batch.current_player": lambda: batch.current_player, "batch.done": lambda: batch.done,
    }
    calls["batch.public_state"] = lambda: batch.public_state(0)
    calls["batch.hand"] = lambda: batch.hand(0, 0)
    if game == "courtpiece":
        calls["raw.timeout"] = raw.timeout
        calls["batch.replay"] = lambda: batch.replay([0])
    if game == "shengji":
        calls["raw.legal_plays"] = raw.legal_plays
        calls["batch.play"] = lambda: batch.play(np.zeros((2, 1), np.int64))
        calls["batch.legal_plays"] = lambda: batch.legal_plays(0)
    for attempt in range(2):  # before any reset, and after a failed first reset
        for name, call in calls.items():
            with pytest.raises(NotResetError, match=r"call reset\(\) before"):
                call()
        for env in (raw, wrapped):
            with pytest.raises(ValueError):
                env.reset(seed=-1)
        with pytest.raises(ValueError):
            batch.reset(seed=-1)
    assert issubclass(NotResetError, ValueError) and issubclass(NotResetError, RuntimeError)


# ---- actions of the single-seat view -------------------------------------------------------------
def test_single_seat_step_refuses_non_integer_actions():
    env = SingleSeatEnv("courtpiece", seat=0)
    with pytest.raises(NotResetError):
        env.step(0)
    obs, info = env.reset(seed=0)
    legal = int(np.flatnonzero(info["action_mask"])[0])
    aec_before = snapshot(env.aec)
    for bad in (float(legal) + 0.7, float(legal), str(legal), True, None, np.float32(legal), [legal],
                np.array([legal])):
        with pytest.raises(ValueError, match="action"):
            env.step(bad)
        assert snapshot(env.aec) == aec_before, bad
    env.step(np.array(legal))  # a 0-d int array (a policy's predict() for one observation) is an int
    before = snapshot(env.aec)
    for seed in BAD_SEEDS:  # gymnasium's own seeding error never comes first
        with pytest.raises(ValueError, match="seed"):
            env.reset(seed=seed)
        assert snapshot(env.aec) == before


@pytest.mark.parametrize("opponents, bad", [("wizard", "unknown agent 'wizard'"), (7, r"opponents\[1\]=7 is not an agent"),
                                            ([None, "heuristic", 5, "random"], r"opponents\[2\]=5 is not an agent"),
                                            (["random"] * 3, "one agent per seat")])
def test_single_seat_opponents_are_agents_or_specs(opponents, bad):
    with pytest.raises(ValueError, match=bad):
        SingleSeatEnv("courtpiece", opponents=opponents)


def test_single_seat_opponents_from_specs_play_and_are_seeded():
    """A spec string makes the game's agent for that seat; a seeded reset seeds them, so the same env
    replays an episode from the same seed and actions."""
    env = SingleSeatEnv("lopti", seat=1, opponents=["heuristic", None, "random", "random"], num_players=4)

    def episode(seed):
        obs, info = env.reset(seed=seed)
        seen, done = [], False
        while not done:
            action = int(np.flatnonzero(info["action_mask"])[-1])
            obs, reward, term, trunc, info = env.step(action)
            seen.append((action, reward, obs.tobytes()))
            done = term or trunc
        return seen
    first = episode(3)
    assert [type(o).__name__ for o in env.opponents] == ["LoptiHeuristic", "NoneType", "RandomAgent", "RandomAgent"]
    assert episode(4) != first and episode(3) == first and len(first) > 1


# ---- Court Piece match_state (section 7; scores are 32-bit in the kernels) ------------------------
@pytest.mark.parametrize("match_state", [
    {"score": [2**31, 0], "streak": [None, 0]},     # wrapped to -2147483648 before
    {"score": [MAX_INT + 1, 0]}, {"score": [-1, 0]}, {"score": [1.5, 0]}, {"score": [True, 0]},
    {"score": np.array([1, 2])}, {"score": [1, 2, 3]}, {"bazi_index": 2**40}, {"bazi_index": 1.0},
    {"streak": [0, 7]}, {"streak": [None, 2]}, {"streak": [2, 1]}, {"streak": [0, 1.0]}, {"streak": 0},
    {"turns": 1}, [1, 2],
    {"score": [10, 0]}, {"score": [3, 10**9]},      # CP-9.3: a team at the target (10) has won already
])
def test_courtpiece_match_state_is_checked_before_it_is_stored(match_state):
    env = courtpiece_env.env(episode="match")
    env.reset(seed=4)
    before = snapshot(env)
    with pytest.raises(ValueError, match="match_state"):
        env.reset(options={"match_state": match_state})
    assert snapshot(env) == before
    assert_generator_untouched(courtpiece_env, env, 4, episode="match")


def test_courtpiece_match_state_keeps_large_valid_scores():
    env = courtpiece_env.raw_env(episode="match", match_target=MAX_INT)
    env.reset(seed=4, options={"match_state": {"score": [MAX_INT - 1, 0], "streak": [1, 6], "bazi_index": MAX_INT}})
    state = env.public_state()
    assert state["score"] == [MAX_INT - 1, 0] and state["bazi_index"] == MAX_INT


def test_courtpiece_match_state_just_below_the_target_is_a_live_match():
    """CP-9.3: one point short of the target is a match still to win; at the target it is refused."""
    env = courtpiece_env.raw_env(episode="match", match_target=3)
    env.reset(seed=4, options={"match_state": {"score": [2, 2], "streak": [None, 0]}})
    assert env.public_state()["score"] == [2, 2] and env.agents
    with pytest.raises(ValueError, match="team 1's score 3 already reaches the match target 3"):
        env.reset(seed=4, options={"match_state": {"score": [2, 3], "streak": [None, 0]}})


# ---- deals (each spec's section 7) -----------------------------------------------------------------
DECK = list(range(52))
CP_HANDS = [DECK[13 * s:13 * s + 13] for s in range(4)]
CP_BAD_DEALS = [
    {"hands": CP_HANDS[:3]}, {"hands": [h[:12] for h in CP_HANDS]}, {"hands": np.array(CP_HANDS)[:, :12]},
    {"hands": np.array(CP_HANDS).ravel()},
    {"hands": [np.array(h) for h in CP_HANDS[:3]] + [np.array(5)]},
    {"hands": CP_HANDS[:3] + [[float(c) for c in CP_HANDS[3]]]},
    {"hands": CP_HANDS[:3] + [[True] + CP_HANDS[3][1:]]},
    {"hands": CP_HANDS[:3] + [CP_HANDS[3][:12] + [52]]}, {"hands": CP_HANDS[:3] + [CP_HANDS[2]]},
    {"hands": CP_HANDS, "dealer": 1.0}, {"hands": CP_HANDS, "dealer": True}, {"hands": CP_HANDS, "dealer": 4},
    {"draw": [0, 0.5]}, {"draw": "AS"}, {"hands": CP_HANDS, "dealer": 0, "turned": 2.0},
    {"hands": CP_HANDS, "dealer": 0, "change_cards": [{"seat": 1.0, "hands": CP_HANDS}]}, {"colour": 1}, [1],
]
LOPTI_BAD_DEALS = [
    {"deck": DECK[:51]}, {"deck": DECK[:51] + [51.0]}, {"deck": DECK[:51] + [True]}, {"deck": np.array(DECK)[None]},
    {"deck": np.array(7)}, {"deck": DECK, "dealer": 1.0}, {"deck": DECK, "dealer": 2}, {"seats": "x"},
    {"seats": [{"down": [0, 1, 2], "up": [3, 4, 5], "hand": [6, 7, 8.0]}, {}]}, {1: 2}, "deck",
]
SJ_ORDER = [c for c in range(54) for _ in range(2)]
SJ_BAD_DEALS = [
    SJ_ORDER[:-1], SJ_ORDER[:-1] + [53.0], SJ_ORDER[:-1] + [True], np.array(SJ_ORDER).reshape(2, 54),
    np.array(5), np.array(SJ_ORDER, np.float64), SJ_ORDER[:-1] + [54], SJ_ORDER[:-1] + ["XX"],
    SJ_ORDER[:-2] + [0, 0], " ".join(map(str, SJ_ORDER)), {"deck": SJ_ORDER},
]


@pytest.mark.parametrize("game,deal", [("courtpiece", d) for d in CP_BAD_DEALS]
                         + [("lopti", d) for d in LOPTI_BAD_DEALS] + [("shengji", d) for d in SJ_BAD_DEALS]
                         # a deal of None is no deal (Sheng Ji's 7.1 reads an option of None as its default)
                         + [(game, None) for game in ("courtpiece", "lopti")])
def test_malformed_deals_are_refused_in_env_and_batch(game, deal):
    mod = GAMES[game]
    config = {"num_players": 2} if game == "lopti" else {}
    env = mod.env(**config)
    env.reset(seed=8)
    before = snapshot(env)
    with pytest.raises(ValueError):
        env.reset(options={"deal": deal})
    assert snapshot(env) == before
    g = mod.BatchGame(2, **config)
    g.reset(seed=8)
    masks = g.legal_mask()
    with pytest.raises(ValueError):
        g.reset(deals=[deal, deal])
    assert (g.legal_mask() == masks).all()


def test_valid_deals_of_every_form_still_work():
    env = courtpiece_env.raw_env()
    env.reset(options={"deal": {"hands": [np.array(h, np.int16) for h in CP_HANDS], "dealer": np.int64(3)}})
    assert env.public_state()["dealer"] == 3
    env.reset(options={"deal": {"hands": np.array(CP_HANDS), "dealer": 1}})
    assert env.hand(0) == ["2C", "3C", "4C", "5C", "6C"]  # seat 0's first five (phase call)
    lo = lopti_env.raw_env(num_players=2)
    lo.reset(options={"deal": {"deck": np.array(DECK, np.uint8)}})
    sj = shengji_env.BatchGame(2)
    sj.reset(deals=[np.array(SJ_ORDER, np.uint8), SJ_ORDER])
    assert not sj.done.any()


# ---- LOPTI states (section 7.2, 9.2) ---------------------------------------------------------------
LOPTI_SEATS = [{"hand": "AS"}, {"hand": "KS"}]
LOPTI_BAD_STATES = [
    {"scores": [math.nan, 0]}, {"scores": [math.inf, 0]}, {"scores": [-math.inf, 0]}, {"scores": [1e7, 0]},
    {"scores": [True, 0]}, {"scores": ["1", 0]}, {"scores": [0]},
    {"pending": [1, 8, 0, 0]}, {"pending": [1, -1, 0, 0]}, {"pending": [2, 0, 0, 5]}, {"pending": [2, 0, 4, 5]},
    {"pending": [2, 0, 1, 21]}, {"pending": [3, 9, 0, 1]}, {"pending": [3, 0, 0, 13]}, {"pending": [4, 0, 2, 0]},
    {"pending": [5, 0, 0, 0]}, {"pending": [1, 2**40, 0, 0]},
    {"rules": [[1, 5, 2, 1, 0, 1, 2**40]]}, {"rules": [[1, 5, 2, 1, 0, 1, 7]]},
    {"known": {1.5: "KS"}}, {"known": {"x": "KS"}}, {"moves": 2**40}, {"moves": 1.0}, {"chain": True},
    {"to_act": 1.0}, {7: 1},
]


@pytest.mark.parametrize("extra", LOPTI_BAD_STATES, ids=[repr(s)[:40] for s in LOPTI_BAD_STATES])
def test_lopti_states_refuse_impossible_values(extra):
    env = lopti_env.env(num_players=2, session=True, session_rounds=3)
    env.reset(seed=2)
    before = snapshot(env)
    with pytest.raises(ValueError, match="state"):
        env.reset(options={"state": {"seats": LOPTI_SEATS, **extra}})
    assert snapshot(env) == before


def test_lopti_states_take_their_full_domains():
    env = lopti_env.raw_env(num_players=2, session=True, session_rounds=3)
    for extra in ({"scores": [2.5, -1e6]}, {"pending": [2, 0, 3, 2]}, {"pending": [3, 3, 0, 4]},
                  {"known": {"1": "KS"}}, {"known": {np.int64(0): "AS"}},
                  {"rules": [[1, 5, 2, 1, 0, 1, 2]]}):
        env.reset(seed=2, options={"state": {"seats": LOPTI_SEATS, **extra}})
    assert env.public_state()["rules"][0][:7] == [1, 5, 2, 1, 0, 1, 2]


# ---- checkpoints (agents/learned.py) -----------------------------------------------------------------
def _checkpoint_copy(tmp_path, name, edit=None, pt_bytes=None):
    """A small Sheng Ji PPO checkpoint (agents.learned), its JSON edited / its weights' bytes rewritten."""
    from agents.learned import build_model, save_checkpoint

    src = tmp_path / "source"
    if not (src / "ppo.pt").is_file():
        save_checkpoint(build_model(938, 84, hidden=32, layers=2), src / "ppo.pt",
                        {"game": "shengji", "obs_size": 938, "num_actions": 84, "hidden": 32, "layers": 2,
                         "activation": "tanh", "env_config": {}})
    meta = json.loads((src / "ppo.json").read_text())
    if edit is not None:
        edit(meta)
    (tmp_path / f"{name}.json").write_text(json.dumps(meta))
    data = (src / "ppo.pt").read_bytes()
    (tmp_path / f"{name}.pt").write_bytes(data if pt_bytes is None else pt_bytes(data))
    return tmp_path / f"{name}.pt"


CHECKPOINT_CASES = {
    "obs_size": (lambda m: m.update(obs_size=10**13), None, "obs_size"),  # before any allocation
    "num_actions": (lambda m: m.update(num_actions=85), None, "num_actions"),
    "game": (lambda m: m.update(game="chess"), None, "unknown game"),
    "format": (lambda m: m.update(format="other"), None, "not a cardzoo"),
    "hidden": (lambda m: m.update(hidden=128), None, "do not fit"),
    "huge_hidden": (lambda m: m.update(hidden=10**9), None, "hidden"),
    "layers": (lambda m: m.update(layers=3), None, "do not fit"),
    "truncated": (None, lambda b: b[:len(b) // 2], "unreadable weights"),
    "garbage": (None, lambda b: b"not a torch file", "unreadable weights"),
}


@pytest.mark.parametrize("case", CHECKPOINT_CASES)
def test_checkpoint_loader_names_every_problem_in_one_value_error(tmp_path, case):
    pytest.importorskip("torch")
    from agents.learned import load_checkpoint

    edit, pt_bytes, word = CHECKPOINT_CASES[case]
    with pytest.raises(ValueError, match=word):
        load_checkpoint(_checkpoint_copy(tmp_path, case, edit, pt_bytes))


CORRUPT_WEIGHTS = {
    "garbage": lambda b: bytes([255]) * 100,
    "truncated": lambda b: b[:len(b) // 2],
    "a pickled function": lambda b: pickle.dumps(os.getcwd),
}


@pytest.mark.parametrize("loader", ["ppo", "residual"])
@pytest.mark.parametrize("case", CORRUPT_WEIGHTS)
def test_unreadable_weights_are_one_short_line_without_torchs_advice(tmp_path, loader, case):
    """A corrupt .pt is named in one short line saying why, and never passes on torch's advice to load
    it with weights_only=False (which would run whatever the file holds)."""
    pytest.importorskip("torch")
    from agents.learned import load_checkpoint
    from agents.residual import load_residual

    if loader == "ppo":
        path, load = _checkpoint_copy(tmp_path, "bad", None, CORRUPT_WEIGHTS[case]), load_checkpoint
    else:
        for ext in (".pt", ".json"):
            (tmp_path / f"bad{ext}").write_bytes((ROOT / "agents" / "checkpoints" / f"lopti{ext}").read_bytes())
        path, load = tmp_path / "bad.pt", load_residual
        path.write_bytes(CORRUPT_WEIGHTS[case](path.read_bytes()))
    with pytest.raises(ValueError) as e:
        load(path)
    message = str(e.value)
    assert message.startswith(f"{path}: unreadable weights") and "\n" not in message, message
    assert "weights_only" not in message and len(message) < 250 + len(str(path)), message


def test_checkpoint_loader_missing_unreadable_and_wrong_game(tmp_path):
    pytest.importorskip("torch")
    from agents.learned import LearnedAgent, load_checkpoint

    good = _checkpoint_copy(tmp_path, "good")
    model, meta = load_checkpoint(good, "shengji")
    assert meta["game"] == "shengji"
    with pytest.raises(ValueError, match="needs both"):
        load_checkpoint(tmp_path / "missing.pt")
    (tmp_path / "notes.md").write_text("not a checkpoint")   # the path is named as given, not as <name>.pt
    with pytest.raises(ValueError, match=r"checkpoint .*notes\.md: needs both .*notes\.pt and .*notes\.json"):
        load_checkpoint(tmp_path / "notes.md")
    with pytest.raises(ValueError, match="plays 'shengji', not 'courtpiece'"):
        LearnedAgent("courtpiece", checkpoint=good)
    (tmp_path / "good.json").write_text("{")
    with pytest.raises(ValueError, match="unreadable checkpoint description"):
        load_checkpoint(good)
    with pytest.raises(ValueError, match="path"):
        load_checkpoint(None)


def test_deal_errors_name_the_problem_readably():
    env = lopti_env.env(num_players=2)
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"^deal: unknown key\(s\) 'bogus', 'zz'$"):
        env.reset(options={"deal": {"deck": list(range(52)), "zz": 2, "bogus": 1}})
    with pytest.raises(ValueError, match=r"unreadable cards a 2-d array of shape \(4, 13\): expected"):
        env.reset(options={"deal": {"deck": np.arange(52).reshape(4, 13)}})
