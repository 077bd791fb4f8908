"""Court Piece env()'s fast step path (courtpiece_env/env.py `aec_step` behind the adapter's
`_game_quick_step`, cardzoo/aec.py): the kernel does exactly what K.step_one does to the state and the
mask, refuses exactly the actions the mask refuses (state and generator untouched), and reports how the
step moved in the adapter's terms; timeout() (CP-12.2) in between keeps env() equal to a plain adapter.
tests/core/test_aec_reference.py compares every value after every step for all five variants."""
from __future__ import annotations

import importlib
import random

import numpy as np
import pytest
from courtpiece_reference import record_bytes

import courtpiece_env
from cardzoo.fastpath import PHASE_STEP
from courtpiece_env import rules as K
from courtpiece_env.state import NEED_DEAL, OVER

envmod = importlib.import_module("courtpiece_env.env")

CONFIGS = [
    {"variant": "single_sar"},
    {"variant": "double_sar", "episode": "match", "match_target": 3},
    {"variant": "chhupa_rang", "change_cards": True, "change_trump": True},
    {"variant": "be_rang"},
    {"variant": "mendi_coat", "mendi_trump": "band", "episode": "match", "match_target": 2},
    {"variant": "single_sar", "change_cards": True, "change_cards_limit": 2, "change_trump": True},
]
IDS = [f"{c['variant']}-{i}" for i, c in enumerate(CONFIGS)]


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_aec_step_is_step_one_with_the_mask_check_and_the_move_report(config):
    """On every state of seeded random games: every illegal action returns -2 and leaves the record as
    it was; the chosen legal action changes the record and writes the mask exactly like K.step_one, and
    the return is the next actor (same phase), PHASE_STEP - actor - 8 * phase (phase changed) or -1
    (no seat acts: the bazi was decided, CP-9.4)."""
    raw = courtpiece_env.raw_env(**config)
    rnd = random.Random(11)
    codes = set()
    for game in range(6):
        raw.reset(seed=game)
        st, cfg = raw._st, raw._cfg
        while int(st["actor"][0]) >= 0:
            mask = np.zeros(60, np.int8)
            K.mask_one(st, 0, cfg, mask)
            assert mask.tobytes() == raw._next_mask.tobytes()
            before = record_bytes(st)
            out = np.full(60, 7, np.int8)
            for a in np.flatnonzero(mask == 0).tolist():
                assert envmod.aec_step(st, cfg, a, raw._neworder, out) == -2
                assert record_bytes(st) == before and (out == 7).all()
            legal = np.flatnonzero(mask).tolist()
            a = legal[rnd.randrange(len(legal))]
            if a == 59:  # change cards: the env draws the new order from its generator (CP-10.1)
                raw._game_step(59)
                continue
            ref, ref_mask = st.copy(), np.zeros(60, np.int8)
            K.step_one(ref, 0, cfg, a, raw._neworder, ref_mask)
            phase = int(st["phase"][0])
            moved = envmod.aec_step(st, cfg, a, raw._neworder, out)
            assert record_bytes(st) == record_bytes(ref)
            actor, new_phase = int(st["actor"][0]), int(st["phase"][0])
            raw._next_mask[:] = out  # the env's own mask, as its step leaves it
            if actor < 0:
                assert moved == -1 and new_phase in (OVER, NEED_DEAL) and not out.any()
                raw._finished()  # the env's own bookkeeping (a match deals the next bazi)
                continue
            assert out.tobytes() == ref_mask.tobytes()
            assert moved == (actor if new_phase == phase else PHASE_STEP - actor - 8 * new_phase)
            codes.add(moved >= 0)
    assert True in codes  # quiet steps (phase steps too where a call, hide or change phase comes first)
    assert False in codes or config["variant"] == "be_rang"


def _snapshot(env):
    """Everything a user reads from env() after a step (masks by bytes)."""
    snap = {"agents": list(env.agents)}
    if not env.agents:
        return snap
    snap["selection"] = env.agent_selection
    for name in ("rewards", "_cumulative_rewards", "terminations", "truncations"):
        snap[name] = {k: (type(v), v) for k, v in getattr(env, name).items()}
    snap["infos"] = {a: {k: (v.dtype, v.tobytes()) if isinstance(v, np.ndarray) else (type(v), v)
                         for k, v in info.items()} for a, info in env.infos.items()}
    snap["observe"] = {a: {k: (v.dtype, v.tobytes()) for k, v in env.observe(a).items()} for a in env.agents}
    return snap


class _Plain(envmod.raw_env):
    """The plain adapter path only: every step through _game_step and a full _sync."""

    def _game_quick_step(self, action):
        if not self._mask[action]:
            return -2
        self._game_step(action)
        return -1


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_quick_path_and_timeouts_match_the_plain_path(config):
    """Seeded random games with timeout() (CP-12.2) at random points: the fast env and one that takes
    the adapter's plain path on every step agree on everything after every step and timeout."""
    from cardzoo.aec import wrap
    fast, plain = courtpiece_env.env(**config), wrap(_Plain(**config))
    rnd = random.Random(3)
    steps = 0
    for game in range(8):
        fast.reset(seed=100 + game)
        plain.reset(seed=100 + game)
        assert _snapshot(fast) == _snapshot(plain)
        while fast.agents:
            agent = fast.agent_selection
            if fast.terminations[agent] or fast.truncations[agent]:
                fast.step(None)
                plain.step(None)
            elif rnd.random() < 0.08:
                fast.unwrapped.timeout()
                plain.unwrapped.timeout()
            else:
                legal = np.flatnonzero(fast.infos[agent]["action_mask"])
                a = int(legal[rnd.randrange(len(legal))])
                fast.step(a)
                plain.step(a)
            steps += 1
            assert _snapshot(fast) == _snapshot(plain), (game, steps)
    assert steps > 8 * 13


@pytest.mark.parametrize("config", CONFIGS[:3], ids=IDS[:3])
def test_illegal_actions_leave_state_and_generator_untouched(config):
    """An illegal int action (the quick path's -2) raises ValueError; the record, the masks handed out
    and the generator stay as they were -- change cards (59) included, which draws only when legal."""
    env = courtpiece_env.env(**config)
    raw = env.unwrapped
    rnd = random.Random(5)
    env.reset(seed=7)
    checked = 0
    while env.agents and checked < 60:
        agent = env.agent_selection
        if env.terminations[agent]:
            break
        mask = env.infos[agent]["action_mask"]
        illegal = np.flatnonzero(mask == 0)
        a = int(illegal[rnd.randrange(len(illegal))]) if rnd.random() < 0.7 else 59
        if not mask[a]:
            st, rng_state, kept = record_bytes(raw._st), raw._ep.rng.bit_generator.state, mask.tobytes()
            with pytest.raises(ValueError, match="illegal action"):
                env.step(a)
            assert record_bytes(raw._st) == st and raw._ep.rng.bit_generator.state == rng_state
            assert env.agent_selection == agent and env.infos[agent]["action_mask"].tobytes() == kept
            checked += 1
        legal = np.flatnonzero(mask)
        del mask
        env.step(int(legal[rnd.randrange(len(legal))]))
    assert checked > 10
