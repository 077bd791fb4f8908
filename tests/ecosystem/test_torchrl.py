"""TorchRL: Court Piece through torchrl.envs.PettingZooWrapper (via cardzoo.integrations.torchrl_env).
Skips when torchrl is absent (extra: cardzoo[torchrl])."""
from __future__ import annotations

import numpy as np
import pytest

courtpiece_env = pytest.importorskip("courtpiece_env")
pytest.importorskip("torchrl")
torch = pytest.importorskip("torch")

from cardzoo.integrations import NumericInfoWrapper, torchrl_env  # noqa: E402

AGENTS = ["player_0", "player_1", "player_2", "player_3"]


def test_numeric_info_wrapper_keeps_only_the_mask():
    env = NumericInfoWrapper(courtpiece_env.env())
    env.reset(seed=0)
    agent = env.agent_selection
    assert set(env.infos[agent]) == {"action_mask"}
    np.testing.assert_array_equal(env.infos[agent]["action_mask"], env.observe(agent)["action_mask"])
    assert env.unwrapped.public_state()["phase"] == env.unwrapped.infos[agent]["phase"]
    _, _, _, _, info = env.last()
    assert set(info) == {"action_mask"}


def test_specs_and_masked_random_episode():
    from torchrl.envs.utils import check_env_specs

    env = torchrl_env("courtpiece", variant="single_sar", seed=0)
    assert env.group_map == {a: [a] for a in AGENTS}
    check_env_specs(env)
    torch.manual_seed(0)
    td = env.rollout(500, break_when_any_done=True)
    assert td["next", "done"][-1].all()
    for a in AGENTS:
        acting = td[a, "mask"][:, 0]                     # this seat was the one to act
        actions = td[a, "action"][:, 0]
        masks = td[a, "action_mask"][:, 0]
        assert masks[acting].gather(1, actions[acting, None]).all()   # every move legal
    assert sum(int(td[a, "mask"].sum()) for a in AGENTS) == td.shape[0]  # one actor per step
    final = {a: float(td["next", a, "reward"][-1].sum()) for a in AGENTS}
    assert final["player_0"] == final["player_2"] == -final["player_1"] == -final["player_3"] != 0


def test_variants_and_custom_group_map():
    env = torchrl_env("courtpiece", variant="mendi_coat", seed=3, group_map={"team_0": ["player_0", "player_2"],
                                                                              "team_1": ["player_1", "player_3"]})
    td = env.rollout(500, break_when_any_done=True)
    assert td["team_0", "observation", "observation"].shape[1:] == (2, 916)
    assert td["next", "done"][-1].all()


@pytest.mark.parametrize("game,config", [("lopti", {"num_players": 2}), ("shengji", {"decks": 1})])
def test_other_games_masked_rollout(game, config):
    pytest.importorskip(f"{game}_env")
    env = torchrl_env(game, seed=1, **config)
    agents = list(env.group_map)
    torch.manual_seed(1)
    td = env.rollout(20000, break_when_any_done=True)
    assert td["next", "done"][-1].all()
    for a in agents:
        acting = td[a, "mask"][:, 0]
        masks = td[a, "action_mask"][:, 0]
        assert masks[acting].gather(1, td[a, "action"][:, 0][acting, None]).all()
