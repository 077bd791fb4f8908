"""Masks handed out cannot change a game (cardzoo/aec.py; spec 9.6 of every game): the actor's mask in
`infos`, `observe()` and `last()` is a copy of the env's own, the other seats' is a zero array nobody
can write, and legality comes from the game state. Forged masks -- edited in place, or a BatchGame's
`legal_mask()` output -- are refused with ValueError and change nothing, generators included."""
from __future__ import annotations

import random

import numpy as np
import pytest
from env_snapshot import batch_snapshot, random_action, random_batch_actions, snapshot

import courtpiece_env
import lopti_env
import shengji_env
from cardzoo.registry import make, make_batch

CONFIGS = [("lopti", {"num_players": 2}), ("lopti", {"num_players": 5}),
           ("lopti", {"num_players": 3, "session": True, "session_rounds": 2, "max_moves": 200, "rps_max_throws": 40}),
           ("shengji", {"decks": 1}), ("shengji", {"decks": 2, "episode": "match", "max_hands": 2}),
           ("courtpiece", {"variant": "single_sar"}), ("courtpiece", {"variant": "chhupa_rang", "change_cards": True}),
           ("courtpiece", {"variant": "mendi_coat", "episode": "match", "match_target": 2})]


@pytest.mark.parametrize("game,config", CONFIGS, ids=[f"{g}-{i}" for i, (g, _) in enumerate(CONFIGS)])
def test_editing_handed_out_masks_changes_nothing_and_kept_masks_never_change(game, config):
    """An env whose every handed-out mask is vandalised (all ones, in place) and a twin left alone,
    stepped with the same actions: equal after every step; a forged action is refused by the
    vandalised env without a change; masks kept by the user never change afterwards."""
    env, twin = make(game, **config), make(game, **config)
    rnd = random.Random(5)
    kept = []
    steps = refused = 0
    for episode in range(2):
        env.reset(seed=episode)
        twin.reset(seed=episode)
        while env.agents:
            agent = env.agent_selection
            mask = env.infos[agent]["action_mask"]
            assert mask.dtype == np.int8 and mask.tobytes() == env.observe(agent)["action_mask"].tobytes()
            for other in env.agents:
                zero = env.infos[other]["action_mask"]
                if other != agent or env.terminations[agent]:
                    assert not zero.flags.writeable and not zero.any()
                    with pytest.raises(ValueError):
                        zero.flags.writeable = True
            action = random_action(env, rnd)
            illegal = np.flatnonzero(mask == 0)
            if rnd.random() < 0.5:
                for m in (mask, env.observe(agent)["action_mask"], env.last()[0]["action_mask"]):
                    if m.flags.writeable:
                        m[:] = 1
            else:
                kept.append((mask, mask.tobytes()))
            if action is not None and len(illegal) and rnd.random() < 0.3:
                before = snapshot(env)
                with pytest.raises(ValueError, match="illegal action"):
                    env.step(int(illegal[rnd.randrange(len(illegal))]))
                assert snapshot(env) == before
                refused += 1
            env.step(action)
            twin.step(action)
            steps += 1
            if steps % 25 == 0 or not env.agents:
                assert snapshot(env) == snapshot(twin)
    assert all(m.tobytes() == b for m, b in kept)
    assert refused > 5


def _first(env, phase):
    """Step env (random legal actions, seeded) until infos say `phase` for the actor."""
    rnd = random.Random(1)
    while env.infos[env.agent_selection]["phase"] != phase:
        env.step(random_action(env, rnd))


def _refused(env, action, twin=None):
    """Forge the actor's handed-out mask to allow `action` (illegal), step it: ValueError, and the
    env -- record, masks, infos, observations, generators -- as it was; then, if given, play both env
    and twin (same seed and history) to the end with the same actions and compare."""
    agent = env.agent_selection
    mask = env.infos[agent]["action_mask"]
    assert mask[action] == 0
    mask[action] = 1
    env.last()[0]["action_mask"][action] = 1
    before = snapshot(env)
    with pytest.raises(ValueError, match="illegal action"):
        env.step(action)
    assert snapshot(env) == before
    mask[action] = 0  # (the user's copy in infos: put back what the env handed out)
    if twin is not None:
        rnd = random.Random(2)
        while env.agents:
            a = random_action(env, rnd)
            env.step(a)
            twin.step(a)
        assert snapshot(env) == snapshot(twin)


@pytest.mark.parametrize("wrapped", [True, False])
def test_shengji_forged_name_trump_and_lead_card(wrapped):
    """SJ: `m[83] = 1; step(83)` (NAME_TRUMP S while declaring) and a LEAD of a card the leader does
    not hold but another seat does: both refused, nothing changed."""
    env, twin = (shengji_env.env(decks=1), shengji_env.env(decks=1)) if wrapped else (
        shengji_env.raw_env(decks=1), shengji_env.raw_env(decks=1))
    env.reset(seed=3)
    twin.reset(seed=3)
    assert env.infos[env.agent_selection]["phase"] == "DECLARE"
    _refused(env, 83, twin)
    env.reset(seed=4)
    _first(env, "LEAD")
    hands = env.unwrapped._st[0]["hand"]
    seat = env.unwrapped.seat_of(env.agent_selection)
    card = next(c for c in range(54) if hands[seat][c] == 0 and hands[(seat + 1) % 4][c] > 0)
    _refused(env, card)


@pytest.mark.parametrize("wrapped", [True, False])
def test_lopti_forged_select_139(wrapped):
    """LOPTI: `m[139] = 1; step(139)` (select 31, outside any session) is refused and the env plays on
    exactly like a twin."""
    factory = lopti_env.env if wrapped else lopti_env.raw_env
    env, twin = factory(num_players=3), factory(num_players=3)
    env.reset(seed=8)
    twin.reset(seed=8)
    _refused(env, 139, twin)


@pytest.mark.parametrize("wrapped", [True, False])
def test_courtpiece_forged_change_cards_draws_nothing(wrapped):
    """CP: a forged 59 (change cards, CP-3.6) outside its phase is refused before anything is drawn:
    the rest of the match -- later deals and change-card stocks -- equals a twin's."""
    config = dict(variant="chhupa_rang", change_cards=True, episode="match", match_target=2)
    factory = courtpiece_env.env if wrapped else courtpiece_env.raw_env
    env, twin = factory(**config), factory(**config)
    env.reset(seed=2)
    twin.reset(seed=2)
    rnd = random.Random(4)
    while env.infos[env.agent_selection]["phase"] != "play":
        a = random_action(env, rnd)
        env.step(a)
        twin.step(a)
    _refused(env, 59, twin)


@pytest.mark.parametrize("game,config,forge", [
    ("courtpiece", {"variant": "single_sar", "change_cards": True}, 59),
    ("lopti", {"num_players": 4}, 139),
    ("shengji", {"decks": 2}, 83),
])
def test_batch_step_ignores_an_edited_legal_mask(game, config, forge):
    """BatchGame.step checks legality on the games, not on a legal_mask() output the user edited:
    an action only the edited mask allows raises ValueError and no game moves."""
    g = make_batch(game, 3, **config)
    g.reset(seed=6)
    rnd = random.Random(3)
    for _ in range(5):
        g.step(random_batch_actions(g, rnd))
    mask = g.legal_mask()
    assert mask[1, forge] == 0
    acts = random_batch_actions(g, rnd)
    mask[1, forge] = 1
    acts[1] = forge
    before = batch_snapshot(g), g.legal_mask().tobytes()
    with pytest.raises(ValueError, match="game 1: illegal action"):
        g.step(acts)
    assert (batch_snapshot(g), g.legal_mask().tobytes()) == before
    acts[1] = random_batch_actions(g, rnd)[1]
    g.step(acts)
