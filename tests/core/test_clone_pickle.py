"""Clones of envs and batches (cardzoo/aec.py, cardzoo/batch.py): `copy.deepcopy` and a `pickle` round
trip of env(), raw_env() and BatchGame at any point of a game continue exactly as the original does
-- observations, rewards, infos, ends and the later chance events (the same generator states) -- and
`reset(seed=s)` on a clone equals a fresh env's. Search agents clone envs all the time."""
from __future__ import annotations

import copy
import os
import pickle
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from env_snapshot import batch_snapshot, random_action, random_batch_actions, snapshot

from cardzoo.registry import make, make_batch

CONFIGS = [
    ("courtpiece", {"variant": "single_sar"}),
    ("courtpiece", {"variant": "double_sar", "episode": "match", "match_target": 2}),
    ("courtpiece", {"variant": "chhupa_rang", "change_cards": True, "episode": "match", "match_target": 2}),
    ("courtpiece", {"variant": "be_rang"}),
    ("courtpiece", {"variant": "mendi_coat", "mendi_trump": "band"}),
    ("lopti", {"num_players": 2}),
    ("lopti", {"num_players": 5}),
    ("lopti", {"num_players": 3, "session": True, "session_rounds": 2, "max_moves": 200, "rps_max_throws": 40}),
    ("shengji", {"decks": 1}),
    ("shengji", {"decks": 2, "declaration_mode": "preset", "episode": "match", "max_hands": 2}),
]
IDS = [f"{g}-" + "-".join(str(v) for v in c.values()) for g, c in CONFIGS]
CLONES = {"deepcopy": copy.deepcopy, "pickle": lambda obj: pickle.loads(pickle.dumps(obj))}


def _play_on(env, clones, rnd, steps=None):
    """Step env and every clone with the same actions (to the end, or `steps` steps), comparing all
    of them after every third step and the last."""
    n = 0
    while env.agents and (steps is None or n < steps):
        action = random_action(env, rnd)
        for e in (env, *clones):
            e.step(action)
        n += 1
        if n % 3 == 0 or not env.agents or n == steps:
            want = snapshot(env)
            assert all(snapshot(c) == want for c in clones), n


@pytest.mark.parametrize("wrapped", [True, False], ids=["env", "raw_env"])
@pytest.mark.parametrize("game,config", CONFIGS, ids=IDS)
def test_env_clones_continue_like_the_original(game, config, wrapped):
    env = make(game, raw=not wrapped, **config)
    rnd = random.Random(7)
    fresh_clones = [clone(env) for clone in CLONES.values()]  # before the first reset
    env.reset(seed=11)
    for c in fresh_clones:
        c.reset(seed=11)
    assert all(snapshot(c) == snapshot(env) for c in fresh_clones)
    clones = []
    for steps in (0, 7, 33):  # clones right after reset, early, in the middle
        _play_on(env, clones, rnd, steps=steps)
        clones += [clone(env) for clone in CLONES.values()]
        assert all(snapshot(c) == snapshot(env) for c in clones)
    _play_on(env, clones, rnd)  # to the end of the episode, the dead steps included
    clones.append(copy.deepcopy(env))  # after the episode
    for c in clones:
        assert c.unwrapped is not env.unwrapped and c.unwrapped._st is not env.unwrapped._st
        if wrapped:
            assert type(c) is type(env) and any(w is c for w in c.unwrapped._wrappers)
    # the next episodes: an unseeded reset continues each generator (equal chance events), a seeded
    # one equals a fresh env's
    for e in (env, *clones):
        e.reset()
    _play_on(env, clones, rnd, steps=30)
    new = make(game, raw=not wrapped, **config)
    new.reset(seed=5)
    for c in clones:
        c.reset(seed=5)
        assert snapshot(c) == snapshot(new)


@pytest.mark.parametrize("game,config", CONFIGS, ids=IDS)
def test_clones_of_a_clone_and_of_an_iterating_env(game, config, caplog):
    """A clone taken inside `for agent in env.agent_iter()` plays on with its own agent_iter and the
    order-enforcing wrapper's checks; a clone of a clone is a clone."""
    env = make(game, **config)
    env.reset(seed=3)
    rnd = random.Random(1)
    for i, agent in enumerate(env.agent_iter()):
        env.step(random_action(env, rnd))
        if i == 12:
            break
    twin = pickle.loads(pickle.dumps(copy.deepcopy(env)))
    actions = []
    for agent in env.agent_iter():
        actions.append(random_action(env, rnd))
        env.step(actions[-1])
    for agent, action in zip(twin.agent_iter(), actions, strict=True):
        assert twin.last()[0]["action_mask"].tobytes() == twin.infos[agent]["action_mask"].tobytes()
        twin.step(action)
    assert snapshot(twin) == snapshot(env)
    twin.step(None)  # the wrapper's own check still works on the clone
    assert "step() called after all agents are terminated" in caplog.text


@pytest.mark.parametrize("game,config", CONFIGS, ids=IDS)
def test_batch_game_clones_continue_like_the_original(game, config):
    g = make_batch(game, 4, **config)
    rnd = random.Random(9)
    g.reset(seed=21)
    clones = []
    for steps in (0, 5, 30):
        for _ in range(steps):
            acts = random_batch_actions(g, rnd)
            for b in (g, *clones):
                b.step(acts)
            assert all(batch_snapshot(c) == batch_snapshot(g) for c in clones)
        clones += [clone(g) for clone in CLONES.values()]
    for c in clones:
        for name, v in vars(g).items():
            assert not isinstance(v, np.ndarray) or not np.shares_memory(v, vars(c)[name]), name
    # to every game's end: the later chance events (a match's next deals, change-card stocks)
    while not g.done.all():
        acts = random_batch_actions(g, rnd)
        for b in (g, *clones):
            b.step(acts)
        assert all(batch_snapshot(c) == batch_snapshot(g) for c in clones)
    new = make_batch(game, 4, **config)
    new.reset(seed=2)
    for c in clones:
        c.reset(seed=2)
        assert batch_snapshot(c) == batch_snapshot(new)
    acts = random_batch_actions(new, rnd)
    for b in (new, *clones):
        b.step(acts)
    assert all(batch_snapshot(c) == batch_snapshot(new) for c in clones)
    counts = {b.rollout(seed=4) for b in (new, *clones)}
    assert len(counts) == 1 and all(batch_snapshot(c) == batch_snapshot(new) for c in clones)


def test_a_pickle_plays_on_in_a_fresh_process(tmp_path):
    """A pickled env loads in a new interpreter (multiprocessing, Ray workers) -- where no kernel
    entry point exists yet -- and plays on exactly like the original, through a match's later deals
    and change-card stocks; the stepped env pickled back equals the original stepped alike."""
    config = dict(variant="chhupa_rang", change_cards=True, episode="match", match_target=2)
    env = make("courtpiece", **config)
    env.reset(seed=1)
    rnd = random.Random(2)
    for _ in range(10):
        env.step(random_action(env, rnd))
    ahead, actions = copy.deepcopy(env), []
    while ahead.agents:
        actions.append(random_action(ahead, rnd))
        ahead.step(actions[-1])
    path = tmp_path / "env.pkl"
    path.write_bytes(pickle.dumps((env, actions)))
    code = ("import pickle, sys\n"
            "env, actions = pickle.loads(open(sys.argv[1], 'rb').read())\n"
            "for a in actions:\n    env.step(a)\n"
            "sys.stdout.buffer.write(pickle.dumps(env))\n")
    root = str(Path(__file__).resolve().parents[2])
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, check=True, cwd=root,
                         env={**os.environ, "PYTHONPATH": root})
    for a in actions:
        env.step(a)
    assert snapshot(pickle.loads(out.stdout)) == snapshot(env) == snapshot(ahead)
