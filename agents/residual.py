"""Search distillation into a residual policy: the heuristic's move, overridden where a network has
learned from the search agent that another move is better (Court Piece, Mendi Coat, LOPTI, Sheng Ji).

**Why residual.** Imitating the heuristic with a network costs a few percent of strength (the
imitation errors), and the search's gain over the heuristic lives in a minority of decisions (in
Court Piece it overrides the heuristic's card in about one decision in seven). So the policy keeps
the heuristic's move as its default and the network only has to learn where to leave it. The
network reads the observation (in the game's canonical form, e.g. Court Piece's suits in canonical
order) plus the heuristic's move as a one-hot, and outputs for every action its advantage over the
heuristic's move, ``A(s, a)`` (``A(s, h) = 0`` by construction). The policy plays the best
candidate where its advantage exceeds the ``margin`` stored in the checkpoint, else the heuristic's
move: one heuristic call and one forward pass per decision, no search.

**What a game supplies** (a ``ResidualGame`` in ``agents/<game>/residual.py``): its search agent
class, which decisions the network may change and which actions it may play there (the ones the
search scores), the canonical form of a decision, and the labelling search's options.

**Whole plays** (``play_features`` > 0, Sheng Ji): where a move is composed over several actions,
the candidates are the search's candidate plays, up to ``num_actions`` slots a decision, and the
network scores each slot from the play's features and the prior play's (``build_play_model``)
instead of one output per action id. The labels, the fit and the margin are the same, with slots
for actions.

**Labels** (``label_positions``): the search agent plays every seat of seeded random deals; at
every searched decision its per-world rollout values give, for each candidate, the mean paired
difference to the heuristic's move over the sampled worlds and its standard error. Workers label in
parallel processes.

**Fit** (``fit``): masked, weighted least squares of A(s, a) on those differences over the
candidates (weight 1 / (se^2 + 0.01): a noisy label counts less), Adam, a held-out split; the
margin is the one of ``MARGINS`` under which the held-out decisions the policy would change gain
the most by the held-out labels themselves (an unbiased estimate: the model never saw them); where
every margin would lose, ``NEVER``: the policy then plays as the heuristic.
"""
from __future__ import annotations

import importlib
import json
from abc import ABC, abstractmethod
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from agents.base import Agent
from cardzoo.options import check_int

FORMAT = "cardzoo-residual-v1"
# the fit's margin candidates; NEVER changes no decision (the heuristic as it is), chosen where every
# smaller margin loses on the held-out labels
NEVER = 1e6
MARGINS = (0.0, 0.01, 0.02, 0.03, 0.05, 0.075, 0.1, 0.2, 0.5, NEVER)
LABEL_NOISE = 0.01                 # added to se^2 in the weights: labels with se 0 are not infinitely sure
FIELDS = ("obs", "mask", "prior", "adv", "se")
PLAY_FIELDS = FIELDS + ("plays",)  # games whose candidates are whole plays: each slot's cards, too
LABEL_AGAINST = ("search", "heuristic")     # who the labelling search agent plays with and against
#: the games with a residual trainer: game -> module holding its ``GAME`` (a ResidualGame)
GAMES = {"courtpiece": "agents.courtpiece.residual", "lopti": "agents.lopti.residual",
         "shengji": "agents.shengji.residual"}


def _torch():
    import torch  # noqa: WPS433 (optional dependency)

    return torch


class ResidualGame(ABC):
    """A game's side of the residual trainer; subclasses set the attributes and the hooks."""

    game: str
    obs_size: int
    num_actions: int
    scaled: bool = True            # divide each observation entry by its largest magnitude in the labels
    search_options: str = ""       # the labelling search agent's options (an agent spec's k=v list)
    kinds: tuple = ("play",)       # the kinds of decision a network may learn to change
    #: 0: the candidates are the game's actions (``num_actions`` of them). > 0: they are whole plays
    #: (Sheng Ji composes a play card by card), ``num_actions`` slots per decision, each described
    #: to the network by this many features (``model_inputs``); the labels then carry ``plays``.
    play_features: int = 0

    @abstractmethod
    def heuristic(self, seed: int | None) -> Agent:
        """The game's heuristic: the prior the network's advantages are relative to."""

    @abstractmethod
    def search_agent(self, seed: int, env_config: dict, **options) -> Agent:
        """The game's determinized search agent (a DeterminizedSearch) that ``recording`` extends."""

    def decision_kinds(self, options: dict) -> tuple:
        """The kinds of decision the search agent with these options searches (and so labels)."""
        return ("play",)

    @abstractmethod
    def changeable(self, obs, masks, kinds=("play",)) -> np.ndarray:
        """bool[B]: the decisions of these kinds, which the network may change (the others stay the
        heuristic's)."""

    def candidates(self, obs, masks, prior) -> np.ndarray:
        """uint8[B, A]: the actions the network may play instead of ``prior`` (those the search scores)."""
        return np.asarray(masks, np.uint8)

    def canonical(self, obs, masks, prior):
        """(float32 obs, masks, prior ids, order) in canonical form; ``order`` undoes it."""
        return np.asarray(obs, np.float32), np.asarray(masks), np.asarray(prior, np.int64), None

    def canonical_actions(self, per_action, order):
        """Per-action rows (advantages, standard errors) in the canonical form of ``order``."""
        return per_action

    def game_actions(self, ids, order):
        """Canonical action ids back to the game's."""
        return np.asarray(ids, np.int64)

    def game_per_action(self, per_action, order):
        """Per-action rows in canonical form back to the game's action ids (``canonical_actions`` undone)."""
        return per_action

    # ---- games whose candidates are whole plays (play_features > 0) ----------------------------------
    def searched_plays(self, search) -> np.ndarray:
        """The candidate plays of the decision ``search`` just scored, one row per slot."""
        raise NotImplementedError

    def model_inputs(self, data: dict, idx) -> tuple:
        """(float32 network input rows, per-slot features float32[n, slots, play_features] or None)
        of the labels ``data`` at ``idx``."""
        return data["obs"][idx], None

    def agent_class(self):
        """The agent class that plays this game's residual checkpoints."""
        return ResidualAgent


def fields(rules: ResidualGame) -> tuple:
    return PLAY_FIELDS if rules.play_features else FIELDS


def residual_game(game: str) -> ResidualGame:
    if game not in GAMES:
        raise ValueError(f"residual policies play {', '.join(GAMES)}, not {game!r}")
    return importlib.import_module(GAMES[game]).GAME


def build_residual_model(obs_size: int, num_actions: int, hidden: int = 256, layers: int = 2,
                         scaled: bool = False, members: int = 1, play_features: int = 0):
    """A(s, a) over the canonical actions from the canonical observation and the prior's one-hot;
    ``scaled``: the observation is divided by the ``obs_scale`` buffer (set by ``fit``). With
    ``members`` > 1 it is the mean of that many such networks (fitted from different initial weights
    on the same labels: the mean's error is smaller than a single network's). With
    ``play_features`` > 0 the actions are ``num_actions`` candidate slots, each scored from the
    observation's encoding, its own features and the prior's (``build_play_model``)."""
    torch = _torch()
    nn = torch.nn
    if members > 1:
        class ResidualEnsemble(nn.Module):
            def __init__(self):
                super().__init__()
                self.members = nn.ModuleList(build_residual_model(obs_size, num_actions, hidden, layers, scaled,
                                                                  play_features=play_features)
                                             for _ in range(members))

            def forward(self, obs, prior_onehot, feats=None):
                return torch.stack([m(obs, prior_onehot, feats) for m in self.members]).mean(dim=0)

        return ResidualEnsemble()
    if play_features:
        return build_play_model(obs_size, play_features, hidden, layers, scaled)

    class ResidualNet(nn.Module):
        def __init__(self):
            super().__init__()
            dims = [obs_size + num_actions] + [hidden] * layers
            body = []
            for i in range(layers):
                body += [nn.Linear(dims[i], dims[i + 1]), nn.ReLU()]
            self.body = nn.Sequential(*body)
            self.adv = nn.Linear(hidden, num_actions)
            if scaled:
                self.register_buffer("obs_scale", torch.ones(obs_size))

        def forward(self, obs, prior_onehot, feats=None):
            if scaled:
                obs = obs / self.obs_scale
            z = self.adv(self.body(torch.cat([obs, prior_onehot], dim=1)))
            return z - (z * prior_onehot).sum(dim=1, keepdim=True)

    return ResidualNet()


def build_play_model(obs_size: int, play_features: int, hidden: int = 256, layers: int = 2, scaled: bool = False):
    """A(s, p) for candidate plays described by features: an encoding of the observation, then for
    every slot one hidden layer over (encoding, the play's features, the prior play's features).
    The hidden layer's input is a sum of three products, so the encoding's and the prior's are
    computed once per decision, not once per slot."""
    torch = _torch()
    nn = torch.nn
    head = max(32, hidden // 2)

    class PlayResidualNet(nn.Module):
        def __init__(self):
            super().__init__()
            dims = [obs_size] + [hidden] * layers
            body = []
            for i in range(layers):
                body += [nn.Linear(dims[i], dims[i + 1]), nn.ReLU()]
            self.body = nn.Sequential(*body)
            self.from_state = nn.Linear(hidden, head)
            self.from_play = nn.Linear(play_features, head, bias=False)
            self.from_prior = nn.Linear(play_features, head, bias=False)
            self.value = nn.Linear(head, 1)
            if scaled:
                self.register_buffer("obs_scale", torch.ones(obs_size))

        def forward(self, obs, prior_onehot, feats=None):
            if scaled:
                obs = obs / self.obs_scale
            prior = (feats * prior_onehot[:, :, None]).sum(dim=1)
            per_decision = self.from_state(self.body(obs)) + self.from_prior(prior)
            z = self.value(torch.relu(per_decision[:, None, :] + self.from_play(feats))).squeeze(-1)
            return z - (z * prior_onehot).sum(dim=1, keepdim=True)

    return PlayResidualNet()


def _onehot(ids, n: int):
    out = np.zeros((len(ids), n), np.float32)
    out[np.arange(len(ids)), ids] = 1.0
    return out


class ResidualAgent(Agent):
    """Plays a residual checkpoint: the heuristic's move unless the network's advantage for another
    candidate exceeds the checkpoint's margin (``margin=`` overrides it)."""

    name = "residual"
    games = tuple(GAMES)

    def __init__(self, game: str | None = "courtpiece", seed: int | None = None, checkpoint=None,
                 model=None, meta: dict | None = None, margin: float | None = None):
        super().__init__(game, seed)
        if model is None:
            if checkpoint is None:
                raise ValueError("ResidualAgent needs checkpoint=<path to .pt>")
            model, meta = load_residual(checkpoint)
        self.model, self.meta, self.checkpoint = model, dict(meta or {}), checkpoint
        trained = self.meta.get("game", game)
        if game is not None and trained != game:
            raise ValueError(f"{checkpoint}: a residual policy for {trained!r} cannot play {game!r}")
        self.rules = residual_game(game or trained or "courtpiece")
        self.margin = float(self.meta.get("margin", 0.0) if margin is None else margin)
        self.kinds = tuple(self.meta.get("decisions", ("play",)))
        self.prior = self.rules.heuristic(seed)

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.prior.reset(seed)

    def act(self, observation, action_mask) -> int:
        return int(self.act_batch(np.asarray(observation)[None], np.asarray(action_mask)[None])[0])

    def act_batch(self, obs, masks) -> np.ndarray:
        return self.decide(self.score(obs, masks))

    def score(self, obs, masks) -> tuple:
        """The network's view of a batch of decisions: (the heuristic's moves, bool[B]: the decisions it
        may change, and for those in canonical form: the candidates, the heuristic's move, the order
        that undoes the form and the network's advantages)."""
        torch = _torch()
        obs, masks = np.asarray(obs), np.asarray(masks)
        prior = np.asarray(self.prior.act_batch(obs, masks), np.int64)
        rows = self.rules.changeable(obs, masks, self.kinds)
        if not rows.any():
            return prior, rows, None, None, None, None
        cand = self.rules.candidates(obs[rows], masks[rows], prior[rows])
        cobs, cmask, cprior, order = self.rules.canonical(obs[rows], cand, prior[rows])
        with torch.no_grad():
            adv = self.model(torch.as_tensor(cobs), torch.as_tensor(_onehot(cprior, self.rules.num_actions)))
        return prior, rows, cmask, cprior, order, adv.numpy()

    def decide(self, scored) -> np.ndarray:
        """The moves of ``score``'s decisions: the best candidate where its advantage exceeds the
        margin, else the heuristic's move."""
        prior, rows, cmask, cprior, order, adv = scored
        out = prior.copy()
        if rows.any():
            idx = np.arange(len(cprior))
            adv = np.where(cmask == 0, -np.inf, adv)
            adv[idx, cprior] = -np.inf
            best = adv.argmax(axis=1)
            choice = np.where(adv[idx, best] > self.margin, best, cprior)    # ties keep the heuristic's move
            out[rows] = self.rules.game_actions(choice, order)
        return out.astype(np.int64)

    def advantages(self, scored) -> tuple:
        """``score``'s decisions as labels: (bool[B]: the decisions the network may change, and for
        those their candidates uint8[n, A] and each candidate's advantage over the heuristic's move,
        float32[n, A] by game action id, 0 elsewhere)."""
        prior, rows, cmask, cprior, order, adv = scored
        if not rows.any():
            empty = np.zeros((0, self.rules.num_actions), np.float32)
            return rows, empty.astype(np.uint8), empty
        adv = np.where(cmask > 0, adv, 0.0).astype(np.float32)
        return rows, self.rules.game_per_action(cmask, order), self.rules.game_per_action(adv, order)


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


def residual_agent_class(path):
    """The agent class for the residual checkpoint at ``path`` (its game's ``agent_class``)."""
    try:
        game = json.loads(Path(path).with_suffix(".json").read_text()).get("game")
    except (OSError, ValueError, AttributeError):
        game = None
    return residual_game(game).agent_class() if game in GAMES else ResidualAgent


def checkpoint_format(path) -> str | None:
    """The ``format`` a checkpoint's JSON half declares (None when it cannot be read)."""
    try:
        return json.loads(Path(path).with_suffix(".json").read_text()).get("format")
    except (OSError, ValueError, AttributeError):
        return None


def load_residual(path):
    """(model in eval mode, meta); every defect of the files is one ValueError naming the file."""
    _torch()  # the install hint when torch is missing, before any file is read
    from agents.learned import checkpoint_files, load_weights

    path, jpath = checkpoint_files(path)
    try:
        meta = json.loads(jpath.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"{jpath}: unreadable checkpoint description ({e})") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise ValueError(f"{jpath}: not a {FORMAT} checkpoint")
    if meta.get("game") not in GAMES:
        raise ValueError(f"{jpath}: residual checkpoints play {', '.join(GAMES)}, not {meta.get('game')!r}")
    rules = residual_game(meta["game"])
    check_int("hidden", meta.get("hidden", 256), 1, 1 << 16, what=f"{jpath}:")
    check_int("layers", meta.get("layers", 2), 1, 64, what=f"{jpath}:")
    check_int("members", meta.get("members", 1), 1, 64, what=f"{jpath}:")
    margin = meta.get("margin", 0.0)
    if not isinstance(margin, (int, float)) or not np.isfinite(margin):
        raise ValueError(f"{jpath}: margin must be a finite number, got {margin!r}")
    kinds = meta.get("decisions", ["play"])
    if not isinstance(kinds, list) or not kinds or not set(kinds) <= set(rules.kinds):
        raise ValueError(f"{jpath}: decisions must be a list of {', '.join(rules.kinds)}, got {kinds!r}")
    if not isinstance(meta.get("scaled", False), bool):
        raise ValueError(f"{jpath}: scaled must be true or false, got {meta.get('scaled')!r}")
    state = load_weights(path)
    model = build_residual_model(rules.obs_size, rules.num_actions, meta.get("hidden", 256), meta.get("layers", 2),
                                 meta.get("scaled", False), meta.get("members", 1), rules.play_features)
    want = {k: tuple(v.shape) for k, v in model.state_dict().items()}
    have = {k: tuple(getattr(v, "shape", ())) for k, v in state.items()} if isinstance(state, dict) else {}
    if have != want:
        raise ValueError(f"{path}: the weights do not fit {jpath.name} (hidden={meta.get('hidden', 256)}, "
                         f"layers={meta.get('layers', 2)}, scaled={meta.get('scaled', False)}, "
                         f"members={meta.get('members', 1)})")
    model.load_state_dict(state)
    model.eval()
    return model, meta


# ------------------------------------------------------------------------------------------------
# labels: the search agent's paired advantages at its searched decisions
# ------------------------------------------------------------------------------------------------

def recording(rules: ResidualGame, search: Agent, kinds=("play",)) -> Agent:
    """``search`` (a DeterminizedSearch) made to keep, at each searched decision of these ``kinds``,
    the observation, the searched candidates, the heuristic's move and every candidate's
    mean paired advantage over it with its standard error, in ``search.rows``."""
    evaluate, act = search.evaluate, search.act
    search.rows = []
    seen = {}

    def evaluate_and_keep(*args, **kwargs):
        values, per_world = evaluate(*args, **kwargs)
        # per candidate: a dict by action id, or a list by candidate slot (games scoring whole plays)
        seen["per_world"] = per_world if isinstance(per_world, dict) else dict(enumerate(per_world))
        return values, per_world

    def act_and_record(observation, action_mask) -> int:
        seen.clear()
        choice = act(observation, action_mask)
        per_world, h = seen.get("per_world"), search.last.get("heuristic")
        if per_world is not None and search.prior is not search.fallback:
            # a search with a learned prior baselines on the prior's move; the labels stay advantages
            # over the heuristic's, the move the residual policy starts from
            h = int(search.fallback.act(observation, action_mask))
        obs, mask = np.asarray(observation), np.asarray(action_mask)
        if per_world is None or h not in per_world or not rules.changeable(obs[None], mask[None], kinds)[0]:
            return choice
        adv = np.zeros(rules.num_actions, np.float32)
        se = np.zeros(rules.num_actions, np.float32)
        searched = np.zeros(rules.num_actions, np.uint8)
        base = per_world[h]
        for a, v in per_world.items():
            d = v - base
            searched[a] = 1
            adv[a] = d.mean()
            se[a] = d.std(ddof=1) / np.sqrt(len(d)) if len(d) > 1 else 0.0
        row = (obs.astype(np.float16), searched, int(h), adv, se)
        if rules.play_features:
            row += (rules.searched_plays(search),)
        search.rows.append(row)
        return choice

    search.evaluate, search.act = evaluate_and_keep, act_and_record
    return search


def label_positions(game: str, env_config: dict, seed: int, worker: int, seconds: float | None = None,
                    games: int | None = None, search: str | None = None, against: str = "search") -> dict:
    """Play seeded deals with the search agent for ``games`` deals (or ``seconds``) and return its
    labelled decisions: obs float16[N, O], mask (the searched candidates) uint8[N, A], prior int[N]
    (the heuristic's move), adv and se float32[N, A]. ``against="search"``: the search plays every
    seat; ``"heuristic"``: every other seat is the heuristic, the search's seats alternating deal by
    deal (the positions of a match against the heuristic, the one the policy is judged by)."""
    from agents import agent_options, search_class
    from agents.arena import num_players, play_aec, random_deal

    if against not in LABEL_AGAINST:
        raise ValueError(f"label against {' or '.join(LABEL_AGAINST)}, not {against!r}")
    rules = residual_game(game)
    options = agent_options(search_class(game), rules.search_options if search is None else search)
    agent = recording(rules, rules.search_agent(seed * 1009 + worker, env_config, **options),
                      rules.decision_kinds(options))
    other = agent if against == "search" else rules.heuristic(seed * 1013 + worker)
    rng = np.random.default_rng([seed, worker])
    seats = num_players(game, env_config)
    t0, played = time.perf_counter(), 0
    while (games is None or played < games) and (seconds is None or time.perf_counter() - t0 < seconds):
        lineup = [agent if (s + played) % 2 == 0 else other for s in range(seats)]
        play_aec(game, lineup, env_config, random_deal(game, rng, env_config),
                 seed=seed * 1_000_003 + worker * 100_003 + played)
        played += 1
    if not agent.rows:
        raise ValueError("no decision was searched: give the labelling more time or games")
    data = dict(zip(fields(rules), (np.stack(x) for x in zip(*agent.rows))))
    return dict(data, games=played, seconds=time.perf_counter() - t0)


def _label_to_file(args) -> tuple[str, int, float]:
    game, env_config, seed, worker, seconds, games, search, against, path = args
    d = label_positions(game, env_config, seed, worker, seconds, games, search, against)
    np.savez(path, **{k: d[k] for k in fields(residual_game(game))})
    return path, d["games"], d["seconds"]


def label_parallel(game: str, env_config: dict, seed: int, workers: int, folder: Path, seconds: float | None = None,
                   games: int | None = None, search: str | None = None, against: str = "search",
                   keep: bool = False, tick=None) -> dict:
    """``label_positions`` in ``workers`` processes (one per core); the labels, concatenated
    (``keep``: the per-worker ``labels_<w>.npz`` files stay in ``folder``). ``tick(seconds)``, if
    given, is called about once a second while the workers label (a progress bar's clock)."""
    import multiprocessing as mp
    from multiprocessing.pool import ThreadPool

    folder.mkdir(parents=True, exist_ok=True)
    jobs = [(game, env_config, seed, w, seconds, games, search, against, str(folder / f"labels_{w}.npz"))
            for w in range(workers)]
    t0 = time.perf_counter()

    def wait(result):
        while tick is not None and not result.ready():
            result.wait(1.0)
            tick(time.perf_counter() - t0)
        return result.get()

    # one worker labels in a thread of this process (no spawn), several in processes; either pool's
    # map_async lets this thread keep the clock
    with (ThreadPool(1) if workers == 1 else mp.get_context("spawn").Pool(workers)) as pool:
        done = wait(pool.map_async(_label_to_file, jobs))
    data = load_labels([p for p, _, _ in done], game)
    data["games"] = sum(g for _, g, _ in done)
    data["seconds"] = max(s for _, _, s in done)
    if not keep:
        for p, _, _ in done:
            os.remove(p)
        if not any(folder.iterdir()):  # the folder was made for these files only
            folder.rmdir()
    return data


def load_labels(paths, game: str) -> dict:
    """The labels of ``labels_<w>.npz`` files, concatenated."""
    parts = [np.load(p) for p in paths]
    return {k: np.concatenate([p[k] for p in parts]) for k in fields(residual_game(game))}


def teacher_labels(game: str, env_config: dict, teacher: str, seed: int, games: int, batch: int = 512,
                   log=print) -> dict:
    """Distillation labels: the residual policy of checkpoint ``teacher`` plays ``games`` seeded deals
    in every seat (``batch`` at a time in one BatchGame), and at each decision it may change the row
    is the observation, the candidates, the heuristic's move and the teacher network's advantage of
    every candidate (``se`` 0: the teacher's word is the label). Fitting these into a smaller network
    gives a policy cheap enough to play a search's rollouts (``agents.jitnet``)."""
    from agents import make_agent
    from agents.arena import num_players, play_batch

    if residual_game(game).play_features:
        raise ValueError(f"distillation needs a policy with one output per action (Court Piece, LOPTI); {game}'s "
                         "scores whole plays, which it lists in the AEC env")
    agent = make_agent(f"learned:{teacher}", game, seed)
    if not isinstance(agent, ResidualAgent):
        raise ValueError(f"{teacher}: distillation needs a residual checkpoint")
    rows = []

    def act_and_keep(obs, masks):
        scored = agent.score(obs, masks)
        changeable, cand, adv = agent.advantages(scored)
        if changeable.any():
            rows.append((np.asarray(obs)[changeable].astype(np.float16), cand, scored[0][changeable], adv,
                         np.zeros_like(adv)))
        return agent.decide(scored)

    agent.act_batch = act_and_keep
    seats = num_players(game, env_config)
    played, t0 = 0, time.perf_counter()
    while played < games:
        n = min(batch, games - played)
        play_batch(game, [agent], np.zeros((n, seats), np.int64), env_config, seed=seed * 1_000_003 + played)
        played += n
        log(f"distillation labels: {played}/{games} deals, {sum(len(r[0]) for r in rows)} decisions")
    if not rows:
        raise ValueError("the teacher changed no decision kind in these deals: nothing to distil")
    data = dict(zip(FIELDS, (np.concatenate(x) for x in zip(*rows))))
    return dict(data, games=played, seconds=time.perf_counter() - t0, kinds=list(agent.kinds))


# ------------------------------------------------------------------------------------------------
# fit
# ------------------------------------------------------------------------------------------------

def canonical_labels(rules: ResidualGame, data: dict) -> dict:
    """The labels with every decision in canonical form (in chunks: the arrays are large). Games
    whose candidates are plays have no canonical form: their inputs are built per minibatch
    (``model_inputs``), so the labels stay in their compact stored types."""
    if rules.play_features:
        return data
    n = len(data["obs"])
    out = {"obs": np.empty((n, rules.obs_size), np.float32), "mask": np.empty_like(data["mask"]),
           "prior": np.empty(n, np.int64), "adv": np.empty_like(data["adv"]), "se": np.empty_like(data["se"])}
    for i in range(0, n, 65536):
        sl = slice(i, i + 65536)
        obs, mask, prior, order = rules.canonical(data["obs"][sl], data["mask"][sl], data["prior"][sl])
        out["obs"][sl], out["mask"][sl], out["prior"][sl] = obs, mask, prior
        out["adv"][sl] = rules.canonical_actions(data["adv"][sl], order)
        out["se"][sl] = rules.canonical_actions(data["se"][sl], order)
    return out


def held_out_gain(adv_pred, mask, adv_label, margin: float) -> tuple[float, float]:
    """(mean label advantage per decision of the moves the policy would play, share it changes)."""
    p = np.where(mask > 0, adv_pred, -np.inf)
    best = p.argmax(axis=1)
    change = p[np.arange(len(p)), best] > margin
    gain = np.where(change, adv_label[np.arange(len(p)), best], 0.0)
    return float(gain.mean()), float(change.mean())


def margin_text(margin: float) -> str:
    return "never (the heuristic's moves)" if margin >= NEVER else f"{margin:g}"


def best_margin(gains: dict) -> float:
    """The margin whose changes gain the most on held-out labels ({margin: (gain, share changed)}), or
    NEVER when no margin gains anything."""
    best = max(MARGINS, key=lambda m: gains[m][0])
    return best if gains[best][0] > 0 else NEVER


def network_inputs(rules: ResidualGame, data: dict) -> tuple:
    """(inputs, per-slot features or None) of every label: ``rules.model_inputs`` computed once, in
    chunks, kept as float16 (counts and coarse fractions: exact enough, half the memory)."""
    if not rules.play_features:
        return data["obs"], None
    n = len(data["obs"])
    x = np.empty((n, rules.obs_size), np.float16)
    feats = np.empty((n, rules.num_actions, rules.play_features), np.float16)
    for i in range(0, n, 16384):
        x[i:i + 16384], feats[i:i + 16384] = rules.model_inputs(data, np.arange(i, min(n, i + 16384)))
    return x, feats


def _largest(inputs, rows) -> np.ndarray:
    """float32: each input's largest magnitude over ``rows``, at least 1 (in chunks: the inputs are large)."""
    top = np.ones(inputs.shape[1], np.float32)
    for i in range(0, len(rows), 65536):
        top = np.maximum(top, np.abs(inputs[np.sort(rows[i:i + 65536])]).max(axis=0))
    return top


def fit(rules: ResidualGame, data: dict, hidden: int = 256, layers: int = 2, epochs: int = 6, lr: float = 1e-3,
        minibatch: int = 512, seed: int = 0, held_out: float = 0.05, log=print, progress=None, members: int = 1):
    """Fit a residual network to canonical labels; returns (model, facts) with the margin chosen.
    ``members`` > 1 fits that many networks from different initial weights, each on the same
    training part, and returns their mean; the margin is chosen for the mean."""
    torch = _torch()
    check_int("members", members, 1, 64)
    n = len(data["obs"])
    rng = np.random.default_rng(seed)
    perm = rng.permutation(n)
    n_val = max(1, int(n * held_out))
    val, train = perm[:n_val], perm[n_val:]
    torch.manual_seed(seed)     # member 0 is built first: members=1 is the plain fit, weight for weight
    model = build_residual_model(rules.obs_size, rules.num_actions, hidden, layers, rules.scaled, members,
                                 rules.play_features)
    nets = list(model.members) if members > 1 else [model]
    inputs, feats = network_inputs(rules, data)
    scale = _largest(inputs, train) if rules.scaled else None

    def tensors(idx):
        return (torch.as_tensor(inputs[idx].astype(np.float32, copy=False)),
                torch.as_tensor(_onehot(data["prior"][idx], rules.num_actions)),
                torch.as_tensor(data["mask"][idx].astype(np.float32)), torch.as_tensor(data["adv"][idx]),
                torch.as_tensor(data["se"][idx]), None if feats is None else torch.as_tensor(feats[idx].astype(np.float32)))

    def loss_of(net, batch):
        obs, prior, mask, adv, se, feats = batch
        pred = net(obs, prior, feats)
        w = mask / (se ** 2 + LABEL_NOISE)
        return ((pred - adv) ** 2 * w).sum() / w.sum(), pred

    def judged(net):
        """(held-out loss, the margin with the best held-out gain, its (gain, share changed))."""
        net.eval()
        with torch.no_grad():
            vloss, pred = loss_of(net, vb)
        gains = {m: held_out_gain(pred.numpy(), data["mask"][val], data["adv"][val], m) for m in MARGINS}
        best = best_margin(gains)
        return float(vloss), best, gains[best]

    vb = tensors(val)
    history = []
    t0 = time.perf_counter()
    for k, net in enumerate(nets):
        order = rng if k == 0 else np.random.default_rng((seed, k))
        if scale is not None:
            with torch.no_grad():
                net.obs_scale.copy_(torch.as_tensor(scale, dtype=torch.float32))
        opt = torch.optim.Adam(net.parameters(), lr=lr)
        for ep in range(epochs):
            for g in opt.param_groups:     # a constant rate, halved in each of the last three passes after the first
                g["lr"] = lr * 0.5 ** max(0, ep - max(0, epochs - 4))
            net.train()
            order.shuffle(train)
            for i in range(0, len(train), minibatch):
                loss, _ = loss_of(net, tensors(train[i:i + minibatch]))
                opt.zero_grad()
                loss.backward()
                opt.step()
            vloss, best, (gain, changed) = judged(net)
            history.append({"epoch": ep + 1, "held_out_loss": round(vloss, 6), "margin": best,
                            "held_out_gain": round(gain, 5), "changed": round(changed, 4),
                            "seconds": round(time.perf_counter() - t0, 1)} | ({"member": k} if members > 1 else {}))
            log(f"fit {f'member {k + 1}/{members} ' if members > 1 else ''}epoch {ep + 1}/{epochs}: held-out loss "
                f"{vloss:.5f}, margin {margin_text(best)}: gain {gain:+.5f} per decision, changes {changed:.3f}")
            if progress is not None:
                progress.update(1)
    if members > 1:    # one network: its last epoch's judgement stands
        vloss, best, (gain, changed) = judged(model)
        log(f"fit, the mean of {members}: held-out loss {vloss:.5f}, margin {margin_text(best)}: gain {gain:+.5f} per decision, "
            f"changes {changed:.3f}")
    w0 = vb[2] / (vb[4] ** 2 + LABEL_NOISE)
    zero = float((vb[3] ** 2 * w0).sum() / w0.sum())
    return model, {"margin": best, "held_out_gain": round(gain, 5), "changed": round(changed, 4),
                   "held_out_loss": round(vloss, 6), "held_out_loss_zero": round(zero, 6),
                   "held_out": int(n_val), "epochs": history}


# ------------------------------------------------------------------------------------------------
# the training run: label in parallel, fit, save
# ------------------------------------------------------------------------------------------------

@dataclass
class ResidualConfig:
    game: str = "courtpiece"
    env_config: dict = field(default_factory=dict)
    seed: int = 0
    label_minutes: float | None = 40.0   # wall time of labelling (every worker)
    label_games: int | None = None       # or exactly this many deals per worker (bit-reproducible)
    workers: int = 2                     # labelling processes (one per core)
    search: str | None = None            # options of the labelling search agent (None: the game's)
    label_against: str = "search"        # "search": it plays every seat; "heuristic": half the seats
    hidden: int = 256
    layers: int = 2
    members: int = 1                     # networks fitted on the same labels; the policy plays their mean
    epochs: int = 6
    lr: float = 1e-3
    minibatch: int = 512
    threads: int = 2                     # torch threads while fitting (labelling is over by then)
    keep_labels: bool = False            # leave <out>/labels/labels_<w>.npz for later fits
    labels_from: str | None = None       # fit on the kept labels of an earlier run's folder instead
    distill_from: str | None = None      # or fit to this residual checkpoint's advantages (label_games deals)


def earlier_labels(run, cfg: ResidualConfig) -> tuple[dict, dict]:
    """(labels, the earlier run's model.json) of a run folder that kept its labels; the run must have
    labelled the same game and config."""
    run = Path(run)
    files = sorted((run / "labels").glob("labels_*.npz"))
    try:
        before = json.loads((run / "model.json").read_text())
    except (OSError, ValueError):
        before = None
    if not files or not isinstance(before, dict):
        raise ValueError(f"{run}: not a residual run folder with kept labels (model.json, labels/labels_*.npz)")
    if before.get("game") != cfg.game or dict(before.get("env_config") or {}) != dict(cfg.env_config):
        raise ValueError(f"{run}: its labels are of {before.get('game')!r} {before.get('env_config')}, "
                         f"not {cfg.game!r} {cfg.env_config}")
    return load_labels(files, cfg.game), before


def train_residual(cfg: ResidualConfig, out_dir, log=print, progress=None, label_tick=None) -> dict:
    """Label, fit and save ``<out_dir>/model.pt`` + ``.json``; returns the run's facts. ``progress``:
    a bar the fit's epochs advance; ``label_tick(seconds)``: called about once a second while labelling."""
    from agents import agent_options, search_class

    torch = _torch()
    rules = residual_game(cfg.game)
    if cfg.label_minutes is None and cfg.label_games is None and cfg.labels_from is None:
        raise ValueError("residual training needs label_minutes or label_games")
    check_int("workers", cfg.workers, 1, 256)
    search = rules.search_options if cfg.search is None else cfg.search
    kinds = list(rules.decision_kinds(agent_options(search_class(cfg.game), search)))
    teacher = f"pimc:{search}" if search else "pimc"
    # a refused label source must not leave an empty run folder behind
    earlier = earlier_labels(cfg.labels_from, cfg) if cfg.distill_from is None and cfg.labels_from is not None else None
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    if cfg.distill_from is not None:
        if cfg.label_games is None:
            raise ValueError("distillation needs label_games: the deals the teacher plays")
        raw = teacher_labels(cfg.game, cfg.env_config, cfg.distill_from, cfg.seed, cfg.label_games, log=log)
        teacher = f"learned:{cfg.distill_from}"
        kinds = raw.pop("kinds")
        label_s = time.perf_counter() - t0
        labelled = {"decisions": len(raw["obs"]), "games": int(raw["games"]), "seconds": round(label_s, 1),
                    "decisions_per_s": round(len(raw["obs"]) / label_s, 1), "distilled_from": str(cfg.distill_from)}
        log(f"labelled {len(raw['obs'])} decisions of {raw['games']} deals by {teacher} in {label_s:.0f} s")
    elif earlier is not None:
        raw, before = earlier
        kinds, teacher = before.get("decisions", ["play"]), before.get("teacher", teacher)
        labelled = dict(before.get("labelled", {}), decisions=len(raw["obs"]), labels_from=str(cfg.labels_from),
                        label_config=before.get("train_config"))
        log(f"fitting on the {len(raw['obs'])} labels of {cfg.labels_from} ({teacher})")
    else:
        log(f"labelling with {teacher} against {cfg.label_against} in {cfg.workers} processes, seed {cfg.seed}")
        seconds = None if cfg.label_minutes is None else cfg.label_minutes * 60
        raw = label_parallel(cfg.game, cfg.env_config, cfg.seed, cfg.workers, out / "labels", seconds,
                             cfg.label_games, search, cfg.label_against, cfg.keep_labels, tick=label_tick)
        label_s = time.perf_counter() - t0
        n = len(raw["obs"])
        log(f"labelled {n} decisions of {raw['games']} deals in {label_s:.0f} s ({n / label_s:.0f}/s)")
        labelled = {"decisions": n, "games": int(raw["games"]), "seconds": round(label_s, 1),
                    "decisions_per_s": round(n / label_s, 1)}
    data = canonical_labels(rules, raw)
    del raw
    torch.set_num_threads(cfg.threads)
    t1 = time.perf_counter()
    if hasattr(progress, "reset"):  # a tqdm bar made before the labelling: its clock starts with the fit
        progress.reset(total=progress.total)
    model, facts = fit(rules, data, cfg.hidden, cfg.layers, cfg.epochs, cfg.lr, cfg.minibatch, cfg.seed, log=log,
                       progress=progress, members=cfg.members)
    fit_s = time.perf_counter() - t1
    wall = time.perf_counter() - t0
    meta = {"game": cfg.game, "env_config": cfg.env_config, "seed": cfg.seed, "hidden": cfg.hidden,
            "layers": cfg.layers, "members": cfg.members, "scaled": rules.scaled, "decisions": kinds,
            "prior": "heuristic", "teacher": teacher,
            "margin": facts["margin"], "fit": facts, "train_config": asdict(cfg),
            "labelled": labelled,
            "fit_seconds": round(fit_s, 1), "wall_seconds": round(wall, 1)}
    ckpt, jpath = save_residual(model, out / "model.pt", meta)
    return {"checkpoint": str(ckpt), "config": str(jpath), "meta": meta, "wall_seconds": wall}
