"""Search distillation into a residual policy: the heuristic's move, overridden where a network has
learned from the search agent that another card is better (Court Piece and Mendi Coat).

**Why residual.** Imitating the heuristic with a network costs a few percent of strength (the
imitation errors), and the search's gain over the heuristic lives in a minority of decisions: the
search overrides the heuristic's card in about one decision in seven. So the policy keeps the
heuristic's card as its default and the network only has to learn where to leave it. The network
reads the observation, with the suits in canonical order (``courtpiece_env.symmetry``: trump first,
then the led suit, then by length), plus the heuristic's card as a one-hot, and outputs for every
action its advantage over the heuristic's card, ``A(s, a)`` (``A(s, h) = 0`` by construction). The
policy plays ``argmax_a A(s, a)`` where that advantage exceeds the ``margin`` stored in the
checkpoint, else the heuristic's card: one heuristic call and one forward pass per decision, no
search. Decisions other than card play (trump calls, hiding, asking) are the heuristic's.

**Labels** (``label_positions``): the search agent (``pimc``, heuristic trump calls) plays every
seat of seeded random deals; at every searched card play its per-deal rollout values give, for each
legal card, the mean paired difference to the heuristic's card over the sampled deals and its
standard error. Workers label in parallel processes.

**Fit** (``fit``): masked, weighted least squares of A(s, a) on those differences over the legal
actions (weight 1 / (se^2 + 0.01): a noisy label counts less), Adam, a held-out split; the margin is
the one of ``MARGINS`` under which the held-out decisions the policy would change gain the most by
the held-out labels themselves (an unbiased estimate: the model never saw them).
"""
from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from agents.base import Agent
from agents.courtpiece.heuristic import CourtPieceHeuristic
from cardzoo.options import check_int
from courtpiece_env.symmetry import canonical_action_ids, canonical_actions, canonical_observation, game_action_ids, suit_order

FORMAT = "cardzoo-residual-v1"
OBS_SIZE, NUM_ACTIONS, CARDS = 916, 60, 52
MARGINS = (0.0, 0.01, 0.02, 0.03, 0.05, 0.075, 0.1)
LABEL_NOISE = 0.01                 # added to se^2 in the weights: labels with se 0 are not infinitely sure


def _torch():
    import torch  # noqa: WPS433 (optional dependency)

    return torch


def build_residual_model(hidden: int = 256, layers: int = 2):
    """A(s, a) over the canonical actions from the canonical observation (every entry in [-1, 1], spec
    3.4, so unscaled) and the prior's one-hot."""
    torch = _torch()
    nn = torch.nn

    class ResidualNet(nn.Module):
        def __init__(self):
            super().__init__()
            dims = [OBS_SIZE + NUM_ACTIONS] + [hidden] * layers
            body = []
            for i in range(layers):
                body += [nn.Linear(dims[i], dims[i + 1]), nn.ReLU()]
            self.body = nn.Sequential(*body)
            self.adv = nn.Linear(hidden, NUM_ACTIONS)

        def forward(self, obs, prior_onehot):
            z = self.adv(self.body(torch.cat([obs, prior_onehot], dim=1)))
            return z - (z * prior_onehot).sum(dim=1, keepdim=True)

    return ResidualNet()


def canonical_inputs(obs, masks, prior):
    """(canonical obs, canonical masks, canonical prior ids, suit order) of a batch of decisions."""
    obs = np.asarray(obs, dtype=np.float32)
    order = suit_order(obs)
    return (canonical_observation(obs, order), canonical_actions(np.asarray(masks), order),
            canonical_action_ids(prior, order), order)


def _onehot(ids, n=NUM_ACTIONS):
    out = np.zeros((len(ids), n), np.float32)
    out[np.arange(len(ids)), ids] = 1.0
    return out


class ResidualAgent(Agent):
    """Plays a residual checkpoint: the heuristic's card unless the network's advantage for another
    legal card exceeds the checkpoint's margin (``margin=`` overrides it)."""

    name = "residual"
    games = ("courtpiece",)

    def __init__(self, game: str | None = "courtpiece", seed: int | None = None, checkpoint=None,
                 model=None, meta: dict | None = None, margin: float | None = None):
        super().__init__(game, seed)
        if model is None:
            if checkpoint is None:
                raise ValueError("ResidualAgent needs checkpoint=<path to .pt>")
            model, meta = load_residual(checkpoint)
        self.model, self.meta, self.checkpoint = model, dict(meta or {}), checkpoint
        self.margin = float(self.meta.get("margin", 0.0) if margin is None else margin)
        self.prior = CourtPieceHeuristic(game, seed)

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.prior.reset(seed)

    def act(self, observation, action_mask) -> int:
        return int(self.act_batch(np.asarray(observation)[None], np.asarray(action_mask)[None])[0])

    def act_batch(self, obs, masks) -> np.ndarray:
        torch = _torch()
        masks = np.asarray(masks)
        prior = self.prior.act_batch(obs, masks)
        play = ~masks[:, CARDS:].any(axis=1)                  # card play: only card actions are legal
        out = prior.copy()
        if play.any():
            cobs, cmask, cprior, order = canonical_inputs(np.asarray(obs)[play], masks[play], prior[play])
            with torch.no_grad():
                adv = self.model(torch.as_tensor(cobs), torch.as_tensor(_onehot(cprior))).numpy()
            rows = np.arange(len(cprior))
            adv[cmask == 0] = -np.inf
            adv[rows, cprior] = -np.inf
            best = adv.argmax(axis=1)
            choice = np.where(adv[rows, best] > self.margin, best, cprior)    # ties keep the heuristic's card
            out[play] = game_action_ids(choice, order)
        return out.astype(np.int64)


# ------------------------------------------------------------------------------------------------
# checkpoints
# ------------------------------------------------------------------------------------------------

def save_residual(model, path, meta: dict) -> tuple[Path, Path]:
    torch = _torch()
    path = Path(path).with_suffix(".pt")
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.save({k: v.detach().cpu() for k, v in model.state_dict().items()}, path)
    jpath = path.with_suffix(".json")
    jpath.write_text(json.dumps(dict(meta, format=FORMAT), indent=2, sort_keys=True) + "\n")
    return path, jpath


def checkpoint_format(path) -> str | None:
    """The ``format`` a checkpoint's JSON half declares (None when it cannot be read)."""
    try:
        return json.loads(Path(path).with_suffix(".json").read_text()).get("format")
    except (OSError, ValueError, AttributeError):
        return None


def load_residual(path):
    """(model in eval mode, meta); every defect of the files is one ValueError naming the file."""
    torch = _torch()
    path = Path(path).with_suffix(".pt")
    jpath = path.with_suffix(".json")
    if not path.is_file() or not jpath.is_file():
        raise ValueError(f"checkpoint {path} needs both {path.name} and {jpath.name}")
    try:
        meta = json.loads(jpath.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"{jpath}: unreadable checkpoint description ({e})") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise ValueError(f"{jpath}: not a {FORMAT} checkpoint")
    if meta.get("game") != "courtpiece":
        raise ValueError(f"{jpath}: residual checkpoints play courtpiece, not {meta.get('game')!r}")
    check_int("hidden", meta.get("hidden", 256), 1, 1 << 16, what=f"{jpath}:")
    check_int("layers", meta.get("layers", 2), 1, 64, what=f"{jpath}:")
    margin = meta.get("margin", 0.0)
    if not isinstance(margin, (int, float)) or not np.isfinite(margin):
        raise ValueError(f"{jpath}: margin must be a finite number, got {margin!r}")
    try:
        state = torch.load(path, weights_only=True)
    except Exception as e:  # truncated, not a torch file, refused by weights_only: all unreadable
        raise ValueError(f"{path}: unreadable weights ({type(e).__name__}: {e})") from None
    model = build_residual_model(meta.get("hidden", 256), meta.get("layers", 2))
    want = {k: tuple(v.shape) for k, v in model.state_dict().items()}
    have = {k: tuple(getattr(v, "shape", ())) for k, v in state.items()} if isinstance(state, dict) else {}
    if have != want:
        raise ValueError(f"{path}: the weights do not fit {jpath.name} (hidden={meta.get('hidden', 256)}, "
                         f"layers={meta.get('layers', 2)})")
    model.load_state_dict(state)
    model.eval()
    return model, meta


# ------------------------------------------------------------------------------------------------
# labels: the search agent's paired advantages at its card plays
# ------------------------------------------------------------------------------------------------

def _labeller_class():
    from agents.courtpiece.search import PIMCAgent

    class Labeller(PIMCAgent):
        """The search agent, keeping each searched card play's paired advantages over the heuristic."""

        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.rows: list = []
            self._per_deal = None

        def evaluate(self, sit, orders, legal, cfg, history=None):
            values, per_deal = super().evaluate(sit, orders, legal, cfg, history)
            self._per_deal = per_deal
            return values, per_deal

        def act(self, observation, action_mask) -> int:
            self._per_deal = None
            choice = super().act(observation, action_mask)
            h = self.last.get("heuristic")
            if self._per_deal is not None and h in self._per_deal and not np.asarray(action_mask)[CARDS:].any():
                adv = np.zeros(NUM_ACTIONS, np.float32)
                se = np.zeros(NUM_ACTIONS, np.float32)
                base = self._per_deal[h]
                for a, v in self._per_deal.items():
                    d = v - base
                    adv[a] = d.mean()
                    se[a] = d.std(ddof=1) / np.sqrt(len(d)) if len(d) > 1 else 0.0
                self.rows.append((np.asarray(observation, np.float16), np.asarray(action_mask, np.uint8), int(h),
                                  adv, se))
            return choice

    return Labeller


def label_positions(env_config: dict, seed: int, worker: int, seconds: float | None = None,
                    games: int | None = None, search: str = "call_samples=0") -> dict:
    """Play seeded deals with the search agent in every seat for ``games`` deals (or ``seconds``) and
    return its labelled card plays: obs float16[N, 916], mask, heuristic, adv and se float32[N, 60]."""
    from agents import _parse_kwargs
    from agents.arena import play_aec, random_deal

    agent = _labeller_class()("courtpiece", seed=seed * 1009 + worker, env_config=env_config,
                              **_parse_kwargs(search))
    rng = np.random.default_rng([seed, worker])
    t0, played = time.perf_counter(), 0
    while (games is None or played < games) and (seconds is None or time.perf_counter() - t0 < seconds):
        play_aec("courtpiece", [agent] * 4, env_config, random_deal("courtpiece", rng, env_config),
                 seed=seed * 1_000_003 + worker * 100_003 + played)
        played += 1
    if not agent.rows:
        raise ValueError("no card play was searched: give the labelling more time or games")
    obs, mask, prior, adv, se = (np.stack(x) for x in zip(*agent.rows))
    return {"obs": obs, "mask": mask, "prior": prior, "adv": adv, "se": se, "games": played,
            "seconds": time.perf_counter() - t0}


def _label_to_file(args) -> tuple[str, int, float]:
    env_config, seed, worker, seconds, games, search, path = args
    d = label_positions(env_config, seed, worker, seconds, games, search)
    np.savez(path, **{k: d[k] for k in ("obs", "mask", "prior", "adv", "se")})
    return path, d["games"], d["seconds"]


def label_parallel(env_config: dict, seed: int, workers: int, folder: Path, seconds: float | None = None,
                   games: int | None = None, search: str = "call_samples=0") -> dict:
    """``label_positions`` in ``workers`` processes (one per core); the labels, concatenated."""
    import multiprocessing as mp

    folder.mkdir(parents=True, exist_ok=True)
    jobs = [(env_config, seed, w, seconds, games, search, str(folder / f"labels_{w}.npz")) for w in range(workers)]
    if workers == 1:
        done = [_label_to_file(jobs[0])]
    else:
        with mp.get_context("spawn").Pool(workers) as pool:
            done = pool.map(_label_to_file, jobs)
    parts = [np.load(p) for p, _, _ in done]
    data = {k: np.concatenate([p[k] for p in parts]) for k in ("obs", "mask", "prior", "adv", "se")}
    data["games"] = sum(g for _, g, _ in done)
    data["seconds"] = max(s for _, _, s in done)
    for p, _, _ in done:
        os.remove(p)
    return data


# ------------------------------------------------------------------------------------------------
# fit
# ------------------------------------------------------------------------------------------------

def canonical_labels(data: dict) -> dict:
    """The labels with every decision's suits in canonical order (in chunks: the arrays are large)."""
    n = len(data["obs"])
    out = {"obs": np.empty((n, OBS_SIZE), np.float32), "mask": np.empty_like(data["mask"]),
           "prior": np.empty(n, np.int64), "adv": np.empty_like(data["adv"]), "se": np.empty_like(data["se"])}
    for i in range(0, n, 65536):
        sl = slice(i, i + 65536)
        obs, mask, prior, order = canonical_inputs(data["obs"][sl], data["mask"][sl], data["prior"][sl])
        out["obs"][sl], out["mask"][sl], out["prior"][sl] = obs, mask, prior
        out["adv"][sl] = canonical_actions(data["adv"][sl], order)
        out["se"][sl] = canonical_actions(data["se"][sl], order)
    return out


def held_out_gain(adv_pred, mask, adv_label, margin: float) -> tuple[float, float]:
    """(mean label advantage per decision of the cards the policy would play, share it changes)."""
    p = np.where(mask > 0, adv_pred, -np.inf)
    best = p.argmax(axis=1)
    change = p[np.arange(len(p)), best] > margin
    gain = np.where(change, adv_label[np.arange(len(p)), best], 0.0)
    return float(gain.mean()), float(change.mean())


def fit(data: dict, hidden: int = 256, layers: int = 2, epochs: int = 6, lr: float = 1e-3,
        minibatch: int = 512, seed: int = 0, held_out: float = 0.05, log=print, progress=None):
    """Fit a residual network to canonical labels; returns (model, facts) with the margin chosen."""
    torch = _torch()
    torch.manual_seed(seed)
    n = len(data["obs"])
    rng = np.random.default_rng(seed)
    perm = rng.permutation(n)
    n_val = max(1, int(n * held_out))
    val, train = perm[:n_val], perm[n_val:]
    model = build_residual_model(hidden, layers)
    opt = torch.optim.Adam(model.parameters(), lr=lr)

    def tensors(idx):
        return (torch.as_tensor(data["obs"][idx]), torch.as_tensor(_onehot(data["prior"][idx])),
                torch.as_tensor(data["mask"][idx].astype(np.float32)), torch.as_tensor(data["adv"][idx]),
                torch.as_tensor(data["se"][idx]))

    def loss_of(batch):
        obs, prior, mask, adv, se = batch
        pred = model(obs, prior)
        w = mask / (se ** 2 + LABEL_NOISE)
        return ((pred - adv) ** 2 * w).sum() / w.sum(), pred

    vb = tensors(val)
    history = []
    t0 = time.perf_counter()
    for ep in range(epochs):
        for g in opt.param_groups:     # a constant rate for three passes, then halved every pass
            g["lr"] = lr * 0.5 ** max(0, ep - 2)
        model.train()
        rng.shuffle(train)
        for i in range(0, len(train), minibatch):
            loss, _ = loss_of(tensors(train[i:i + minibatch]))
            opt.zero_grad()
            loss.backward()
            opt.step()
        model.eval()
        with torch.no_grad():
            vloss, pred = loss_of(vb)
        gains = {m: held_out_gain(pred.numpy(), data["mask"][val], data["adv"][val], m) for m in MARGINS}
        best = max(MARGINS, key=lambda m: gains[m][0])
        history.append({"epoch": ep + 1, "held_out_loss": round(float(vloss), 6), "margin": best,
                        "held_out_gain": round(gains[best][0], 5), "changed": round(gains[best][1], 4),
                        "seconds": round(time.perf_counter() - t0, 1)})
        log(f"fit epoch {ep + 1}/{epochs}: held-out loss {float(vloss):.5f}, margin {best}: "
            f"gain {gains[best][0]:+.5f} per decision, changes {gains[best][1]:.3f}")
        if progress is not None:
            progress.update(1)
    w0 = vb[2] / (vb[4] ** 2 + LABEL_NOISE)
    zero = float((vb[3] ** 2 * w0).sum() / w0.sum())
    last = history[-1]
    return model, {"margin": last["margin"], "held_out_gain": last["held_out_gain"], "changed": last["changed"],
                   "held_out_loss": last["held_out_loss"], "held_out_loss_zero": round(zero, 6),
                   "held_out": int(n_val), "epochs": history}


# ------------------------------------------------------------------------------------------------
# the training run: label in parallel, fit, save
# ------------------------------------------------------------------------------------------------

@dataclass
class ResidualConfig:
    env_config: dict = field(default_factory=dict)
    seed: int = 0
    label_minutes: float | None = 40.0   # wall time of labelling (every worker)
    label_games: int | None = None       # or exactly this many deals per worker (bit-reproducible)
    workers: int = 2                     # labelling processes (one per core)
    search: str = "call_samples=0"       # options of the labelling search agent (pimc)
    hidden: int = 256
    layers: int = 2
    epochs: int = 6
    lr: float = 1e-3
    minibatch: int = 512
    threads: int = 2                     # torch threads while fitting (labelling is over by then)


def train_residual(cfg: ResidualConfig, out_dir, log=print, progress=None) -> dict:
    """Label, fit and save ``<out_dir>/model.pt`` + ``.json``; returns the run's facts."""
    torch = _torch()
    if cfg.label_minutes is None and cfg.label_games is None:
        raise ValueError("residual training needs label_minutes or label_games")
    check_int("workers", cfg.workers, 1, 256)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    log(f"labelling with pimc:{cfg.search} in {cfg.workers} processes, seed {cfg.seed}")
    seconds = None if cfg.label_minutes is None else cfg.label_minutes * 60
    raw = label_parallel(cfg.env_config, cfg.seed, cfg.workers, out / "labels", seconds, cfg.label_games, cfg.search)
    label_s = time.perf_counter() - t0
    n = len(raw["obs"])
    log(f"labelled {n} card plays of {raw['games']} deals in {label_s:.0f} s ({n / label_s:.0f}/s)")
    games = int(raw["games"])
    data = canonical_labels(raw)
    del raw
    torch.set_num_threads(cfg.threads)
    t1 = time.perf_counter()
    model, facts = fit(data, cfg.hidden, cfg.layers, cfg.epochs, cfg.lr, cfg.minibatch, cfg.seed, log=log,
                       progress=progress)
    fit_s = time.perf_counter() - t1
    wall = time.perf_counter() - t0
    meta = {"game": "courtpiece", "env_config": cfg.env_config, "seed": cfg.seed, "hidden": cfg.hidden,
            "layers": cfg.layers, "prior": "heuristic", "teacher": f"pimc:{cfg.search}",
            "margin": facts["margin"], "fit": facts, "train_config": asdict(cfg),
            "labelled": {"decisions": n, "games": games, "seconds": round(label_s, 1),
                         "decisions_per_s": round(n / label_s, 1)},
            "fit_seconds": round(fit_s, 1), "wall_seconds": round(wall, 1)}
    ckpt, jpath = save_residual(model, out / "model.pt", meta)
    return {"checkpoint": str(ckpt), "config": str(jpath), "meta": meta, "wall_seconds": wall}
