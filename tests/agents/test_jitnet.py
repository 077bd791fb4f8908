"""A residual checkpoint evaluated in jitted code (agents.jitnet) and Court Piece's search that plays its
rollouts by it (``pimc:policy=<checkpoint>``): the jitted policy is ResidualAgent's, decision for decision."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

from agents import make_agent  # noqa: E402
from agents.courtpiece.heuristic import CourtPieceHeuristic  # noqa: E402
from agents.courtpiece.search import policy_cards_batch  # noqa: E402
from agents.jitnet import jit_net, net_hidden, net_input, net_output, no_net  # noqa: E402
from agents.residual import ResidualAgent, build_residual_model, save_residual, teacher_labels  # noqa: E402
from cardzoo.registry import make_batch  # noqa: E402
from courtpiece_env.symmetry import suit_order  # noqa: E402


def _random_net(tmp_path, name="net", hidden=16, layers=2, margin=0.02, seed=0, scale=1.0, **meta):
    torch.manual_seed(seed)
    model = build_residual_model(916, 60, hidden=hidden, layers=layers)
    with torch.no_grad():
        for p in model.parameters():
            p.mul_(scale)
    path, _ = save_residual(model, tmp_path / f"{name}.pt", {"game": "courtpiece", "hidden": hidden,
                                                             "layers": layers, "margin": margin, **meta})
    return path


def _positions(n=256, steps=30, seed=5):
    """A batch of Court Piece games, each some plays in (random legal moves)."""
    g = make_batch("courtpiece", n)
    g.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps + rng.integers(0, 20)):
        mask = g.legal_mask()
        live = np.asarray(g.current_player) >= 0
        acts = np.array([rng.choice(np.flatnonzero(m)) if ok else 0 for m, ok in zip(mask, live)])
        g.step(acts)
    return g


def test_jitted_network_equals_torch(tmp_path):
    path = _random_net(tmp_path, hidden=24, layers=3)
    net, meta = jit_net(path, "courtpiece")
    model = ResidualAgent("courtpiece", 0, checkpoint=path).model
    rng = np.random.default_rng(1)
    x = (rng.random(916) < 0.1).astype(np.float32) * rng.random(916).astype(np.float32)
    prior = 7
    h = net.first_bias.copy()
    for j in np.flatnonzero(x):
        net_input.py_func(net, h, j, x[j])
    net_input.py_func(net, h, 916 + prior, np.float32(1.0))
    net_hidden(net, h, np.zeros_like(h))
    ours = np.array([net_output.py_func(net, h, a) - net_output.py_func(net, h, prior) for a in range(60)])
    onehot = np.zeros((1, 60), np.float32)
    onehot[0, prior] = 1
    with torch.no_grad():
        ref = model(torch.as_tensor(x[None]), torch.as_tensor(onehot)).numpy()[0]
    np.testing.assert_allclose(ours, ref, atol=1e-5)


def test_rollout_policy_is_the_residual_agent_decision_for_decision(tmp_path):
    """policy_cards_batch (net_card) on state records plays what ResidualAgent plays on the same positions' observations."""
    g = _positions()
    agent_moves_changed = 0
    for margin, scale in ((0.0, 3.0), (0.05, 3.0), (0.0, 0.0)):
        path = _random_net(tmp_path, margin=margin, scale=scale)
        net, _ = jit_net(path, "courtpiece")
        agent = ResidualAgent("courtpiece", 0, checkpoint=path)
        ours = np.zeros(g.n, np.int64)
        policy_cards_batch(g.records, g.config_array, net, margin, ours)
        heur = np.zeros(g.n, np.int64)
        policy_cards_batch(g.records, g.config_array, no_net(), 0.0, heur)
        rows = ours >= 0
        assert rows.sum() > 100
        obs, mask = g.observe()[rows], g.legal_mask()[rows]
        np.testing.assert_array_equal(ours[rows], agent.act_batch(obs, mask))
        changed = (ours[rows] != heur[rows]).sum()
        if scale == 0.0:
            assert changed == 0                         # a zero network plays the heuristic
        else:
            agent_moves_changed += changed
    assert agent_moves_changed > 50                     # the networks really changed moves


def test_search_with_a_zero_rollout_network_is_the_plain_search(tmp_path):
    from agents.arena import play_aec, random_deal

    zero = _random_net(tmp_path, "zero", scale=0.0)
    deal = random_deal("courtpiece", np.random.default_rng(4))
    plain = make_agent("pimc:samples=8,call_samples=0", "courtpiece", seed=1)
    netted = make_agent(f"pimc:samples=8,call_samples=0,policy={zero}", "courtpiece", seed=1)
    r_plain, _ = play_aec("courtpiece", [plain, CourtPieceHeuristic("courtpiece", 0)] * 2, {}, deal, seed=2)
    r_net, _ = play_aec("courtpiece", [netted, CourtPieceHeuristic("courtpiece", 0)] * 2, {}, deal, seed=2)
    np.testing.assert_array_equal(r_plain, r_net)
    assert plain.stats["overrides"] == netted.stats["overrides"] and plain.stats["searched"] > 10


def test_rollout_network_options_are_checked(tmp_path):
    with pytest.raises(ValueError, match="policy must be one of"):
        make_agent("pimc:policy=greedy", "courtpiece", seed=0)
    with pytest.raises(ValueError, match="plies='2.5' must be an integer"):
        make_agent("pimc:plies=2.5", "courtpiece", seed=0)
    with pytest.raises(ValueError, match="team='yes' must be true or false"):
        make_agent("pimc:team=yes", "courtpiece", seed=0)
    lopti = _random_net(tmp_path, "lopti_like", game="lopti")
    with pytest.raises(ValueError):
        jit_net(lopti, "courtpiece")
    ens = tmp_path / "ens.pt"
    model = build_residual_model(916, 60, hidden=8, layers=1, members=2)
    save_residual(model, ens, {"game": "courtpiece", "hidden": 8, "layers": 1, "members": 2})
    with pytest.raises(ValueError, match="single network"):
        jit_net(ens, "courtpiece")
    assert no_net().first_bias.shape == (0,)


def test_suit_order_is_trump_then_led_then_longest_then_lowest_suit():
    rng = np.random.default_rng(2)
    obs = np.zeros((200, 916), np.float32)
    obs[:, :52] = rng.random((200, 52)) < 0.25
    for b in range(200):
        if b % 3:
            obs[b, 846 + rng.integers(4)] = 1                        # a public trump
        if b % 2:
            leader = rng.integers(4)
            obs[b, 870 + leader] = 1
            obs[b, 416 + 52 * leader + rng.integers(52)] = 1          # the card the leader led
    key = []
    for o in obs:
        trick = o[416:624].reshape(4, 4, 13).sum(axis=2)
        led = (trick * o[870:874, None]).sum(axis=0)
        key.append([(-o[846 + s], -led[s], -o[13 * s:13 * s + 13].sum(), s) for s in range(4)])
    want = np.array([[k[3] for k in sorted(row)] for row in key])
    np.testing.assert_array_equal(suit_order(obs), want)


def test_distillation_labels_are_the_teachers_advantages(tmp_path):
    path = _random_net(tmp_path, scale=3.0)
    d = teacher_labels("courtpiece", {}, str(path), seed=0, games=6, log=lambda *_: None)
    n = len(d["obs"])
    assert d["games"] == 6 and n > 6 * 20
    rows = np.arange(n)
    assert (d["adv"][rows, d["prior"]] == 0).all() and (d["se"] == 0).all()
    assert (d["adv"][d["mask"] == 0] == 0).all() and d["mask"][rows, d["prior"]].all()
    agent = ResidualAgent("courtpiece", 0, checkpoint=path)
    obs = d["obs"].astype(np.float32)
    best = np.where(d["mask"] > 0, d["adv"], -np.inf)
    best[rows, d["prior"]] = -np.inf
    choice = np.where(best.max(axis=1) > agent.margin, best.argmax(axis=1), d["prior"])
    np.testing.assert_array_equal(choice, agent.act_batch(obs, d["mask"]))


def test_train_command_distils_a_checkpoint_into_a_small_network(tmp_path):
    import json

    from cardzoo.cli import main

    teacher = _random_net(tmp_path, "teacher", scale=3.0)
    out = tmp_path / "run"
    assert main(["train", "courtpiece", "--algo", "residual", "--distill-from", str(teacher), "--label-games", "4",
                 "--epochs", "1", "--hidden", "8", "--layers", "1", "--out", str(out)]) == 0
    meta = json.loads((out / "model.json").read_text())
    assert meta["teacher"] == f"learned:{teacher}" and meta["layers"] == 1 and meta["hidden"] == 8
    assert meta["labelled"]["games"] == 4
    net, _ = jit_net(out / "model.pt", "courtpiece")
    assert net.first.shape == (976, 8) and net.hidden.shape == (0, 8, 8)


def test_shipped_rollout_policy_loads_and_plays_as_its_agent():
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "agents" / "checkpoints" / "courtpiece_rollout.pt"
    net, meta = jit_net(path, "courtpiece")
    assert net.first.shape == (976, 64) and net.hidden.shape[0] == 0 and meta["teacher"].startswith("learned:")
    g = _positions(n=128)
    ours = np.zeros(g.n, np.int64)
    policy_cards_batch(g.records, g.config_array, net, meta["margin"], ours)
    rows = ours >= 0
    agent = ResidualAgent("courtpiece", 0, checkpoint=path)
    np.testing.assert_array_equal(ours[rows], agent.act_batch(g.observe()[rows], g.legal_mask()[rows]))


def test_distillation_refuses_what_it_cannot_distil(tmp_path):
    with pytest.raises(ValueError, match="one output per action"):
        teacher_labels("shengji", {}, "agents/checkpoints/shengji.pt", seed=0, games=1)
    plain = tmp_path / "ppo.pt"
    plain.write_bytes(b"")
    with pytest.raises(ValueError):
        teacher_labels("courtpiece", {}, str(plain), seed=0, games=1)
