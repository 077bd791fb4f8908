"""Learned agents: a masked actor-critic MLP (torch) and its checkpoint format.

A checkpoint is two files side by side: ``<name>.pt``, the model's ``state_dict`` (loaded with
``torch.load(path, weights_only=True)``, so no code is ever unpickled), and ``<name>.json``, the
config needed to rebuild the model and to know what it plays (game, env config, sizes, training
facts). The observation scale is a buffer in the state dict, so a checkpoint is self-contained.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from agents.base import Agent

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


def load_checkpoint(path):
    """(model in eval mode, meta dict) from ``<name>.pt`` and ``<name>.json``."""
    torch = _torch()
    path = Path(path)
    if path.suffix != ".pt":
        path = path.with_suffix(".pt")
    jpath = path.with_suffix(".json")
    if not path.exists() or not jpath.exists():
        raise ValueError(f"checkpoint {path} needs both {path.name} and {jpath.name}")
    meta = json.loads(jpath.read_text())
    if meta.get("format") != FORMAT:
        raise ValueError(f"{jpath}: not a {FORMAT} checkpoint (format={meta.get('format')!r})")
    model = build_model(meta["obs_size"], meta["num_actions"], meta.get("hidden", 256), meta.get("layers", 2),
                        meta.get("activation", "tanh"))
    model.load_state_dict(torch.load(path, weights_only=True))
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
            model, meta = load_checkpoint(checkpoint)
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
