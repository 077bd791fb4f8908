"""A residual checkpoint's network (``agents.residual``) as plain arrays, evaluated inside jitted code.

A search that plays its rollouts by a learned policy asks the network thousands of times per
decision; one torch call each would cost more than the whole rollout. ``jit_net`` loads a
checkpoint into a ``JitNet`` tuple of float32 arrays that a rollout kernel passes around, and three
small jitted functions evaluate it one decision at a time, with no allocation:

* ``net_input``: add one input's contribution to the first layer (callers add only the inputs that
  are not zero: card observations are mostly zeros, so the first layer costs what is set, not its size);
* ``net_hidden``: the ReLU and any further hidden layers;
* ``net_output``: one action's output (its advantage is the difference to the prior's output).

The arithmetic is the torch model's, in float32, summed in another order, so outputs agree to
rounding (``tests/agents/test_jitnet.py``).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit


class JitNet(NamedTuple):
    first: np.ndarray          # float32[inputs, H]: the first layer's weight per input (input scaling folded in)
    first_bias: np.ndarray     # float32[H]
    hidden: np.ndarray         # float32[layers - 1, H, H] (in, out: the inner loop runs along a row)
    hidden_bias: np.ndarray    # float32[layers - 1, H]
    out: np.ndarray            # float32[actions, H]
    out_bias: np.ndarray       # float32[actions]


def no_net() -> JitNet:
    """An empty JitNet: what a kernel gets when it plays without a network (the same numba types)."""
    z2 = np.zeros((0, 0), np.float32)
    return JitNet(z2, np.zeros(0, np.float32), np.zeros((0, 0, 0), np.float32), z2, z2, np.zeros(0, np.float32))


def jit_net(path, game: str) -> tuple[JitNet, dict]:
    """(JitNet, meta) of the residual checkpoint at ``path``, which must be ``game``'s and have one
    output per action (not an ensemble, not whole-play slots): a ValueError names what does not fit."""
    from agents.residual import load_residual, residual_game

    model, meta = load_residual(path)
    if meta.get("game") != game:
        raise ValueError(f"{path}: a policy for {meta.get('game')!r}, not {game!r}")
    if meta.get("members", 1) != 1 or residual_game(game).play_features:
        raise ValueError(f"{path}: only a single network with one output per action can play rollouts")
    layers = [m for m in model.body if hasattr(m, "weight")]
    w0 = layers[0].weight.detach().numpy().astype(np.float32)            # [H, inputs]
    first = np.ascontiguousarray(w0.T)
    if meta.get("scaled", False):
        scale = model.obs_scale.detach().numpy().astype(np.float32)
        first[:len(scale)] /= scale[:, None]
    h = first.shape[1]
    hidden = np.zeros((len(layers) - 1, h, h), np.float32)
    hidden_bias = np.zeros((len(layers) - 1, h), np.float32)
    for i, lin in enumerate(layers[1:]):
        hidden[i] = lin.weight.detach().numpy().T
        hidden_bias[i] = lin.bias.detach().numpy()
    net = JitNet(first, layers[0].bias.detach().numpy().astype(np.float32).copy(), hidden, hidden_bias,
                 np.ascontiguousarray(model.adv.weight.detach().numpy(), dtype=np.float32),
                 model.adv.bias.detach().numpy().astype(np.float32).copy())
    return net, meta


@njit(inline="always", cache=True)
def net_input(net, h, j, v):
    """Add input ``j`` with value ``v`` to the first layer's sums ``h`` (start them at ``first_bias``)."""
    row = net.first[j]
    for k in range(h.shape[0]):
        h[k] += v * row[k]


@njit(cache=True)
def net_hidden(net, h, tmp):
    """The first layer's sums ``h`` through its ReLU and every further hidden layer, in place
    (``tmp``: scratch of the same size)."""
    n = h.shape[0]
    for k in range(n):
        h[k] = max(h[k], np.float32(0.0))   # no branch: half the signs are a coin toss
    for layer in range(net.hidden.shape[0]):
        w = net.hidden[layer]
        for o in range(n):
            tmp[o] = net.hidden_bias[layer, o]
        for i in range(n):                     # row by row: zero inputs (ReLU) cost nothing
            v = h[i]
            if v != 0.0:
                row = w[i]
                for o in range(n):
                    tmp[o] += v * row[o]
        for k in range(n):
            h[k] = tmp[k] if tmp[k] > 0.0 else 0.0


@njit(inline="always", cache=True)
def net_output(net, h, a):
    """The network's output for action ``a`` from the last hidden layer ``h``."""
    row = net.out[a]
    acc = net.out_bias[a]
    for k in range(h.shape[0]):
        acc += row[k] * h[k]
    return acc
