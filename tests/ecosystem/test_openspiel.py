"""The three games as OpenSpiel games (cardzoo.openspiel): pyspiel's own checks, serialization,
clones, information states, world resampling, and OpenSpiel's MCTS / IS-MCTS bots playing them.

Skips cleanly when open_spiel is not installed (extra: cardzoo[bench]).
"""
from __future__ import annotations

import json
import pickle

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

import cardzoo.openspiel as cos  # noqa: E402
from agents.base import RandomAgent  # noqa: E402

VARIANTS = ["single_sar", "double_sar", "chhupa_rang", "be_rang", "mendi_coat"]


def _sampler():
    return pyspiel.UniformProbabilitySampler(0.0, 1.0)


def _play(state, steps: int, seed: int = 1):
    """`steps` uniformly random actions (fewer if the episode ends)."""
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if state.is_terminal():
            break
        state.apply_action(int(rng.choice(state.legal_actions())))
    return state


def _dealt(name: str, params: dict | None = None, seed: int = 3, steps: int = 0):
    game = pyspiel.load_game(name, params or {})
    state = game.new_initial_state()
    state.deal(seed)
    return game, _play(state, steps)


def test_the_three_games_are_registered():
    registered = {t.short_name for t in pyspiel.registered_games()}
    assert set(cos.GAME_NAMES) == {"cardzoo_courtpiece", "cardzoo_lopti", "cardzoo_shengji"} <= registered
    game = pyspiel.load_game("cardzoo_courtpiece")
    t = game.get_type()
    assert t.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert t.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert (game.num_players(), game.num_distinct_actions(), game.observation_tensor_shape()) == (4, 60, [916])
    assert game.information_state_tensor_shape() == [916]


def test_parameters_are_the_env_options():
    """Section 6 of each spec: names and defaults; JSON text for options pyspiel cannot hold."""
    game, state = _dealt("cardzoo_courtpiece", {"variant": "double_sar"})
    assert state.env.config.variant == "double_sar"
    assert game.get_parameters()["variant"] == "double_sar" and game.get_parameters()["match_target"] == 0
    assert game.get_type().reward_model == pyspiel.GameType.RewardModel.TERMINAL
    game, state = _dealt("cardzoo_courtpiece", {"episode": "match", "match_target": 3})
    assert state.env.config.match_target == 3 and state.env.config.episode == "match"
    assert game.get_type().reward_model == pyspiel.GameType.RewardModel.REWARDS  # section 5: paid per bazi
    _, state = _dealt("cardzoo_shengji", {"decks": 1, "start_level": '"5"', "must_defend": '["A", "K"]'})
    assert (state.env.config.decks, state.env.config.start_level, state.env.config.must_defend) == (1, "5", ("A", "K"))
    game = pyspiel.load_game("cardzoo_lopti", {"num_players": 3})
    assert game.num_players() == 3
    for twin in (pyspiel.deserialize_game(game.serialize()), pyspiel.load_game(str(game))):
        assert twin.get_parameters() == game.get_parameters()
    with pytest.raises(ValueError, match="variant"):
        pyspiel.load_game("cardzoo_courtpiece", {"variant": "no_such_variant"})
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter 'variantt'"):
        pyspiel.load_game("cardzoo_courtpiece", {"variantt": "double_sar"})
    with pytest.raises(ValueError, match="must_defend"):
        pyspiel.load_game("cardzoo_shengji", {"must_defend": "[A"})


@pytest.mark.parametrize("name,params", [
    ("cardzoo_shengji", {"decks": 1, "must_defend": '["A", "K"]'}),     # the example of docs/openspiel.md
    ("cardzoo_shengji", {"decks": 1, "start_level": "5"}),              # digits given plainly
    ("cardzoo_lopti", {"num_players": 2, "initial_rules": "[[8, 2, 8, 4], [1, 1, 6, 2]]",
                       "base_rules": '{"SWAPS": 1, "SET_SIZE": 3}'}),
])
def test_json_parameters_survive_the_game_string(name, params):
    """OpenSpiel rebuilds a game from its string (str(game)) to serialize it, and its parser splits
    parameters at every comma: a list or dict option must come back whole."""
    game = pyspiel.load_game(name, params)
    config = game.env_config
    for twin in (pyspiel.load_game(str(game)), pyspiel.deserialize_game(game.serialize())):
        assert twin.get_parameters() == game.get_parameters() and twin.env_config == config
    state = game.new_initial_state()
    state.deal(4)
    _play(state, 6)
    twin_game, twin = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))
    assert str(twin) == str(state) and twin_game.env_config == config
    assert pyspiel.load_game(name, game.get_parameters()).env_config == config  # the canonical text loads too


def test_a_game_survives_pickling_and_copies():
    """A pickled or deep-copied game is the same game (ray and multiprocessing pickle games; OpenSpiel's
    C++ clone of a state deep-copies its Python attributes), and a state cloned in C++ works fully."""
    import copy

    game, state = _dealt("cardzoo_courtpiece", {"variant": "double_sar"}, steps=5)
    for twin in (pickle.loads(pickle.dumps(game)), copy.deepcopy(game)):
        assert twin.get_parameters() == game.get_parameters() and twin.env_config == game.env_config
        fresh = twin.new_initial_state()
        fresh.deal(3)
        assert str(_play(fresh, 5)) == str(state)
    clone = pyspiel.State.clone(state)   # what random_sim_test and OpenSpiel's C++ code call
    p = clone.current_player()
    a = clone.legal_actions()[0]
    assert clone.action_to_string(p, a) == state.action_to_string(p, a)
    world = clone.resample_from_infostate(p, _sampler())
    assert world.information_state_string(p) == state.information_state_string(p)


def test_the_chance_outcomes_spell_the_env_seed():
    import courtpiece_env

    game = pyspiel.load_game("cardzoo_courtpiece")
    state = game.new_initial_state()
    for b in (0, 0, 1, 2):
        assert state.is_chance_node() and state.chance_outcomes() == [(o, 1 / 256) for o in range(256)]
        assert game.deserialize_state(state.serialize()).history() == state.history()
        state.apply_action(b)
    env = courtpiece_env.raw_env()
    env.reset(seed=258)
    assert state.env.public_state() == env.public_state()
    assert [state.env.hand(s) for s in range(4)] == [env.hand(s) for s in range(4)]
    twin = game.new_initial_state()
    twin.deal(258)
    assert twin.history() == [0, 0, 1, 2] and str(twin) == str(state)
    assert game.max_chance_outcomes() == 256
    small = pyspiel.load_game("cardzoo_courtpiece", {"deal_seed_bytes": 1})
    with pytest.raises(ValueError, match="does not fit"):
        small.new_initial_state().deal(256)


def test_lopti_returns_are_zero_sum_exactly():
    """LO §5: the winner scheme pays +1 and -1/(N-1) to the others, the rank scheme thirds for N = 4:
    the env's float32 rewards (-0.33333334) summed to -3e-8, and OpenSpiel's random_sim_test checks a
    zero-sum game's returns to 1e-9."""
    game = pyspiel.load_game("cardzoo_lopti", {"reward_scheme": "winner"})
    finished = 0
    for seed in range(12):
        state = game.new_initial_state()
        state.deal(seed)
        _play(state, 5000, seed=seed)
        r = state.returns()
        if any(state.env.truncations.values()):
            continue
        finished += 1
        assert sorted(r) == [-1 / 3, -1 / 3, -1 / 3, 1.0] and abs(sum(r)) <= 1e-12
    assert finished >= 3


@pytest.mark.parametrize("params,seed", [
    ({"episode": "match", "scoring": "kots", "match_target": 1}, 123),     # CP-9.1: only kots count
    ({"episode": "match", "variant": "mendi_coat", "split_win_points": 0, "match_target": 1}, 95),  # CP-11.9
])
def test_max_game_length_holds_where_a_bazi_may_pay_nothing(params, seed):
    """A match in which a bazi may leave the score as it was has no bound on its length; the game's
    max_game_length must still exceed what random play reaches (these seeds played 8 251 and 312
    decisions, beyond the old 8 000 and 240)."""
    game = pyspiel.load_game("cardzoo_courtpiece", params)
    state = game.new_initial_state()
    state.deal(seed)
    _play(state, 10 ** 6, seed=seed)
    assert state.is_terminal() and len(state.history()) - 4 <= game.max_game_length()


def test_bad_actions_raise_and_change_nothing():
    """Spec 9.6: an illegal action is a ValueError naming it, and the state stays as it was."""
    game = pyspiel.load_game("cardzoo_courtpiece", {"deal_seed_bytes": 1})
    state = game.new_initial_state()
    with pytest.raises(ValueError, match="outside 0..255"):
        state.apply_action(256)
    state.apply_action(3)
    before, history = str(state), state.history()
    illegal = next(a for a in range(60) if a not in state.legal_actions())
    with pytest.raises(ValueError, match="illegal action"):
        state.apply_action(illegal)
    with pytest.raises(ValueError, match="outside 0..59"):
        state.apply_action(99)
    assert str(state) == before and state.history() == history
    assert state.action_to_string(state.current_player(), 52) == "call trump C"
    assert state.action_to_string(pyspiel.PlayerId.CHANCE, 3) == "deal seed byte 3"


@pytest.mark.parametrize("name,params,sims,serialize", [
    *[("cardzoo_courtpiece", {"variant": v}, 2, True) for v in VARIANTS],
    ("cardzoo_courtpiece", {"variant": "mendi_coat", "mendi_trump": "band"}, 2, True),
    ("cardzoo_courtpiece", {"episode": "match", "match_target": 2}, 1, False),
    *[("cardzoo_lopti", {"num_players": n}, 1, False) for n in (2, 5)],
    ("cardzoo_lopti", {"num_players": 3, "session": True, "session_rounds": 2}, 1, False),   # REWARDS
    *[("cardzoo_shengji", {"decks": d}, 1, False) for d in (1, 2, 3, 4)],
])
def test_random_sim_test(name, params, sims, serialize):
    """OpenSpiel's own consistency test (returns in bounds and zero-sum, clone, history, tensors);
    with serialize, a serialize/deserialize round trip at every step (the long games get the round
    trip in test_serialize_round_trip)."""
    game = pyspiel.load_game(name, params)
    pyspiel.random_sim_test(game, num_sims=sims, serialize=serialize, verbose=False)


@pytest.mark.parametrize("name,steps", [("cardzoo_courtpiece", 25), ("cardzoo_lopti", 60), ("cardzoo_shengji", 120)])
def test_serialize_round_trip(name, steps):
    game, state = _dealt(name, steps=steps)
    n = game.num_players()
    for twin in (pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))[1],
                 game.deserialize_state(state.serialize()), pickle.loads(pickle.dumps(state))):
        assert str(twin) == str(state) and twin.legal_actions() == state.legal_actions()
        assert [twin.information_state_string(p) for p in range(n)] == [state.information_state_string(p)
                                                                         for p in range(n)]
        assert twin.observation_tensor(1) == state.observation_tensor(1)
    record = json.loads(state.serialize())
    assert record["seed"] == 3 and len(record["actions"]) == steps
    with pytest.raises(ValueError, match="not a state"):
        game.deserialize_state(json.dumps(dict(record, game="other")))


def test_a_clone_keeps_the_history():
    """pyspiel's history(), move_number() and history_str() (keys of OpenSpiel's search and
    evaluation code) are the same on a clone, through Python and through C++ (random_sim_test)."""
    game, state = _dealt("cardzoo_courtpiece", steps=9)
    for twin in (state.clone(), pyspiel.State.clone(state)):
        assert twin.history() == state.history() and len(twin.history()) == 4 + 9
        assert [(h.player, h.action) for h in twin.full_history()] == [(h.player, h.action)
                                                                      for h in state.full_history()]
        assert twin.history_str() == state.history_str()
        assert twin.move_number() == state.move_number()
        assert twin.get_game() is game
        a = twin.legal_actions()[0]
        twin.apply_action(a)
        assert twin.history() == state.history() + [a] and len(state.history()) == 13


@pytest.mark.parametrize("text,message", [
    ("[]", "a serialized cardzoo state is a JSON object, not list"),
    ("null", "not NoneType"),
    ('{"seed": "x"}', "'seed' must be an int >= 0, got 'x'"),
    ('{"seed": 5.5, "actions": []}', "'seed' must be an int >= 0, got 5.5"),     # was read as seed 5
    ('{"seed": 5, "actions": 5}', "'actions' must be a list of ints, got 5"),
    ('{"actions": [52]}', "'actions' need the 'seed'"),                          # the actions were dropped
    ('{"seed": 5, "actions": [], "extra": 1}', "unknown key\\(s\\) 'extra'"),
    ('{"seed": 5, "options": "deal"}', "'options' must be an object"),
])
def test_a_corrupted_serialized_state_is_a_value_error(text, message):
    game = pyspiel.load_game("cardzoo_courtpiece")
    with pytest.raises(ValueError, match=message):
        game.deserialize_state(text)
    assert game.deserialize_state('{"seed": 5, "actions": [52]}').history() == [0, 0, 0, 5, 52]


@pytest.mark.parametrize("name", ["cardzoo_courtpiece", "cardzoo_shengji"])
def test_clones_are_independent(name):
    game, state = _dealt(name, steps=30)
    before = (str(state), state.legal_actions(), state.information_state_string(0), state.history())
    twin = state.clone()
    _play(twin, 5, seed=9)
    assert (str(state), state.legal_actions(), state.information_state_string(0), state.history()) == before
    again = state.clone()
    _play(again, 5, seed=9)
    assert str(again) == str(twin) and again.returns() == twin.returns()
    assert again.information_state_string(2) == twin.information_state_string(2)


def test_a_player_that_is_not_a_seat_is_refused():
    """A player outside 0..3 (the default player at a chance or terminal node is -1 or -4) is a
    ValueError naming it: Python's negative indexing handed back another seat's information."""
    game, state = _dealt("cardzoo_courtpiece", steps=3)
    calls = [state.information_state_string, state.observation_string, state.information_state_tensor,
             state.observation_tensor, lambda p: state.resample_from_infostate(p, _sampler())]
    for call in calls:
        for bad in (-1, 4):
            with pytest.raises(ValueError, match=f"player {bad} is not a seat 0..3"):
                call(bad)
    with pytest.raises(ValueError, match="is not a seat 0..3"):
        game.new_initial_state().observation_tensor(7)
    _play(state, 500)
    assert state.is_terminal()
    for call in calls[:4]:
        with pytest.raises(ValueError, match="player -4 is not a seat"):
            call()                  # no current player at the end: the seat must be given
        call(2)


def test_information_state_hides_a_private_action():
    """CP-7.1 / spec 3.2: the card hidden face down in chhupa_rang is known to the hider only, so the
    other seats' information states cannot tell which it was; the hider's can."""
    _, state = _dealt("cardzoo_courtpiece", {"variant": "chhupa_rang"})
    hider = state.current_player()
    assert state.env.public_state()["phase"] == "hide"
    cards = [a for a in state.legal_actions() if a < 52][:2]
    a, b = state.clone(), state.clone()
    a.apply_action(cards[0])
    b.apply_action(cards[1])
    for p in range(4):
        same = a.information_state_string(p) == b.information_state_string(p)
        assert same == (p != hider), p
    assert a.observation_tensor(hider) != b.observation_tensor(hider)
    assert a.observation_string((hider + 1) % 4) == b.observation_string((hider + 1) % 4)
    assert a.information_state_string(hider) != state.information_state_string(hider)
    with pytest.raises(ValueError, match="face-down"):
        _play(a, 6).resample_from_infostate(a.current_player(), _sampler())


@pytest.mark.parametrize("name,params,steps", [
    ("cardzoo_courtpiece", {}, 0),               # the trump call (first five only)
    ("cardzoo_courtpiece", {}, 20),              # card play
    ("cardzoo_courtpiece", {"variant": "double_sar"}, 30),
    ("cardzoo_lopti", {}, 0),                    # the swap phase (LO-3): the first swap
    ("cardzoo_lopti", {"num_players": 3}, 2),    # ... after two seats swapped or kept
    ("cardzoo_lopti", {}, 40),
    ("cardzoo_shengji", {}, 100),                # a lead or follow about to be composed
    ("cardzoo_shengji", {}, 103),                # mid-composition: cards already selected
])
def test_resample_from_infostate(name, params, steps):
    """The worlds keep everything the seat saw (observation, legal actions; so its information state
    string, which they carry over) and vary what it did not (another seat's hand); the seat's own
    next move keeps the information states equal; the real state is untouched."""
    from agents.shengji.search import INFOSET_ENTRIES

    game, state = _dealt(name, params, steps=steps)
    p = state.current_player()
    before = str(state)
    q = (p + 1) % game.num_players()
    hands = set()
    for _ in range(4):
        world = state.resample_from_infostate(p, _sampler())
        assert world.information_state_string(p) == state.information_state_string(p)
        assert world.legal_actions() == state.legal_actions()
        assert world.current_player() == p and world.returns() == state.returns()
        mine, real = np.array(world.observation_tensor(p)), np.array(state.observation_tensor(p))
        if name == "cardzoo_shengji":  # a world is a preset-declaring hand: the table entries agree
            mine, real = mine[INFOSET_ENTRIES], real[INFOSET_ENTRIES]
        assert np.array_equal(mine, real)
        hands.add(str(world.env.hand(q)))
        if name != "cardzoo_shengji":
            a = state.legal_actions()[-1]
            ahead = state.clone()
            ahead.apply_action(a)
            world.apply_action(a)
            assert world.information_state_string(p) == ahead.information_state_string(p)
        _play(world, 3)          # a world plays on as a state of the game
    assert len(hands) > 1
    assert str(state) == before


def test_resample_refuses_to_drop_a_throw_penalty():
    """SJ-7.4 / SJ-10.1: a failed throw's penalty counts at the end of the hand. A drawn world replays
    the plays, not the failed attempts, so its score would lack the penalties (a real -40 scored 0):
    with throw_penalty, a position after a failed throw is refused; before one, worlds are drawn."""
    game = pyspiel.load_game("cardzoo_shengji", {"decks": 1, "throw_penalty": "per_attempt"})
    state = game.new_initial_state()
    state.deal(1)
    rng = np.random.default_rng(0)
    drawn = False
    while not state.env.public_state()["failed_throws"]:
        if state.env.public_state()["phase"] == "LEAD" and not drawn:
            state.resample_from_infostate(state.current_player(), _sampler())
            drawn = True
        state.apply_action(int(rng.choice(state.legal_actions())))
    while state.env.public_state()["phase"] not in ("LEAD", "FOLLOW"):
        state.apply_action(int(rng.choice(state.legal_actions())))
    assert drawn
    with pytest.raises(ValueError, match="failed throw"):
        state.resample_from_infostate(state.current_player(), _sampler())


def test_resample_needs_a_covered_position():
    _, state = _dealt("cardzoo_shengji")
    assert state.env.public_state()["phase"] == "DECLARE"
    with pytest.raises(ValueError, match="no information-set sampler"):
        state.resample_from_infostate(state.current_player(), _sampler())


def _full_game(game, bots, seed):
    state = game.new_initial_state()
    state.deal(seed)
    while not state.is_terminal():
        state.apply_action(bots[state.current_player()].step(state))
    return state


@pytest.mark.parametrize("name,params,kind,sims", [
    ("cardzoo_courtpiece", {}, "mcts", 8),
    ("cardzoo_courtpiece", {}, "ismcts", 8),
    ("cardzoo_lopti", {"num_players": 2}, "ismcts", 2),   # the swap phase and the play phase
])
def test_openspiel_search_bots_play_a_full_game(name, params, kind, sims):
    from open_spiel.python.algorithms import ismcts, mcts
    from open_spiel.python.bots.uniform_random import UniformRandomBot

    game = pyspiel.load_game(name, params)
    n = game.num_players()
    rs = np.random.RandomState(0)
    evaluator = mcts.RandomRolloutEvaluator(1, rs)
    if kind == "mcts":   # perfect-information search over the true state: a baseline
        bot = mcts.MCTSBot(game, 2.0, sims, evaluator, random_state=rs)
    else:
        bot = ismcts.ISMCTSBot(game, evaluator, 2.0, sims, random_state=rs)
    bots = [bot if p % 2 == 0 else UniformRandomBot(p, rs) for p in range(n)]
    state = _full_game(game, bots, 11)
    r = state.returns()
    if any(state.env.truncations.values()):  # a LOPTI round can reach its step limit (LO-9.5): nobody is paid
        assert r == [0.0] * n
    else:
        assert sum(r) == 0.0 and all(x != 0.0 for x in r)
    assert r[0] == r[n - 2] and r[1] == r[n - 1]     # Court Piece partners (0, 2), (1, 3)
    assert state.env.public_state()["phase"] in ("over", "done")


def test_an_agent_bot_asked_out_of_turn_says_why():
    """A bot is asked only for its own seat's move; at the deal's chance nodes or another seat's turn
    AgentBot is a ValueError naming the seat (it was an AttributeError on None before the deal)."""
    game = pyspiel.load_game("cardzoo_courtpiece")
    state = game.new_initial_state()
    bot = cos.AgentBot(RandomAgent("courtpiece", seed=0), 1)
    with pytest.raises(ValueError, match="seat 1 is not to act: this is a chance node"):
        bot.step(state)
    state.deal(1)
    p = state.current_player()
    other = cos.AgentBot(RandomAgent("courtpiece", seed=0), (p + 1) % 4)
    with pytest.raises(ValueError, match=f"seat {(p + 1) % 4} is not to act: seat {p} is"):
        other.step(state)
    assert cos.AgentBot(RandomAgent("courtpiece", seed=0), p).step(state) in state.legal_actions()


def test_an_agent_that_reads_the_env_as_an_openspiel_bot():
    """The PIMC search agent (needs_env: it reads public_state()) plays through AgentBot too."""
    from agents import make_agent

    game = pyspiel.load_game("cardzoo_courtpiece")
    pimc = make_agent("pimc:samples=8", "courtpiece", seed=0)
    bots = [cos.AgentBot(pimc if s % 2 == 0 else RandomAgent("courtpiece", seed=s), s) for s in range(4)]
    state = _full_game(game, bots, 2)
    assert pimc.stats["searched"] > 0 and state.is_terminal()


@pytest.mark.parametrize("name", ["courtpiece", "lopti", "shengji"])
def test_heuristic_agents_as_openspiel_bots(name):
    """AgentBot plays exactly the game the agents play on the AEC env (same seed, same agents)."""
    from agents import make_agent
    from cardzoo.registry import make

    def agents():
        return [make_agent("heuristic", name, seed=s) if s % 2 == 0 else RandomAgent(name, seed=s) for s in range(4)]

    game = pyspiel.load_game(f"cardzoo_{name}")
    state = _full_game(game, [cos.AgentBot(a, s) for s, a in enumerate(agents())], 5)
    env = make(name).unwrapped
    env.reset(seed=5)
    seats = agents()
    total = np.zeros(env.num_players)
    while env.agents and not all(env.terminations.values()) and not all(env.truncations.values()):
        seat = env.seat_of(env.agent_selection)
        obs = env.observe(env.agent_selection)
        if seats[seat].needs_env:
            seats[seat].observe_env(env, seat)
        env.step(int(seats[seat].act(obs["observation"], obs["action_mask"])))
        total += [env.rewards[a] for a in env.possible_agents]
    assert state.env.public_state() == env.public_state()
    # the env pays float32; the bridge the fractions they stand for (LOPTI's thirds): equal at float32
    assert np.float32(state.returns()).tolist() == np.float32(total).tolist() and any(total)


def test_the_snippets_of_docs_openspiel_run():
    """Every ```python block of docs/openspiel.md runs as pasted (the search budget shrunk)."""
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "openspiel.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) >= 2 and any("ISMCTSBot(" in b for b in blocks)
    for src in blocks:
        src = src.replace("2.0, 100,", "2.0, 4,")
        namespace: dict = {}
        exec(compile(src, "docs/openspiel.md", "exec"), namespace)
    assert namespace.get("bots") is not None
