"""The web table's JSON API (cardzoo/web/server.py, docs/web.md): the pinned routes and state keys,
whole games through the API, card-by-card Sheng Ji plays, records and replays, and every bad request
a 4xx with a JSON error (never a traceback)."""
from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx2")

from starlette.testclient import TestClient  # noqa: E402

from cardzoo import records  # noqa: E402
from cardzoo.web.tables import replay_frames  # noqa: E402
from cardzoo.web.server import create_app  # noqa: E402

PINNED = {"id", "to_act", "legal", "over", "result", "record"}


@pytest.fixture(scope="module")
def client():
    return TestClient(create_app())


def new_game(client, **body):
    r = client.post("/api/games", json={"seat": 0, "opponents": "heuristic", "seed": 3, **body})
    assert r.status_code == 200, r.text
    return r.json()


def play_out(client, state, choose=lambda s: s["legal"][0], limit=3000):
    for _ in range(limit):
        if state["over"]:
            return state
        r = client.post(f"/api/games/{state['id']}/actions", json={"action": choose(state)})
        assert r.status_code == 200, r.text
        state = r.json()
    raise AssertionError("the game did not end")


def test_the_page_and_its_static_files_are_served(client):
    page = client.get("/")
    assert page.status_code == 200 and 'src="/static/app.js"' in page.text
    for name in ("app.js", "style.css"):
        assert client.get(f"/static/{name}").status_code == 200
    meta = client.get("/api/meta").json()
    assert set(meta["games"]) == {"courtpiece", "lopti", "shengji"}
    assert "pimc" in meta["games"]["shengji"]["agents"] and "greedy" in meta["games"]["courtpiece"]["agents"]


@pytest.mark.parametrize("game, config", [("courtpiece", {"variant": "double_sar"}), ("shengji", {"decks": 1}),
                                          ("lopti", {"num_players": 3})])
def test_a_whole_game_through_the_api_and_its_record_replays(client, game, config):
    state = new_game(client, game=game, config=config)
    assert PINNED <= set(state)
    assert state["to_act"] == 0 and state["your_turn"] and state["legal"]
    # the page's cards and buttons offer exactly the legal actions
    assert sorted([h["action"] for h in state["hand"] if h["action"]] + state["buttons"]) == sorted(state["legal"])
    assert state["frames"] == [] or state["frames"][-1]["move"] == state["moves"][-1]
    assert client.get(f"/api/games/{state['id']}").json() == state
    assert state["record"] is None     # a live game's record (seed and every move) would show every hand
    live = client.get(f"/api/games/{state['id']}/record")
    assert live.status_code == 409 and "the game is still on" in live.json()["error"]
    end = play_out(client, state)
    assert end["to_act"] is None and end["legal"] == [] and end["result"] is not None
    rec = end["record"]
    assert rec["players"][0] == "human" and rec["over"] and rec["config"] == config
    assert records.check(rec)["result"] == end["result"]
    download = client.get(f"/api/games/{state['id']}/record")
    assert download.headers["content-disposition"].startswith("attachment; filename=")
    assert json.loads(download.text) == rec
    rp = client.post("/api/replays", content=download.text).json()
    assert len(rp["frames"]) == len(rec["steps"]) + 1 and rp["frames"][0]["move"] is None
    assert [f["move"]["action"] for f in rp["frames"][1:]] == [s["action"] for s in rec["steps"]]
    assert all(st["cards"] is not None for st in rp["frames"][1]["seats"])     # replays show every hand


def test_bots_moves_come_one_frame_each_in_turn(client):
    state = new_game(client, game="courtpiece", seat=2, seed=8)
    human = [m for m in state["moves"] if m["seat"] == 2]
    assert not human and len(state["frames"]) == len(state["moves"]) >= 1
    seats = [m["seat"] for m in state["moves"]]
    assert 2 not in seats
    after = client.post(f"/api/games/{state['id']}/actions", json={"action": state["legal"][0]}).json()
    assert after["moves"][0] == {"seat": 2, "action": state["legal"][0], "label": "play 5♣"}
    assert state["legal"][0] == "play 5C"
    assert all(f["seats"][2]["cards"] is not None and f["seats"][0]["cards"] is None for f in after["frames"])


def test_sheng_ji_plays_are_built_card_by_card(client):
    """shengji.md section 4: a lead is composed one CARD step at a time, then DONE; the page shows the
    chosen copies as selected and offers "done" as a button."""
    def lead_pair_first(s):
        if s["phase"] == "LEAD":
            return [h["action"] for h in s["hand"] if h["action"]][0]
        return s["legal"][0]

    state = new_game(client, game="shengji", config={"decks": 1}, seed=1)
    for _ in range(300):
        if state["phase"] == "LEAD" and state["your_turn"] and not any(h["selected"] for h in state["hand"]):
            break
        state = client.post(f"/api/games/{state['id']}/actions", json={"action": lead_pair_first(state)}).json()
    else:
        pytest.fail("the human never led")
    card = next(h for h in state["hand"] if h["action"])
    state = client.post(f"/api/games/{state['id']}/actions", json={"action": card["action"]}).json()
    assert state["phase"] == "LEAD" and state["your_turn"]
    assert [h["card"] for h in state["hand"] if h["selected"]] == [card["card"]]
    assert "done" in state["buttons"] and "done" in state["legal"]
    assert state["labels"]["done"] == "lead the chosen cards"
    state = client.post(f"/api/games/{state['id']}/actions", json={"action": "done"}).json()
    assert state["moves"][0] == {"seat": 0, "action": "done", "label": "lead the chosen cards"}
    assert not any(h["selected"] for h in state["hand"])


def test_a_learned_checkpoint_plays_as_an_opponent(client):
    pytest.importorskip("torch")
    spec = client.get("/api/meta").json()["games"]["courtpiece"]["learned"]
    assert spec and spec.startswith("learned:")
    assert play_out(client, new_game(client, game="courtpiece", opponents=spec))["over"]


@pytest.mark.parametrize("method, url, body, status, message", [
    ("post", "/api/games", {"game": "chess"}, 400, "unknown game 'chess'"),
    ("post", "/api/games", {"game": "courtpiece", "config": {"variant": "x"}}, 400, "config: option variant"),
    ("post", "/api/games", {"game": "courtpiece", "config": [1]}, 400, "'config' must be an object"),
    ("post", "/api/games", {"game": "courtpiece", "config": []}, 400, "'config' must be an object"),
    ("post", "/api/games", {"game": "courtpiece", "config": ""}, 400, "'config' must be an object"),
    ("post", "/api/games", {"game": "courtpiece", "config": {"render_mode": "human"}}, 400,
     "config: 'render_mode' is not a game option"),
    ("post", "/api/games", {"game": "courtpiece", "seat": 4}, 400, "'seat' must be an int in 0..3"),
    ("post", "/api/games", {"game": "lopti", "config": {"num_players": 3}, "seat": 3}, 400, "in 0..2"),
    ("post", "/api/games", {"game": "courtpiece", "opponents": "wizard"}, 400, "opponent 'wizard': unknown agent"),
    ("post", "/api/games", {"game": "courtpiece", "opponents": ["random"]}, 400, "lists 1 agents, the game has 3"),
    ("post", "/api/games", {"game": "courtpiece", "opponents": "learned:/nonexistent.pt"}, 400, "opponent"),
    ("post", "/api/games", {"game": "courtpiece", "seed": -2}, 400, "seed=-2 is outside 0.."),
    ("post", "/api/games", {"game": "courtpiece", "seed": 2**64}, 400, f"seed={2**64} is outside 0.."),
    ("post", "/api/games", {"game": "courtpiece", "seed": 1.5}, 400, "seed=1.5 must be None or an int"),
    ("post", "/api/games", {"game": "courtpiece", "seed": True}, 400, "seed=True must be None or an int"),
    ("post", "/api/games", {"game": "courtpiece", "opponents": "pimc:bogus=1"}, 400,
     "opponent 'pimc:bogus=1': unknown agent option 'bogus'"),
    ("post", "/api/games", {"game": "courtpiece", "colour": "red"}, 400, "unknown field(s) 'colour'"),
    ("post", "/api/games", {}, 400, "missing field(s) 'game'"),
    ("post", "/api/games", [1, 2], 400, "must be a JSON object"),
    ("post", "/api/games", "{oops", 400, "not JSON"),
    ("get", "/api/games/nope", None, 404, "no game 'nope'"),
    ("post", "/api/games/nope/actions", {"action": "pass"}, 404, "no game 'nope'"),
    ("get", "/api/nowhere", None, 404, "Not Found"),
    ("post", "/api/replays", {"format": "cardzoo-record", "version": 7}, 400, "record: 'version' 7"),
    ("post", "/api/replays", "[]", 400, "record: a record is a JSON object, not a list"),
    ("post", "/api/replays", "", 400, "record: a record is a JSON object, not nothing (null or an empty text)"),
    ("delete", "/api/games", None, 405, "Method Not Allowed"),
])
def test_bad_requests_get_a_4xx_with_a_json_error(client, method, url, body, status, message):
    kwargs = {} if body is None else ({"content": body} if isinstance(body, str) else {"json": body})
    r = getattr(client, method)(url, **kwargs) if body is not None else getattr(client, method)(url)
    assert r.status_code == status, r.text
    assert message in r.json()["error"] and "Traceback" not in r.text


def test_bad_actions_leave_the_game_as_it_was(client):
    state = new_game(client, game="courtpiece")
    url = f"/api/games/{state['id']}/actions"
    for body, status, message in [({"action": "play 1Z"}, 400, "'play 1Z' is not legal now; legal: "),
                                  ({"action": 52}, 400, "'action' must be an action name"),
                                  ({"action": "pass", "x": 1}, 400, "unknown field(s) 'x'"),
                                  ({}, 400, "missing field(s) 'action'")]:
        r = client.post(url, json=body)
        assert r.status_code == status and message in r.json()["error"]
    assert client.get(f"/api/games/{state['id']}").json() == state
    end = play_out(client, state)
    r = client.post(url, json={"action": state["legal"][0]})
    assert r.status_code == 409 and r.json()["error"] == "the game is over"
    assert client.get(f"/api/games/{state['id']}").json() == end


@pytest.mark.parametrize("game, config, seed, phase, shown", [
    ("shengji", {"decks": 2}, 7, "BURY", "buries a card"),                        # SJ-5: the kitty
    ("courtpiece", {"variant": "chhupa_rang"}, 1, "hide", "hides a card"),        # the hidden trump
])
def test_bots_hidden_moves_are_logged_by_their_kind_only(client, game, config, seed, phase, shown):
    """The moves log and frames show another seat's hidden move as what kind it was, never the card."""
    state = new_game(client, game=game, config=config, seed=seed)
    seen = []
    for _ in range(400):
        seen += [m for m in state["moves"] if m["seat"] != 0]
        if state["over"] or any(m["action"] == shown for m in seen):
            break
        choice = "pass" if "pass" in state["legal"] else state["legal"][0]   # leave the declaring to the bots
        state = client.post(f"/api/games/{state['id']}/actions", json={"action": choice}).json()
    hidden = [m for m in seen if m["action"] == shown]
    assert hidden, f"no bot made a {phase} move"
    assert all(f["move"]["action"] == m["action"] for f, m in zip(state["frames"], state["moves"]))
    from cardzoo.web.views import public_move
    hidden = "card AS" if game == "shengji" else "play AS"
    assert public_move(game, phase, hidden) == shown and public_move(game, "play", "play AS") == "play AS"


def test_lopti_ballots_stay_hidden_until_all_are_cast(client):
    """lopti.md 3.4: a bot's ballot, volunteer answer or throw is logged as 'votes', 'answers' or
    'throws'; the human's own is logged in full."""
    body = {"game": "lopti", "config": {"session": True, "session_rounds": 3, "num_players": 3}, "seed": 1,
            "opponents": "random"}
    state = new_game(client, **body)
    kinds = set()
    for _ in range(3000):
        kinds |= {m["action"] for m in state["moves"] if m["seat"] != 0}
        assert not {"yes", "no", "rock", "paper", "scissors"} & kinds
        if state["over"] or "votes" in kinds:
            break
        legal = state["legal"]
        choice = next((a for a in legal if a.startswith("propose")), legal[0])
        state = client.post(f"/api/games/{state['id']}/actions", json={"action": choice}).json()
    assert "votes" in kinds


def test_a_wrong_record_is_refused_naming_its_step(client):
    rec = play_out(client, new_game(client, game="courtpiece"))["record"]
    rec["steps"] = [dict(rec["steps"][0], action="lead reveal")] + rec["steps"][1:] if rec["steps"] else [
        {"actor": 0, "action": "lead reveal"}]
    r = client.post("/api/replays", json=rec)
    assert r.status_code == 400 and r.json()["error"].startswith("record: step 1: 'lead reveal' is not legal")


def test_games_are_capped_and_expire():
    capped = TestClient(create_app(cap=1))
    first = capped.post("/api/games", json={"game": "courtpiece"})
    assert first.status_code == 200
    r = capped.post("/api/games", json={"game": "courtpiece"})
    assert r.status_code == 503 and "holds 1 games in play already" in r.json()["error"]
    play_out(capped, first.json())                   # a finished game gives its place to a new one
    second = capped.post("/api/games", json={"game": "courtpiece"})
    assert second.status_code == 200
    assert capped.get(f"/api/games/{first.json()['id']}").status_code == 404
    expiring = TestClient(create_app(ttl=0))
    gid = expiring.post("/api/games", json={"game": "courtpiece"}).json()["id"]
    assert expiring.get(f"/api/games/{gid}").status_code == 404
    assert expiring.post("/api/games", json={"game": "courtpiece"}).status_code == 200   # room again


def test_an_internal_error_is_a_json_500_without_a_traceback(monkeypatch):
    from cardzoo.web import tables

    app = TestClient(create_app(), raise_server_exceptions=False)
    monkeypatch.setattr(tables.Table, "state", lambda self: 1 / 0)
    r = app.post("/api/games", json={"game": "courtpiece"})
    assert r.status_code == 500 and r.json() == {"error": "internal error (see the server log)"}


def test_a_request_body_over_the_limit_is_refused(client):
    r = client.post("/api/replays", content=b"x" * 2_000_001)
    assert r.status_code == 413 and "over 2000000 bytes" in r.json()["error"]


def test_the_api_over_a_real_socket(live_server):
    """uvicorn on a loopback port: the same routes over HTTP."""
    req = urllib.request.Request(f"{live_server}/api/games", data=json.dumps({"game": "courtpiece", "seed": 1}).encode(),
                                 headers={"Content-Type": "application/json"}, method="POST")
    state = json.loads(urllib.request.urlopen(req, timeout=60).read())
    assert PINNED <= set(state)
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(f"{live_server}/api/games/none", timeout=10)
    assert err.value.code == 404 and json.loads(err.value.read())["error"].startswith("no game")


def test_serve_binds_loopback_by_default():
    from cardzoo.cli import build_parser

    args = build_parser().parse_args(["serve"])
    assert (args.host, args.port) == ("127.0.0.1", 8000)


def test_the_hider_sees_its_face_down_card_and_nobody_else_does():
    """CP-7.3: the hider knows the card it put face down (the page names it among the facts); the other
    seats see only that a card lies face down (CP-7.1)."""
    from cardzoo.cards import card_index, card_symbol
    from cardzoo.web.tables import Table
    from cardzoo.web.views import table_view

    table = Table("courtpiece", {"variant": "chhupa_rang"}, 0, "heuristic", 3)
    state = table.state()
    assert state["phase"] == "hide" and state["your_turn"]
    table.act(state["legal"][0])
    facts = dict(table.state()["view"]["facts"])
    card = state["legal"][0].split()[1]      # by suit symbol, as every card the facts name
    assert facts["Face-down card (player_0)"] == card_symbol(card_index(card)) and facts["Trump"] == "face down"
    for seat in (1, 2, 3):
        assert not any(label.startswith("Face-down card") for label, _ in table_view("courtpiece", table.raw, {seat})["facts"])


def test_sheng_ji_declaring_windows_of_other_seats_stay_private():
    """SJ-4.6: the deal stops for a seat only while it holds a legal declaration, so another seat's
    pass, its being asked at all, and how far the deal had gone when it was asked would each tell the
    person that it holds a level card or a joker pair, which no seat's observation shows (shengji.md 3).
    Served live: no other seat's DECLARE pass, no actor while another seat has a window, and the seats
    as they were at the move. The finished game's record and replay keep every step."""
    from cardzoo.web.tables import Table

    table = Table("shengji", {"decks": 2}, 0, "random", 5)
    served = []
    while True:
        state = table.state()
        served += list(zip(state["moves"], state["frames"]))
        if state["over"]:
            break
        table.act("pass" if state["phase"] == "DECLARE" else state["legal"][0])
    rec = state["record"]
    # every position of the record, as the env had it (index i: after step i, 0: the start)
    raw = records.start(rec)
    records.Recorder(raw).begin(rec["seed"], rec.get("options"))
    positions = [raw.public_state()]
    records.replay(rec, on_step=lambda i, st, env: positions.append(env.public_state()))
    expected = []
    for i, st in enumerate(rec["steps"], 1):
        before, after = positions[i - 1], positions[i]
        if st["actor"] != 0 and before["phase"] == "DECLARE" and st["action"] == "pass":
            continue                                            # a bot's silent pass: not served
        action = "buries a card" if st["actor"] != 0 and before["phase"] == "BURY" else st["action"]
        window = after["phase"] == "DECLARE" and after["current_player"] not in (None, 0)
        expected.append(({"seat": st["actor"], "action": action},
                         None if window else after["current_player"],
                         (before if window else after)["hand_sizes"]))
    got = [({"seat": m["seat"], "action": m["action"]}, f["actor"], [s["count"] for s in f["seats"]]) for m, f in served]
    assert got == expected
    bot_passes = [st for i, st in enumerate(rec["steps"], 1)
                  if st["actor"] != 0 and positions[i - 1]["phase"] == "DECLARE" and st["action"] == "pass"]
    assert bot_passes and any(actor is None for _, actor, _ in expected)      # this deal tests both
    assert not any(m["seat"] != 0 and m["action"] == "pass" and f["phase"] == "DECLARE" for m, f in served)
    rp = replay_frames(rec)                                      # the finished game's replay: complete
    assert [f["move"]["action"] for f in rp["frames"][1:]] == [st["action"] for st in rec["steps"]]


# a two-deck Sheng Ji deal (seed 5, random opponents) in which player_0 declares, buries, then throws
# 7C 9C AC AC, which fails (SJ-7.4): it plays 7C and takes back 9C AC AC, now shown to every seat
FAILED_THROW = ["declare level D x1", "pass", "declare level D x2", "card 7H", "card 6S", "card TH", "card KD",
                "card KH", "card KS", "card 9D", "card QS", "card AC", "card 7C", "card 9C", "card AC", "done"]


def test_a_failed_sheng_ji_throw_is_told_and_shown_cards_are_on_the_table(client):
    """SJ-7.4 and shengji.md 3: a failed throw is public (who, the cards tried, the forced component
    played; not who could beat it), and so are the cards each seat has shown (declared copies,
    retracted throw cards) until it plays them."""
    state = new_game(client, game="shengji", config={"decks": 2}, seed=5, opponents="random")
    for action in FAILED_THROW:
        assert action in state["legal"], (action, state["legal"])
        state = client.post(f"/api/games/{state['id']}/actions", json={"action": action}).json()
    facts = dict(state["view"]["facts"])
    assert facts["Failed throw (trick 1)"] == "player_0's throw 7♣ 9♣ A♣ A♣ failed: plays 7♣"
    assert state["frames"][0]["move"] == {"seat": 0, "action": "done", "label": "lead the chosen cards"}
    assert dict(state["frames"][0]["facts"])["Failed throw (trick 1)"].endswith("failed: plays 7♣")
    assert state["frames"][0]["table"] == [[0, ["7C"]]]                          # the forced component only
    assert sorted(state["view"]["seats"][0]["shown"]) == ["2D", "2D", "9C", "AC", "AC"]   # declared, retracted
    from cardzoo.web.tables import Table
    from cardzoo.web.views import table_view

    table = Table("shengji", {"decks": 2}, 0, "random", 5)
    for action in FAILED_THROW:
        table.act(action)
    ps = table.raw.public_state()
    for seat in range(4):        # every seat sees the same shown cards and failed throws
        view = table_view("shengji", table.raw, {seat})
        assert [sorted(st["shown"]) for st in view["seats"]] == [sorted(s.split()) for s in ps["shown"]]
        assert [f for f in view["facts"] if f[0].startswith("Failed throw")] == [
            f for f in table.state()["view"]["facts"] if f[0].startswith("Failed throw")]
    while len(table.raw.public_state()["tricks"]) < 3 and not table.env.over:    # two tricks later it is gone
        table.act(table.state()["legal"][0] if "done" not in table.state()["legal"] else "done")
    assert not any(f[0] == "Failed throw (trick 1)" for f in table.state()["view"]["facts"])


def test_lopti_pile_size_and_the_plays_under_the_drawn_ones():
    """lopti.md 3.2: every card on the pile is public. The view draws the newest plays, counts the
    cards under them (listing them) and states the pile's size, which a pickup takes."""
    from cardzoo.web.tables import Table
    from cardzoo.web.views import PILE_PLAYS_DRAWN

    table = Table("lopti", {"num_players": 3}, 0, "random", 2)
    for _ in range(400):
        state = table.state()
        pile = table.raw.public_state()["pile"]
        view = state["view"]
        cards = [c for _, group in pile for c in group.split()]
        assert dict(view["facts"])["Pile"] == (f"{len(cards)} card{'s' if len(cards) != 1 else ''}" if cards
                                               else "empty")
        assert view["under"]["cards"] + [c for _, group in view["table"] for c in group] == cards
        assert view["under"]["plays"] == max(0, len(pile) - PILE_PLAYS_DRAWN)
        if view["under"]["plays"] >= 2 or state["over"]:
            break
        table.act(next((a for a in state["legal"] if a != "pickup"), state["legal"][0]))
    assert view["under"]["plays"] >= 2 and len(view["table"]) == PILE_PLAYS_DRAWN


def lopti_pickups(state):
    """A LOPTI policy that picks the pile up whenever it may (legal[-1] in the play phase), so that
    cards become known (lopti.md 3.2)."""
    return state["legal"][-1] if state["phase"] == "play" else state["legal"][0]


def test_lopti_known_cards_of_every_seat_are_in_the_view():
    """lopti.md 3.2: the cards a seat picked up, took from its face-up row, swapped in or revealed are
    known to every seat while it holds them; the view gives each seat's known cards (in rank order)
    to every viewer alike, as `shown` with "shown_as": "known"."""
    from cardzoo.web.tables import Table
    from cardzoo.web.views import table_view

    table = Table("lopti", {"num_players": 3}, 0, "random", 2)
    sizes = set()
    for _ in range(200):
        state = table.state()
        ps = table.raw.public_state()
        known = [sorted(st["known"].split(), key=lambda c: ("23456789TJQKA".index(c[0]), "SHCD".index(c[1])))
                 for st in ps["seats"]]
        for viewer in range(3):
            view = table_view("lopti", table.raw, {viewer})
            assert view["shown_as"] == "known" and [st["shown"] for st in view["seats"]] == known
        sizes |= {len(k) for k in known[1:]}
        if state["over"] or (max(sizes) > 6 and sizes & {1, 2, 3}):
            break
        table.act(lopti_pickups(state))
    assert max(sizes) > 6 and sizes & {1, 2, 3}      # other seats with a few and with many known cards


def test_the_result_reads_as_words():
    """The result box: a LOPTI headline names the place (a reward of 0 is 3rd of 5, not a draw), places
    are ordinals by player (shared places too), Sheng Ji levels are rank names and trump a suit
    symbol; a finished game's state and its replay carry the same summary."""
    from cardzoo.web.tables import Table
    from cardzoo.web.views import ordinal, result_view

    assert [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 103)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "103rd"]
    lopti = {"winner": 4, "order": [4, 2, 3, 1, 0], "places": [4, 3, 1, 2, 0], "truncated": False,
             "round_rewards": [-1.0, -0.5, 0.5, 0.0, 1.0], "scores": [-1.0, -0.5, 0.5, 0.0, 1.0], "round_winners": [4]}
    view = result_view("lopti", lopti, lopti["scores"], 3)
    assert view["headline"] == "You finished 3rd of 5 (0)" and view["tone"] == "even"
    assert view["rows"] == [["player_0", "5th place (-1)"], ["player_1", "4th place (-0.5)"],
                            ["player_2", "2nd place (+0.5)"], ["player_3 (you)", "3rd place (0)"],
                            ["player_4", "1st place (+1)"]]
    shared = dict(lopti, places=[None, None, 1, 0, None], truncated=True, round_rewards=[-0.5, -0.5, 0.5, 1.0, -0.5])
    view = result_view("lopti", shared, shared["round_rewards"], 0)
    assert view["headline"] == "You shared places 3rd–5th of 5 (-0.5)" and view["tone"] == "lost"
    assert dict(view["rows"])["player_4"] == "shared 3rd–5th place (-0.5)" and "Last round" in dict(view["rows"])
    session = {"winner": 0, "order": [0, 2, 1], "places": [0, 2, 1], "round_rewards": [1.0, -1.0, 0.0],
               "scores": [1.0, -2.0, 1.0], "truncated": False, "round_winners": [2, 0]}
    view = result_view("lopti", session, session["scores"], 1)
    assert view["headline"] == "You finished 3rd of 3 on points (-2)"
    assert dict(view["rows"])["player_1 (you)"] == "3rd place in the last round (-1), total -2"
    assert result_view("lopti", session, session["scores"], 0)["headline"] == "You shared 1st of 3 on points (+1)"
    shengji = {"hand_index": 0, "banker": 1, "declarers": 1, "hand_level": 0, "trump": "NT",
               "trick_points": [50, 45], "kitty": "9D AH 2S 3S 5S LJ", "kitty_points": 5, "last_trick_winner": 2,
               "multiplier": 2, "kitty_bonus": 10, "penalty": 0, "opponent_points": 60, "outcome": "takeover",
               "table_levels": 1, "hand_score": 2, "levels_gained": [1, 0], "new_levels": [0, 12],
               "next_banker": 2, "match_winner": None}
    view = result_view("shengji", shengji, [2 / 3, -2 / 3, 2 / 3, -2 / 3], 0)
    rows = dict(view["rows"])
    assert view["headline"] == "Your team took over: you won (+0.667)"
    assert rows["Level, trump"] == "2, NT" and rows["New levels"] == "2 : A (team 0 : 1)"
    assert rows["Kitty"] == "9♦ A♥ 2♠ 3♠ 5♠ LJ (5 points)" and rows["Banker"] == "player_1"
    assert rows["Opp. points"] == "60 (tricks 50, kitty 10 = 5 x 2)" and rows["Outcome"] == "team 0 took over, up 1 level"
    assert rows["Rewards"] == "+0.667 / -0.667 / +0.667 / -0.667 (by player)"
    assert dict(result_view("shengji", dict(shengji, trump="H"), [-1, 1, -1, 1], 1)["rows"])["Level, trump"] == "2, ♥"
    bazi = {"bazi_index": 0, "winner_team": 0, "kind": "trump_win", "points": 1, "kots": 0, "bonus": 0,
            "next_dealer": 3, "decided_at_trick": 9, "match_winner": None}
    assert result_view("courtpiece", bazi, [1, -1, 1, -1], 1)["headline"] == "The other team won the bazi (-1)"
    assert result_view("courtpiece", bazi, [1, -1, 1, -1], None)["headline"] == "Game over"

    table = Table("lopti", {"num_players": 5}, 0, "random", 4)      # the human finishes 3rd, reward 0
    while not table.env.over:
        table.act(table.state()["legal"][0])
    state = table.state()
    assert state["summary"]["headline"] == "You finished 3rd of 5 (0)"
    assert state["summary"] == result_view("lopti", state["result"], state["rewards"], 0)
    assert replay_frames(state["record"])["summary"] == state["summary"]
    assert table.state()["summary"] is not None and Table("lopti", {}, 0, "random", 4).state()["summary"] is None


def test_buttons_and_facts_name_the_cards(client):
    """Sheng Ji: trump and declarations by suit symbol, a declaration button names the card it shows,
    the burial prompt says how many cards to bury; LOPTI: a swap button names the face-up card it
    takes. The actions sent stay the env's names."""
    from cardzoo.web.tables import Table
    from cardzoo.web.views import button_labels

    state = new_game(client, game="shengji", config={"decks": 2}, seed=5, opponents="random")
    assert state["labels"] == {"declare level D x1": "declare 2♦ ×1", "pass": "pass: no declaration"}
    assert state["hint"] is None
    url = f"/api/games/{state['id']}/actions"
    for action in FAILED_THROW[:3]:
        state = client.post(url, json={"action": action}).json()
    facts = dict(state["view"]["facts"])
    assert facts["Trump"] == "♦" and facts["Declared"] == "player_0: 2♦ ×2"
    assert state["phase"] == "BURY" and state["hint"] == "bury 8 cards: click 8 more"
    for action in FAILED_THROW[3:6]:
        state = client.post(url, json={"action": action}).json()
    assert state["hint"] == "bury 8 cards: click 5 more (3 chosen)"
    table = Table("shengji", {"decks": 2}, 0, "random", 5)
    assert button_labels("shengji", table.raw, 0, ["declare BJ x2", "declare LJ x3", "name trump S", "name trump H",
                                                   "pass"]) == {
        "declare BJ x2": "declare BJ ×2", "declare LJ x3": "declare LJ ×3", "name trump S": "name trump ♠",
        "name trump H": "name trump ♥", "pass": "pass: no declaration"}

    state = new_game(client, game="lopti", config={"num_players": 3}, seed=2, opponents="random")
    up = Table("lopti", {"num_players": 3}, 0, "random", 2).raw.public_state()["seats"][0]["up"]
    swaps = [b for b in state["buttons"] if b.startswith("swap")]
    assert swaps and state["phase"] == "swap"
    symbol = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
    for b in swaps:
        rank, slot = b.split()[1], int(b.split()[2][2:])
        card = up[slot]
        assert state["labels"][b] == f"swap {'10' if rank == 'T' else rank} for " \
                                     f"{'10' if card[0] == 'T' else card[0]}{symbol[card[1]]}"
    assert "keep" not in state["labels"]


def _session(state: dict, seed: int = 1, players: int = 3):
    """A raw LOPTI session env reset to an injected position (lopti.md 7.2)."""
    from cardzoo.registry import make

    env = make("lopti", render_mode="ansi", num_players=players, session=True, session_rounds=3)
    env.reset(seed=seed, options={"state": state})
    return env.unwrapped


def _step(raw, name):
    assert name in __import__("cardzoo.web.views", fromlist=["legal_names"]).legal_names(raw), name
    raw.step(raw.action_from_name(name))


def test_lopti_session_rule_making_and_creator_in_words():
    """LO-10.3, 10.4: making a rule is a chain of "select v" decisions; each is labelled by what it
    selects (the kind of rule, its condition, who, how many: then the whole rule), the rule being made
    and the rulebook are facts, and a creator's deletion names the rule."""
    from cardzoo.web.views import button_labels, legal_names, table_view, turn_hint

    raw = _session({"phase": "rule_making", "round": 1, "prev_winner": 0, "to_act": 0})
    labels = button_labels("lopti", raw, 0, legal_names(raw))
    assert len(labels) == 16 and labels["select 1"] == "a rule for: a rank is played: someone draws"
    assert turn_hint("lopti", raw, 0) == "you won the round: make a rule. What should it be about?"
    _step(raw, "select 1")
    labels = button_labels("lopti", raw, 0, legal_names(raw))
    assert labels["select 5"] == "the condition: a 7" and labels["select 12"] == "the condition: an A"
    _step(raw, "select 5")
    assert button_labels("lopti", raw, 0, ["select 1"]) == {"select 1": "who: the next player"}
    _step(raw, "select 1")
    facts = dict(table_view("lopti", raw, {0})["facts"])
    assert facts["Rule being made"] == "a rank is played: someone draws (the condition: a 7, who: the next player)"
    assert button_labels("lopti", raw, 0, legal_names(raw)) == {
        "select 1": "When a 7 is played, the next player draws one card.",
        "select 2": "When a 7 is played, the next player draws two cards."}
    _step(raw, "select 2")
    facts = dict(table_view("lopti", raw, {1})["facts"])
    assert facts["Rule 1 (player_0)"] == "When a 7 is played, the next player draws two cards."

    raw = _session({"phase": "creator", "round": 1, "to_act": 0,
                    "rules": [[1, 5, 1, 2, 0, 1], [10, 12, 0, 0, 1, 2]], "switches": {"SWAPS": 2},
                    "pending": [3, 0, 0, 9]})
    assert button_labels("lopti", raw, 0, legal_names(raw)) == {
        "pass": "keep my rules", "select 0": "delete rule 1: When a 7 is played, the next player draws two cards."}
    facts = dict(table_view("lopti", raw, {2})["facts"])
    assert facts["Rule 2 (player_1) removed"] == "A pile that reaches 12 cards is cleared."
    assert facts["Base rules changed"] == "swaps per player: 2" and facts["Pending (next round)"] == "set 'clear card' to J"


def test_lopti_session_proposals_in_words():
    """LO-10.5: a proposal's kind, target, field, value and timing are labelled, and the proposal is a
    fact as it is built (a rule's new wording, a base rule's new value)."""
    from cardzoo.web.views import button_labels, legal_names, table_view

    rules = [[1, 5, 1, 2, 1, 1], [10, 12, 0, 0, 1, 2]]
    raw = _session({"phase": "proposal", "round": 1, "dealer": 2, "to_act": 0, "rules": rules})
    assert button_labels("lopti", raw, 0, legal_names(raw)) == {
        "pass": "no proposal", "propose remove": "propose: remove a rule", "propose amend": "propose: change a rule",
        "propose base": "propose: change a base rule", "propose restore": "propose: bring back a removed rule"}
    _step(raw, "propose amend")
    assert button_labels("lopti", raw, 0, legal_names(raw)) == {
        "select 0": "rule 1: When a 7 is played, the next player draws two cards."}
    _step(raw, "select 0")
    labels = button_labels("lopti", raw, 0, legal_names(raw))
    assert labels["select 1"] == "change the condition (now a 7)" and labels["select 2"] == "change who (now the next player)"
    _step(raw, "select 1")
    assert button_labels("lopti", raw, 0, ["select 7"]) == {
        "select 7": "to: When a 9 is played, the next player draws two cards."}
    _step(raw, "select 7")
    assert button_labels("lopti", raw, 0, legal_names(raw)) == {"timing now": "apply it now",
                                                               "timing next": "apply it from the next round"}
    _step(raw, "timing next")
    facts = dict(table_view("lopti", raw, {1})["facts"])
    assert facts["Proposal (player_0)"] == "change rule 1 to: When a 9 is played, the next player draws two cards, " \
                                           "from the next round"

    raw = _session({"phase": "proposal", "round": 1, "dealer": 2, "to_act": 0, "rules": rules})
    _step(raw, "propose base")
    labels = button_labels("lopti", raw, 0, legal_names(raw))
    assert labels["select 0"] == "'clear card' (now 10)" and labels["select 8"] == "'swaps per player' (now 1)"
    _step(raw, "select 0")
    assert button_labels("lopti", raw, 0, ["select 9"]) == {"select 9": "to J"}
    _step(raw, "select 9")
    assert dict(table_view("lopti", raw, {0})["facts"])["Proposal (player_0)"] == "set 'clear card' to J"


def test_lopti_session_votes_and_rock_paper_scissors_as_facts():
    """LO-10.5 to 10.7 through the API: the page can start a session (META's LOPTI modes); ballots
    show as facts once all are in (a bot's ballot and throw are logged as "votes", "throws"), the
    rock-paper-scissors score while a match is on, a contestant's last throw once both have thrown;
    public moves are logged in words ("label")."""
    from cardzoo.web.server import META

    choices = META["games"]["lopti"]["modes"]["choices"]
    assert [c[1] for c in choices][1] == {"session": True, "session_rounds": 3}
    from cardzoo.web.tables import Table

    table = Table("lopti", {"num_players": 4, **choices[1][1]}, 1, "random", 1)
    seen, served = {}, []
    for i in range(4000):
        state = table.state()
        facts = dict(state["view"]["facts"])
        for key in ("Votes", "Rock-paper-scissors (match)", "Last throw"):
            if key in facts:
                seen.setdefault(key, facts[key])
        served += state["moves"]
        assert not {"yes", "no", "rock", "paper", "scissors"} & {m["action"] for m in state["moves"] if m["seat"] != 1}
        if state["over"] or len(seen) == 3:
            break
        legal = state["legal"]
        table.act(next((a for a in legal if a.startswith("propose")), legal[i % len(legal)]))
    assert set(seen) == {"Votes", "Rock-paper-scissors (match)", "Last throw"}, seen
    import re
    assert re.fullmatch(r"(player_\d (yes|no)(, )?)+", seen["Votes"])
    assert re.fullmatch(r"player_\d \d+ : \d+ player_\d \(\d+ decisive of \d+ throws\)", seen["Rock-paper-scissors (match)"])
    assert re.fullmatch(r"you (rock|paper|scissors), they (rock|paper|scissors)", seen["Last throw"])
    assert any(m.get("label", "").startswith("propose: ") for m in served)
    while not state["over"]:          # the whole session, then its replay: the same words for the same steps
        table.act(state["legal"][0])
        state = table.state()
        served += state["moves"]
    rp = replay_frames(state["record"])
    replayed = [f["move"] for f in rp["frames"][1:]]
    assert [m.get("label") for m in served if "label" in m] == [
        r.get("label") for m, r in zip(served, replayed) if "label" in m]
    assert len(served) == len(replayed) and any("label" in r for r in replayed)
