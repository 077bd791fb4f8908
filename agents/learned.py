"""Learned agents: a masked actor-critic MLP (torch) and its checkpoint format.

A checkpoint is two files side by side: ``<name>.pt``, the model's ``state_dict`` (loaded with
``torch.load(path, weights_only=True)``, so no code is ever unpickled), and ``<name>.json``, the
config needed to rebuild the model and to know what it plays (game, env config, sizes, training
facts). The observation scale is a buffer in the state dict, so a checkpoint is self-contained.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

from agents.base import Agent
from cardzoo import registry
from cardzoo.options import check_int, is_int

FORMAT = "cardzoo-ppo-v1"


def _torch():
    import torch  # noqa: WPS433 (optional dependency)

    return torch


ACTIVATIONS = ("tanh", "relu")


def build_model(obs_size: int, num_actions: int, hidden: int = 256, layers: int = 2, activation: str = "tanh"):
    torch = _torch()
    nn = torch.nn
    if activation not in ACTIVATIONS:
        raise ValueError(f"activation must be one of {ACTIVATIONS}, got {activation!r}")
    act = nn.Tanh if activation == "tanh" else nn.ReLU

    class PolicyNet(nn.Module):
        """Shared MLP body, a policy head (masked logits) and a value head."""

        def __init__(self):
            super().__init__()
            self.register_buffer("obs_scale", torch.ones(obs_size))
            dims = [obs_size] + [hidden] * layers
            body = []
            for i in range(layers):
                body += [nn.Linear(dims[i], dims[i + 1]), act()]
            self.body = nn.Sequential(*body)
            self.pi = nn.Linear(hidden, num_actions)
            self.v = nn.Linear(hidden, 1)
            nn.init.orthogonal_(self.pi.weight, 0.01)
            nn.init.zeros_(self.pi.bias)

        def forward(self, obs, mask):
            h = self.body(obs * self.obs_scale)
            logits = self.pi(h).masked_fill(mask == 0, -1e9)
            return logits, self.v(h).squeeze(-1)

    return PolicyNet()


def save_checkpoint(model, path, meta: dict) -> tuple[Path, Path]:
    torch = _torch()
    path = Path(path)
    if path.suffix != ".pt":
        path = path.with_suffix(".pt")
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.save({k: v.detach().cpu() for k, v in model.state_dict().items()}, path)
    meta = dict(meta, format=FORMAT)
    jpath = path.with_suffix(".json")
    jpath.write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")
    return path, jpath


# bounds on the JSON's model shape, checked before its parameter shapes are even listed
MAX_HIDDEN = 1 << 16
MAX_LAYERS = 64


def _param_shapes(obs_size: int, num_actions: int, hidden: int, layers: int) -> dict:
    """The state dict build_model(...) has, as {name: shape}, computed without building it."""
    shapes = {"obs_scale": (obs_size,)}
    dims = [obs_size] + [hidden] * layers
    for i in range(layers):
        shapes[f"body.{2 * i}.weight"] = (hidden, dims[i])
        shapes[f"body.{2 * i}.bias"] = (hidden,)
    shapes.update({"pi.weight": (num_actions, hidden), "pi.bias": (num_actions,), "v.weight": (1, hidden),
                   "v.bias": (1,)})
    return shapes


def _read_meta(jpath: Path, game: str | None) -> dict:
    """The checked JSON half: the format, a known game (the expected one if given), its real sizes."""
    try:
        meta = json.loads(jpath.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"{jpath}: unreadable checkpoint description ({e})") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        fmt = meta.get("format") if isinstance(meta, dict) else None
        raise ValueError(f"{jpath}: not a {FORMAT} checkpoint (format={fmt!r})")
    ckpt_game = meta.get("game")
    if game is not None and ckpt_game != game:
        raise ValueError(f"{jpath}: the checkpoint plays {ckpt_game!r}, not {game!r}")
    if not isinstance(ckpt_game, str):
        raise ValueError(f"{jpath}: 'game' must name a game, got {ckpt_game!r}")
    # the sizes of the game itself, read from its BatchGame class (no model, no game built yet)
    try:  # the game's own sizes, from its BatchGame class (nothing built)
        cls = registry._module(ckpt_game).BatchGame
    except ValueError as e:
        raise ValueError(f"{jpath}: {e}") from None
    for key, real in (("obs_size", cls.observation_size), ("num_actions", cls.num_actions)):
        value = meta.get(key)
        if not is_int(value) or value != real:
            raise ValueError(f"{jpath}: {key}={value!r}, but {ckpt_game} has {key} {real}")
    check_int("hidden", meta.setdefault("hidden", 256), 1, MAX_HIDDEN, what=f"{jpath}:")
    check_int("layers", meta.setdefault("layers", 2), 1, MAX_LAYERS, what=f"{jpath}:")
    return meta


def load_weights(path: Path):
    """torch.load(path, weights_only=True), or one ValueError naming the file and why it cannot be read.
    torch's own messages run to several paragraphs and advise weights_only=False, which would run
    whatever a forged file holds: only their cause is kept."""
    torch = _torch()
    try:
        return torch.load(path, weights_only=True)
    except Exception as e:  # truncated, not a torch file, content weights_only refuses: all unreadable
        text = str(e)
        if "Weights only load failed" in text:
            # the cause is the paragraph after "WeightsUnpickler error:" or the "unsupported GLOBAL" one
            parts = [p.strip() for p in text.split("\n\n") if p.strip()]
            cause = next((p for p in parts if p.startswith(("Unsupported", "Trying to load"))), "")
            why = "not a plain state dict of tensors" + (f" ({' '.join(cause.split())[:120]})" if cause else "")
        else:
            why = " ".join(text.split(". ")[0].split())[:160]
        raise ValueError(f"{path}: unreadable weights: {why}") from None


def checkpoint_files(path) -> tuple[Path, Path]:
    """A checkpoint's two halves, ``<name>.pt`` and ``<name>.json``, from either name (or the name
    without its suffix); a ValueError naming the path as given when one is missing."""
    given = Path(path)
    pt = given.with_suffix(".pt")
    jpath = pt.with_suffix(".json")
    if not pt.is_file() or not jpath.is_file():
        raise ValueError(f"checkpoint {given}: needs both {pt} and {jpath}")
    return pt, jpath


def load_checkpoint(path, game: str | None = None):
    """(model in eval mode, meta dict) from ``<name>.pt`` and ``<name>.json``.

    Every way a checkpoint can be wrong is one ValueError naming the file: a missing half, an
    unreadable or truncated file, another format, another game than ``game`` (when given), sizes
    other than the game's own, weights that do not fit. The JSON's sizes are checked against the
    game, and the weights' shapes against the JSON, before any model is built, so a forged file
    cannot make the loader allocate more than the weights file itself holds."""
    torch = _torch()
    if not isinstance(path, (str, os.PathLike)):
        raise ValueError(f"checkpoint path must be a str or path, got {path!r}")
    path, jpath = checkpoint_files(path)
    meta = _read_meta(jpath, game)
    state = load_weights(path)
    want = _param_shapes(meta["obs_size"], meta["num_actions"], meta["hidden"], meta["layers"])
    if not isinstance(state, dict) or not all(isinstance(v, torch.Tensor) for v in state.values()):
        raise ValueError(f"{path}: not a state dict of tensors")
    have = {k: tuple(v.shape) for k, v in state.items()}
    if have != want:
        bad = sorted(k for k in set(have) | set(want) if have.get(k) != want.get(k))
        raise ValueError(f"{path}: the weights do not fit {jpath.name} (hidden={meta['hidden']}, "
                         f"layers={meta['layers']}): {bad[0]} is {have.get(bad[0], 'missing')}, expected {want.get(bad[0], 'no such weight')}")
    model = build_model(meta["obs_size"], meta["num_actions"], meta["hidden"], meta["layers"],
                        meta.get("activation", "tanh"))
    model.load_state_dict(state)
    model.eval()
    return model, meta


class LearnedAgent(Agent):
    """Plays a trained checkpoint: the arg-max legal action (``greedy=True``) or a seeded sample."""

    name = "learned"

    def __init__(self, game: str | None = None, seed: int | None = None, checkpoint=None, greedy: bool = True,
                 model=None, meta: dict | None = None):
        super().__init__(game, seed)
        torch = _torch()
        if model is None:
            if checkpoint is None:
                raise ValueError("LearnedAgent needs checkpoint=<path to .pt>")
            model, meta = load_checkpoint(checkpoint, game)
        meta = meta or {}
        if game is not None and meta.get("game") not in (None, game):
            raise ValueError(f"checkpoint plays {meta.get('game')!r}, not {game!r}")
        self.model, self.meta, self.greedy = model, meta, bool(greedy)
        self.checkpoint = checkpoint
        self._gen = torch.Generator().manual_seed(0 if seed is None else int(seed))

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        s = self.seed if seed is None else seed
        self._gen.manual_seed(0 if s is None else int(s))

    def act_batch(self, obs, masks) -> np.ndarray:
        torch = _torch()
        with torch.no_grad():
            o = torch.as_tensor(np.asarray(obs, dtype=np.float32))
            m = torch.as_tensor(np.asarray(masks).astype(np.int8))
            logits, _ = self.model(o, m)
            if self.greedy:
                a = logits.argmax(dim=1)
            else:
                a = torch.multinomial(torch.softmax(logits, dim=1), 1, generator=self._gen).squeeze(1)
        return a.numpy().astype(np.int64)

    def act(self, observation, action_mask) -> int:
        return int(self.act_batch(np.asarray(observation)[None], np.asarray(action_mask)[None])[0])
