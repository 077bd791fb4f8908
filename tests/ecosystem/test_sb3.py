"""Stable-Baselines3 / sb3-contrib on the single-seat Gymnasium view (cardzoo.wrappers.SingleSeatEnv).

Skips cleanly when sb3-contrib is not installed (extra: cardzoo[sb3]).
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip("courtpiece_env")
sb3_contrib = pytest.importorskip("sb3_contrib")
torch = pytest.importorskip("torch")

from gymnasium.utils.env_checker import check_env  # noqa: E402
from sb3_contrib import MaskablePPO  # noqa: E402
from sb3_contrib.common.maskable.evaluation import evaluate_policy  # noqa: E402
from sb3_contrib.common.maskable.utils import get_action_masks  # noqa: E402

from cardzoo.wrappers import SingleSeatEnv  # noqa: E402

VARIANTS = ["single_sar", "double_sar", "chhupa_rang", "be_rang", "mendi_coat"]
OTHER_GAMES = ["lopti", "shengji"]


def _game(game):
    pytest.importorskip(f"{game}_env")
    return game


def _check(env):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", message=".*render fps.*")
        warnings.filterwarnings("ignore", message=".*not having a spec.*")
        warnings.filterwarnings("ignore", message=".*observation space (minimum|maximum) value is.*infinity.*")
        check_env(env)


@pytest.fixture(autouse=True)
def _one_thread():
    n = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(n)


@pytest.mark.parametrize("variant", VARIANTS)
def test_check_env_passes(variant):
    # check_env steps an action it sampled before reset; illegal_action="sample" answers that one
    # with a legal move drawn from the env's np_random (reported in info["illegal_action"]).
    _check(SingleSeatEnv("courtpiece", variant=variant, render_mode="ansi", illegal_action="sample"))


@pytest.mark.parametrize("game", OTHER_GAMES)
def test_check_env_passes_other_games(game):
    _check(SingleSeatEnv(_game(game), seat=1, render_mode="ansi", illegal_action="sample"))


def test_default_still_raises_on_illegal_action():
    env = SingleSeatEnv("courtpiece")
    _, info = env.reset(seed=3)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match="illegal action"):
        env.step(illegal)
    # the env is untouched: a legal action still works from the same position
    legal = int(np.flatnonzero(info["action_mask"])[0])
    env.step(legal)


@pytest.mark.parametrize("game", ["courtpiece", *OTHER_GAMES])
def test_action_space_sample_is_legal(game):
    env = SingleSeatEnv(_game(game))
    env.action_space.seed(0)
    _, info = env.reset(seed=0)
    for _ in range(200):
        a = env.action_space.sample()
        assert info["action_mask"][a] == 1
        _, _, term, trunc, info = env.step(a)
        if term or trunc:
            _, info = env.reset()


def test_illegal_action_sample_reports_replacement():
    env = SingleSeatEnv("courtpiece", illegal_action="sample")
    _, info = env.reset(seed=5)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    _, _, _, _, info2 = env.step(illegal)
    assert info2["illegal_action"] == illegal
    with pytest.raises(ValueError):
        env.step(60)  # outside the action space: always an error
    with pytest.raises(ValueError):
        SingleSeatEnv("courtpiece", illegal_action="penalty")


def test_maskable_ppo_trains_and_evaluates():
    env = SingleSeatEnv("courtpiece", variant="single_sar")
    model = MaskablePPO(
        "MlpPolicy", env, n_steps=128, batch_size=64, n_epochs=2, seed=0, device="cpu",
        policy_kwargs={"net_arch": [64, 64]}, verbose=0,
    )
    model.learn(total_timesteps=384)
    assert model.num_timesteps >= 384
    # the trained policy never proposes an illegal action when masked
    obs, info = env.reset(seed=11)
    for _ in range(100):
        masks = get_action_masks(env)
        action, _ = model.predict(obs, action_masks=masks, deterministic=True)
        assert masks[int(action)]
        obs, _, term, trunc, info = env.step(action)
        if term or trunc:
            obs, info = env.reset()
    mean, _ = evaluate_policy(model, env, n_eval_episodes=3, use_masking=True, warn=False)
    assert np.isfinite(mean)


def test_maskable_ppo_vec_env_and_save_load(tmp_path):
    from stable_baselines3.common.env_util import make_vec_env

    vec = make_vec_env(lambda: SingleSeatEnv("courtpiece", variant="be_rang"), n_envs=2, seed=0)
    model = MaskablePPO("MlpPolicy", vec, n_steps=64, batch_size=64, n_epochs=1, seed=0, device="cpu",
                        policy_kwargs={"net_arch": [32]})
    model.learn(total_timesteps=128)
    path = tmp_path / "cp_ppo.zip"
    model.save(path)
    loaded = MaskablePPO.load(path, device="cpu")
    obs = vec.reset()
    actions, _ = loaded.predict(obs, action_masks=get_action_masks(vec))
    masks = get_action_masks(vec)
    assert all(masks[i, a] for i, a in enumerate(actions))


@pytest.mark.parametrize("game", OTHER_GAMES)
def test_maskable_ppo_other_games(game):
    env = SingleSeatEnv(_game(game), seat=0)
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=64, n_epochs=1, seed=0, device="cpu",
                        policy_kwargs={"net_arch": [32]})
    model.learn(total_timesteps=64)
    obs, _ = env.reset(seed=2)
    action, _ = model.predict(obs, action_masks=env.action_masks())
    assert env.action_masks()[int(action)]


def test_gymnasium_make_ids():
    import gymnasium

    from cardzoo.integrations import GYMNASIUM_IDS

    env = gymnasium.make("cardzoo.integrations:cardzoo/CourtPiece-v0", variant="double_sar")
    assert env.spec.id == GYMNASIUM_IDS["courtpiece"]
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=64, n_epochs=1, seed=0, device="cpu",
                        policy_kwargs={"net_arch": [32]})
    model.learn(total_timesteps=64)
    env.reset(seed=0)
    masks = get_action_masks(env)                     # reaches action_masks() through the wrappers
    assert masks.dtype == bool and masks.any()
    # with a spec, check_env also re-makes the env in every render mode
    raw = gymnasium.make(GYMNASIUM_IDS["courtpiece"], illegal_action="sample").unwrapped
    _check(raw)
