"""The web table in a real browser (headless Chromium through selenium): a whole Court Piece bazi and a
Sheng Ji hand played by clicking cards and buttons, then records replayed forward and back.
Screenshots go to test-artifacts/web/ (or $CARDZOO_TEST_ARTIFACTS). Without chromium and chromedriver
(Debian: apt-get install chromium chromium-driver) the tests say so and skip."""
from __future__ import annotations

import json
import os
import shutil
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (the dev extra)")
pytest.importorskip("starlette")

from selenium.common.exceptions import TimeoutException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.select import Select  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from cardzoo import records  # noqa: E402

ARTIFACTS = Path(os.environ.get("CARDZOO_TEST_ARTIFACTS", Path(__file__).resolve().parents[2] / "test-artifacts")) / "web"
FLAGS = ("--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking "
         "--disable-component-update --disable-sync --window-size=1280,1000").split()


def _browser_paths():
    binary = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)
    driver = shutil.which("chromedriver")
    return binary, driver


@pytest.fixture(scope="module")
def browser(live_server, tmp_path_factory):
    binary, driver_path = _browser_paths()
    if not binary or not driver_path:
        pytest.skip("no headless browser here: install chromium and chromium-driver (Debian) to run this test")
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}")
    options.binary_location = binary
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})   # the page's console, for JS errors
    from selenium.common.exceptions import WebDriverException

    try:
        driver = webdriver.Chrome(service=Service(driver_path), options=options)
    except WebDriverException:  # a first start on a fresh machine can time out (font caches): once more
        driver = webdriver.Chrome(service=Service(driver_path), options=options)
    driver.set_page_load_timeout(60)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    yield driver
    driver.quit()


def page_state(driver) -> str:
    return driver.find_element(By.TAG_NAME, "body").get_attribute("data-state")


def wait_for(driver, *states, timeout=180):
    try:
        WebDriverWait(driver, timeout).until(lambda d: page_state(d) in states)
    except TimeoutException:
        shot(driver, "timeout")
        error = driver.find_element(By.ID, "error").text
        pytest.fail(f"the page stayed {page_state(driver)!r}, not {states} (error box: {error!r})")


def shot(driver, name: str) -> None:
    driver.save_screenshot(str(ARTIFACTS / f"{name}.png"))


def server_state(driver, live_server) -> dict:
    import urllib.request

    gid = driver.execute_script("return game.id")
    return json.loads(urllib.request.urlopen(f"{live_server}/api/games/{gid}", timeout=30).read())


def js_errors(driver) -> list[str]:
    """The page's console errors (uncaught exceptions among them) since the previous call."""
    return [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def rect(driver, css: str) -> dict:
    return driver.execute_script("const r = document.querySelector(arguments[0]).getBoundingClientRect();"
                                 "return {left: r.left, top: r.top, right: r.right, bottom: r.bottom}", css)


def disjoint(a: dict, b: dict) -> bool:
    return a["right"] <= b["left"] or b["right"] <= a["left"] or a["bottom"] <= b["top"] or b["bottom"] <= a["top"]


def inside(a: dict, b: dict) -> bool:
    return b["left"] <= a["left"] and a["right"] <= b["right"] and b["top"] <= a["top"] and a["bottom"] <= b["bottom"]


def visible_in_log(driver, css: str) -> bool:
    """Whether the log item `css` lies within the scrolled log box."""
    return inside(rect(driver, f"#log {css}"), rect(driver, "#log"))


def viewport(driver, width: int | None, height: int | None = None) -> None:
    """Emulate a window of this viewport size (None: the browser's own again)."""
    if width is None:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    else:
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})


def start(driver, live_server, game: str, option: str | None = None, opponents: str = "heuristic", seed: int = 1):
    driver.get(f"{live_server}/?speed=0&seed={seed}")
    wait_for(driver, "setup")
    Select(driver.find_element(By.ID, "game")).select_by_value(game)
    if option is not None:
        Select(driver.find_element(By.ID, "opt")).select_by_value(option)
    Select(driver.find_element(By.ID, "opponents")).select_by_value(opponents)
    driver.find_element(By.ID, "start").click()
    wait_for(driver, "turn", "over")


def play_by_clicking(driver, live_server, name: str, limit: int = 400) -> tuple[int, dict]:
    """Click until the game ends: 'done' once a Sheng Ji lead has a card, else the first clickable card,
    else the first button. Every turn the page must offer exactly the server's legal actions, the
    other cards dimmed."""
    clicks = 0
    while page_state(driver) == "turn":
        assert clicks < limit, "the game did not end"
        state = server_state(driver, live_server)
        cards = driver.find_elements(By.CSS_SELECTOR, "#hand .card.playable")
        buttons = driver.find_elements(By.CSS_SELECTOR, "#buttons button")
        offered = [e.get_attribute("data-action") for e in cards + buttons]
        assert sorted(set(offered)) == sorted(state["legal"])
        dim = driver.find_elements(By.CSS_SELECTOR, "#hand .card.dim")
        assert len(dim) == sum(1 for h in state["hand"] if not h["action"] and not h["selected"])
        done = [b for b in buttons if b.get_attribute("data-action") == "done"]
        target = done[0] if done and driver.find_elements(By.CSS_SELECTOR, "#hand .card.selected") else (
            cards[0] if cards else buttons[0])
        target.click()
        clicks += 1
        wait_for(driver, "turn", "over")
        if clicks == 6:
            shot(driver, f"{name}-playing")
    assert page_state(driver) == "over"
    return clicks, server_state(driver, live_server)


def test_play_a_court_piece_bazi_by_clicking_then_replay_it(browser, live_server):
    start(browser, live_server, "courtpiece", "single_sar", seed=5)
    shot(browser, "courtpiece-start")
    # a live game's record would show every hand: no download until the end, and the server's refusal
    # is the page's error line should the link be followed anyway
    assert not browser.find_element(By.ID, "download").is_displayed()
    assert not browser.find_element(By.ID, "to-replay").is_displayed()
    browser.execute_script("document.getElementById('download').click()")
    WebDriverWait(browser, 30).until(lambda d: d.find_element(By.ID, "error").is_displayed())
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(browser.find_element(By.ID, "download").get_attribute("href"), timeout=30)
    assert browser.find_element(By.ID, "error").text == json.loads(refused.value.read())["error"]
    clicks, end = play_by_clicking(browser, live_server, "courtpiece")
    assert end["over"] and clicks == sum(1 for st in end["record"]["steps"] if st["actor"] == 0)
    assert end["record"]["seed"] == 5
    headline = browser.find_element(By.CSS_SELECTOR, "#result .headline").text
    mine = end["rewards"][0]
    assert headline == end["summary"]["headline"]
    assert headline.startswith("Your team won the bazi" if mine > 0 else "The other team won the bazi")
    assert browser.find_element(By.ID, "download").is_displayed()
    assert browser.find_element(By.ID, "download").get_attribute("href").endswith(f"/api/games/{end['id']}/record")
    assert visible_in_log(browser, "li:last-child")              # the last move, above the result box
    shot(browser, "courtpiece-over")
    records.check(end["record"])

    browser.find_element(By.ID, "to-replay").click()
    wait_for(browser, "replay")
    n = len(end["record"]["steps"])
    assert browser.find_element(By.ID, "rp-pos").text == f"0 / {n}"
    for _ in range(5):
        browser.find_element(By.ID, "rp-next").click()
    browser.find_element(By.ID, "rp-prev").click()
    assert browser.find_element(By.ID, "rp-pos").text == f"4 / {n}"
    current = browser.find_element(By.CSS_SELECTOR, "#log li.current").text
    step = end["record"]["steps"][3]
    verb, card = step["action"].split()   # the log tells a card play by its suit symbol
    assert current == f"player_{step['actor']}: {verb} {card[:-1].replace('T', '10')}{dict(zip('CDHS', '♣♦♥♠'))[card[-1]]}"
    hands = browser.find_elements(By.CSS_SELECTOR, ".seat .fan .card:not(.back)")
    assert len(hands) >= 4 * 5 - 4                                  # every hand face up in a replay
    shot(browser, "courtpiece-replay")
    browser.find_element(By.ID, "rp-last").click()
    wait_for(browser, "replay-end")
    assert browser.find_element(By.ID, "rp-pos").text == f"{n} / {n}"
    assert browser.find_element(By.ID, "result").is_displayed()
    assert visible_in_log(browser, "li.current")
    browser.find_element(By.ID, "rp-first").click()
    assert browser.find_element(By.ID, "rp-pos").text == f"0 / {n}"


def result_box(driver) -> tuple[str, list[list[str]]]:
    """The result box's headline and its rows as [label, text]."""
    box = driver.find_element(By.ID, "result")
    labels = [e.get_attribute("textContent") for e in box.find_elements(By.CSS_SELECTOR, "dt")]
    texts = [e.get_attribute("textContent") for e in box.find_elements(By.CSS_SELECTOR, "dd")]
    return box.find_element(By.CSS_SELECTOR, ".headline").text, [list(r) for r in zip(labels, texts)]


def test_play_a_sheng_ji_hand_by_clicking(browser, live_server):
    start(browser, live_server, "shengji", "1", seed=7)   # a hand in which the human leads twice
    clicks, end = play_by_clicking(browser, live_server, "shengji")
    assert end["over"] and end["result"]["outcome"] in ("hold", "takeover")
    assert clicks == sum(1 for st in end["record"]["steps"] if st["actor"] == 0)
    assert any(st["action"] == "done" and st["actor"] == 0 for st in end["record"]["steps"])  # led by clicking
    assert result_box(browser) == (end["summary"]["headline"], end["summary"]["rows"])
    assert dict(end["summary"]["rows"])["New levels"] == " : ".join(
        "23456789TJQKA"[x] for x in end["result"]["new_levels"]) + " (team 0 : 1)"    # rank names, not indices
    shot(browser, "shengji-over")
    records.check(end["record"])


def test_replay_an_uploaded_arena_record(browser, live_server, tmp_path):
    from agents.arena import duplicate_match
    from agents import make_agent

    saved = records.RecordWriter(tmp_path)
    duplicate_match("courtpiece", make_agent("heuristic", "courtpiece", 0), make_agent("random", "courtpiece", 1),
                    deals=1, seed=4, on_record=saved)
    path = tmp_path / "courtpiece-00001.json"
    rec = records.load(path)
    browser.get(f"{live_server}/?speed=0")
    wait_for(browser, "setup")
    browser.find_element(By.ID, "tab-replay").click()
    wait_for(browser, "replay-empty")
    browser.find_element(By.ID, "rp-file").send_keys(str(path))
    wait_for(browser, "replay")
    n = len(rec["steps"])
    for _ in range(n // 2):
        browser.find_element(By.ID, "rp-next").click()
    assert browser.find_element(By.ID, "rp-pos").text == f"{n // 2} / {n}"
    plates = [e.text for e in browser.find_elements(By.CSS_SELECTOR, ".seat .plate")]
    assert any("heuristic" in p for p in plates) and any("random" in p for p in plates)
    shot(browser, "arena-replay")
    browser.find_element(By.ID, "rp-last").click()
    wait_for(browser, "replay-end")
    assert browser.find_element(By.ID, "result").is_displayed() and visible_in_log(browser, "li.current")
    # the Play tab shows its own (empty) table, not the replay's end and result
    browser.find_element(By.ID, "tab-play").click()
    wait_for(browser, "setup")
    assert not browser.find_element(By.ID, "result").is_displayed()
    assert not browser.find_elements(By.CSS_SELECTOR, "#felt .seat, #felt .card, #log li")
    assert "New game" in browser.find_element(By.ID, "felt").text
    browser.find_element(By.ID, "tab-replay").click()                # and the replay is where it was
    wait_for(browser, "replay-end")
    assert browser.find_element(By.ID, "rp-pos").text == f"{n} / {n}"
    # a pasted record that the env refuses: the page shows the server's error naming the step
    bad = dict(rec, steps=[dict(rec["steps"][0], actor=(rec["steps"][0]["actor"] + 1) % 4)] + rec["steps"][1:])
    box = browser.find_element(By.ID, "rp-text")
    browser.execute_script("arguments[0].value = arguments[1]", box, json.dumps(bad))
    browser.find_element(By.ID, "rp-load").click()
    WebDriverWait(browser, 30).until(lambda d: d.find_element(By.ID, "error").is_displayed())
    assert browser.find_element(By.ID, "error").text.startswith("record: step 1: the record has seat")


def test_the_bots_moves_are_shown_one_at_a_time(browser, live_server):
    """At a visible speed the page draws each bot move as its own frame (the log grows move by move)
    before the human's turn comes back."""
    browser.get(f"{live_server}/?speed=150&seed=3")
    wait_for(browser, "setup")
    browser.find_element(By.ID, "start").click()
    wait_for(browser, "turn", "over")
    for _ in range(6):
        before = len(browser.find_elements(By.CSS_SELECTOR, "#log li"))
        browser.find_element(By.CSS_SELECTOR, "#hand .card.playable, #buttons button").click()
        lengths = []
        deadline = time.monotonic() + 120
        while page_state(browser) not in ("turn", "over"):
            assert time.monotonic() < deadline, "the page never came back to the human's turn"
            lengths.append(len(browser.find_elements(By.CSS_SELECTOR, "#log li")))
            if len(set(lengths)) == 2 and browser.find_elements(By.CSS_SELECTOR, "#felt .play.fresh"):
                shot(browser, "courtpiece-bots-moving")   # the newest card highlighted (a trick's last one is not)
        grown = sorted({n for n in lengths if n > before})
        if len(grown) >= 3:       # three bot moves or more, each drawn on its own
            return
    pytest.fail("no reply of several bot moves was drawn move by move")


def test_replay_steps_need_a_record(browser, live_server):
    """Before a record is loaded the step buttons are disabled, and neither they nor the arrow keys
    raise an error in the page."""
    browser.get(f"{live_server}/?speed=0")
    wait_for(browser, "setup")
    js_errors(browser)
    browser.find_element(By.ID, "tab-replay").click()
    wait_for(browser, "replay-empty")
    for b in ("rp-first", "rp-prev", "rp-next", "rp-last"):
        button = browser.find_element(By.ID, b)
        assert not button.is_enabled()
        browser.execute_script("arguments[0].disabled = false; arguments[0].click(); arguments[0].disabled = true",
                               button)
    for key in ("ArrowRight", "ArrowLeft"):
        browser.execute_script("document.dispatchEvent(new KeyboardEvent('keydown', {key: arguments[0]}))", key)
    assert browser.find_element(By.ID, "rp-pos").text == "-"
    assert page_state(browser) == "replay-empty"
    assert js_errors(browser) == []


def test_numbers_and_agent_names_as_shown(browser, live_server):
    """Float32 noise is cut to 3 decimals; a learned agent's plate names its file, not the server's path."""
    browser.get(f"{live_server}/?speed=0")
    wait_for(browser, "setup")
    shown = browser.execute_script(
        "return [fmtValue([-1, 1, -0.3333333432674408, 0.5]), fmt(0.3333333432674408), fmt(-2), num(2.50),"
        " shortSpec('learned:/long/path/agents/checkpoints/shengji.pt'), shortSpec('pimc:samples=16,rollouts=8')]")
    assert shown == ["[-1, 1, -0.333, 0.5]", "+0.333", "-2", "2.5", "learned:shengji.pt", "pimc:samples=16,rollouts=8"]


def test_narrow_and_short_windows(browser, live_server):
    """At a phone's 400 px the table, the hand and the side panel stack without overlapping, the seats'
    plates inside the table and clear of each other and of the cards on it; at 1280x657 (a 1280x800
    window's page) the whole hand is in view without scrolling."""
    try:
        viewport(browser, 400, 800)
        start(browser, live_server, "courtpiece", "chhupa_rang", seed=1)
        WebDriverWait(browser, 10).until(lambda d: d.execute_script(
            "return document.getElementById('felt').classList.contains('narrow')"))
        shot(browser, "narrow-400")
        felt, side, hand = rect(browser, "#felt"), rect(browser, "#side"), rect(browser, "#hand-area")
        assert disjoint(felt, side) and disjoint(felt, hand) and disjoint(hand, side)
        assert felt["right"] <= 400 and side["right"] <= 400 and hand["right"] <= 400
        assert browser.execute_script("return document.documentElement.scrollWidth") <= 400
        plates = [rect(browser, f"#seat-{s} .plate") for s in range(4)]
        assert all(inside(p, felt) for p in plates)
        assert all(disjoint(a, b) for i, a in enumerate(plates) for b in plates[i + 1:])
        plays = browser.execute_script("return [...document.querySelectorAll('#felt .play')].map((e) => {"
                                       "const r = e.getBoundingClientRect();"
                                       "return {left: r.left, top: r.top, right: r.right, bottom: r.bottom}})")
        assert plays and all(disjoint(p, q) for p in plays for q in plates)     # this deal: 3 cards out

        viewport(browser, 1280, 657)
        start(browser, live_server, "shengji", "2", seed=7)
        shot(browser, "sheng-ji-1280x657")
        assert browser.execute_script("return document.documentElement.scrollHeight") <= 657
        cards = rect(browser, "#hand")
        assert cards["bottom"] <= 657 and cards["right"] <= 1280
    finally:
        viewport(browser, None)


def click_actions(driver, actions):
    """Click, one after the other, a card or button that sends each action."""
    for action in actions:
        target = driver.find_element(By.CSS_SELECTOR, f'#hand .card.playable[data-action="{action}"], '
                                                      f'#buttons button[data-action="{action}"]')
        target.click()
        wait_for(driver, "turn", "over")


# test_web_api.FAILED_THROW: a two-deck deal (seed 5, random opponents) in which player_0 declares,
# buries, then throws 7C 9C AC AC, which fails: it plays 7C and takes back 9C AC AC
FAILED_THROW = ["declare level D x1", "pass", "declare level D x2", "card 7H", "card 6S", "card TH", "card KD",
                "card KH", "card KS", "card 9D", "card QS", "card AC", "card 7C", "card 9C", "card AC", "done"]


def test_sheng_ji_failed_throw_and_shown_cards(browser, live_server):
    """A failed throw is told among the facts (SJ-7.4), and each seat's shown cards (declared copies,
    retracted throw cards, shengji.md 3) lie face up by its plate."""
    start(browser, live_server, "shengji", "2", opponents="random", seed=5)
    click_actions(browser, FAILED_THROW)
    facts = browser.find_element(By.ID, "facts").text
    assert "player_0's throw 7♣ 9♣ A♣ A♣ failed: plays 7♣" in facts.replace("\n", " ")
    # the person's own shown cards are marked in the hand below the table, the others' lie by their plates
    shown = [e.get_attribute("data-card") for e in browser.find_elements(By.CSS_SELECTOR, "#hand .card.marked")]
    assert sorted(shown) == ["2D", "2D", "9C", "AC", "AC"]
    assert browser.find_element(By.ID, "hand-legend").text == "gold edge: shown to every seat"
    assert not browser.find_elements(By.CSS_SELECTOR, "#seat-0 .shown .card")
    state = server_state(browser, live_server)
    assert any(st["shown"] for st in state["view"]["seats"][1:])
    for st in state["view"]["seats"][1:]:
        cards = browser.find_elements(By.CSS_SELECTOR, f"#seat-{st['seat']} .shown .card")
        assert sorted(c.get_attribute("data-card") for c in cards) == sorted(st["shown"])
    shot(browser, "shengji-failed-throw")


def test_lopti_pile_under_the_drawn_plays(browser, live_server):
    """The LOPTI pile: its newest plays drawn, the cards under them a counted stack (the cards in its
    tooltip), and the pile's size among the facts."""
    start(browser, live_server, "lopti", "3", opponents="random", seed=2)
    for _ in range(300):
        state = server_state(browser, live_server)
        if state["view"]["under"]["plays"] >= 2 or state["over"]:
            break
        action = next((a for a in state["legal"] if a != "pickup"), state["legal"][0])
        click_actions(browser, [action])
    under = state["view"]["under"]
    assert under["plays"] >= 2
    stack = browser.find_element(By.CSS_SELECTOR, "#pile .stack")
    assert stack.text == f"+{len(under['cards'])}" and " ".join(under["cards"]) in stack.get_attribute("title")
    drawn = browser.find_elements(By.CSS_SELECTOR, "#pile .play-col .card")
    assert [c.get_attribute("data-card") for c in drawn] == [c for _, cs in state["view"]["table"] for c in cs]
    rows = {r.find_element(By.CSS_SELECTOR, "td").text: r.text for r in browser.find_elements(By.CSS_SELECTOR, "#facts tr")}
    total = len(under["cards"]) + len(drawn)
    assert rows["Pile"] == f"Pile {total} cards"
    shot(browser, "lopti-pile")


def test_lopti_known_cards_by_each_seat(browser, live_server):
    """lopti.md 3.2: each seat's known cards are shown by its plate, a few as cards, many as a line."""
    start(browser, live_server, "lopti", "3", opponents="random", seed=2)
    for _ in range(200):
        state = server_state(browser, live_server)
        counts = [len(st["shown"]) for st in state["view"]["seats"][1:]]
        if state["over"] or (max(counts) > 6 and min(counts) > 0):
            break
        click_actions(browser, [state["legal"][-1] if state["phase"] == "play" else state["legal"][0]])
    assert max(counts) > 6 and min(counts) > 0
    marked = [e.get_attribute("data-card") for e in browser.find_elements(By.CSS_SELECTOR, "#hand .card.marked")]
    assert sorted(marked) == sorted(state["view"]["seats"][0]["shown"]) and marked    # the person's own, in the hand
    for st in state["view"]["seats"][1:]:
        box = browser.find_element(By.ID, f"seat-{st['seat']}")
        shown = [e.get_attribute("data-card") for e in box.find_elements(By.CSS_SELECTOR, ".shown [data-card]")]
        assert shown == st["shown"]
        if st["shown"]:
            assert box.find_element(By.CSS_SELECTOR, ".shown .caption").text == "known"
            cards = box.find_elements(By.CSS_SELECTOR, ".shown .card")
            assert len(cards) == (len(st["shown"]) if len(st["shown"]) <= 6 else 0)
    shot(browser, "lopti-known")


def test_a_lopti_result_names_the_place(browser, live_server):
    """A LOPTI game in which the human finishes 3rd of 5 with a reward of 0: the result box says so (not
    "A draw") and lists every player's place as an ordinal; replayed from its record, the same."""
    from cardzoo.web.tables import Table

    table = Table("lopti", {"num_players": 5}, 0, "random", 4)
    while not table.env.over:
        table.act(table.state()["legal"][0])
    end = table.state()
    browser.get(f"{live_server}/?speed=0")
    wait_for(browser, "setup")
    browser.find_element(By.ID, "tab-replay").click()
    wait_for(browser, "replay-empty")
    box = browser.find_element(By.ID, "rp-text")
    browser.execute_script("arguments[0].value = arguments[1]", box, records.dumps(end["record"]))
    browser.find_element(By.ID, "rp-load").click()
    wait_for(browser, "replay")
    browser.find_element(By.ID, "rp-last").click()
    wait_for(browser, "replay-end")
    headline, rows = result_box(browser)
    assert headline == "You finished 3rd of 5 (0)"
    assert rows == [["player_0 (you)", "3rd place (0)"], ["player_1", "5th place (-1)"],
                    ["player_2", "4th place (-0.5)"], ["player_3", "1st place (+1)"], ["player_4", "2nd place (+0.5)"]]
    assert "lost" not in browser.find_element(By.ID, "result").get_attribute("class")
    assert visible_in_log(browser, "li.current")
    shot(browser, "lopti-result")


def test_move_numbers_of_any_width_fit_the_log(browser, live_server):
    """A log of 9, 120, 1234 and 12345 moves: the room left of the items holds the widest number and
    its dot (the list's markers), so no number loses its first digit."""
    browser.get(f"{live_server}/?speed=0")
    wait_for(browser, "setup")
    for n in (9, 120, 1234, 12345):
        room, need = browser.execute_script("""
            const moves = Array.from({length: arguments[0]}, (_, i) => ({seat: i % 4, action: "play 2"}));
            drawLog(moves, moves.length - 1, 0);
            const log = document.getElementById("log");
            const probe = document.createElement("span");
            probe.style.font = getComputedStyle(log).font;
            probe.style.whiteSpace = "pre";
            probe.style.position = "absolute";
            probe.textContent = arguments[0] + ". ";
            document.body.append(probe);
            const need = probe.getBoundingClientRect().width;
            probe.remove();
            return [parseFloat(getComputedStyle(log).paddingLeft), need];""", n)
        assert need <= room <= need + 20, (n, room, need)
    shot(browser, "log-12345")


def test_a_short_window_keeps_the_side_panel_readable(browser, live_server):
    """A 1024x768 window's page (1024x625) at the end of a five-player LOPTI game, the human holding
    cards: the result box, the facts, the last clear and the moves log do not fit the panel's height,
    so the panel scrolls; nothing in it is cut off, and scrolled down, the log's last move is in view."""
    try:
        for height in (625, 560):
            viewport(browser, 1024, height)
            start(browser, live_server, "lopti", "5", opponents="random", seed=3)
            browser.execute_async_script("""
                const done = arguments[arguments.length - 1];
                (async () => { while (!game.over) await act(game.legal[0]); })().then(done);""")
            wait_for(browser, "over")
            side = browser.find_element(By.ID, "side")
            shot(browser, f"lopti-end-1024x{height}")
            sizes = browser.execute_script("const s = arguments[0]; return [s.scrollHeight, s.clientHeight]", side)
            if sizes[0] > sizes[1]:
                assert side.value_of_css_property("overflow-y") in ("auto", "scroll")
            browser.execute_script("arguments[0].scrollTop = arguments[0].scrollHeight", side)
            panel = rect(browser, "#side")
            assert inside(rect(browser, "#log"), {**panel, "bottom": panel["bottom"] + 1})
            assert visible_in_log(browser, "li:last-child")
            browser.execute_script("arguments[0].scrollTop = 0", side)
            assert inside(rect(browser, "#result .headline"), panel)
    finally:
        viewport(browser, None)


def test_buttons_prompts_and_jokers_say_what_they_are(browser, live_server):
    """A Sheng Ji declaration button names its card (sending the env's action name), the burial prompt
    counts the cards to bury, big and little joker differ in text and star, not only in colour; a
    LOPTI swap button names the face-up card it takes."""
    start(browser, live_server, "shengji", "2", opponents="random", seed=5)
    button = browser.find_element(By.CSS_SELECTOR, '#buttons button[data-action="declare level D x1"]')
    assert button.text == "declare 2♦ ×1"
    click_actions(browser, FAILED_THROW[:3])
    assert browser.find_element(By.ID, "prompt").text == "Your turn (BURY): bury 8 cards: click 8 more"
    big = browser.find_element(By.CSS_SELECTOR, '#hand .card[data-card="BJ"]')
    little = browser.find_element(By.CSS_SELECTOR, '#hand .card[data-card="LJ"]')
    text = lambda card, part: card.find_element(By.CSS_SELECTOR, part).get_attribute("textContent")  # noqa: E731
    assert (text(big, ".rank"), text(little, ".rank")) == ("BJ", "LJ")
    assert text(big, ".pip") != text(little, ".pip")
    click_actions(browser, FAILED_THROW[3:6])
    assert browser.find_element(By.ID, "prompt").text == "Your turn (BURY): bury 8 cards: click 5 more (3 chosen)"
    trump = [r.text for r in browser.find_elements(By.CSS_SELECTOR, "#facts tr") if r.text.startswith("Trump")]
    assert trump == ["Trump ♦"]
    shot(browser, "shengji-bury")
    start(browser, live_server, "lopti", "3", opponents="random", seed=2)
    swaps = browser.find_elements(By.CSS_SELECTOR, '#buttons button[data-action^="swap"]')
    assert swaps and all(b.text.startswith(f"swap {b.get_attribute('data-action').split()[1]} for ") for b in swaps)
    assert all(b.text[-1] in "♣♦♥♠" for b in swaps)
    shot(browser, "lopti-swap")


def test_five_lopti_seats_on_a_phone_stay_apart(browser, live_server):
    """Five LOPTI players on a 390x844 phone, at every decision of a whole game: the seats' plates lie
    inside the table and clear of each other, and no part of one seat (plate, cards, known cards)
    covers a part of another."""
    try:
        viewport(browser, 390, 844)
        for seed in (1, 2):
            start(browser, live_server, "lopti", "5", opponents="random", seed=seed)
            problems = browser.execute_async_script("""
                const done = arguments[arguments.length - 1];
                const bad = [];
                const check = (i) => {
                  const felt = document.getElementById("felt"), f = felt.getBoundingClientRect();
                  const plates = [...felt.querySelectorAll(".seat .plate")].map((e) => e.getBoundingClientRect());
                  if (plates.length !== 5) bad.push([i, "plates", plates.length]);
                  if (!plates.every((p) => p.left >= f.left && p.right <= f.right && p.top >= f.top && p.bottom <= f.bottom))
                    bad.push([i, "a plate off the table"]);
                  if (plates.some((a, j) => plates.some((b, k) => k > j && overlaps(a, b, 0))))
                    bad.push([i, "plates overlap"]);
                  if (overlappingSeats(felt).length) bad.push([i, "seats overlap", overlappingSeats(felt).length]);
                };
                (async () => {
                  for (let i = 0; i < 400 && !game.over; i++) {
                    check(i);
                    await act(game.legal[(i * 7) % game.legal.length]);
                  }
                  check("end");
                })().then(() => done([bad, game.over]));""")
            assert problems == [[], True], problems
            shot(browser, f"lopti-5-phone-{seed}")
    finally:
        viewport(browser, None)


def test_a_lopti_session_from_the_setup_bar(browser, live_server):
    """LOPTI session mode (LO-10) started from the page: the proposal is built with buttons that say
    what they choose, the facts say what is proposed, and the log tells the steps in words."""
    browser.get(f"{live_server}/?speed=0&seed=2")
    wait_for(browser, "setup")
    Select(browser.find_element(By.ID, "game")).select_by_value("lopti")
    assert browser.find_element(By.ID, "mode-label").is_displayed()
    Select(browser.find_element(By.ID, "mode")).select_by_visible_text("3 rounds")
    Select(browser.find_element(By.ID, "seat")).select_by_value("1")     # asked first: the dealer is player_0
    Select(browser.find_element(By.ID, "opponents")).select_by_value("random")
    browser.find_element(By.ID, "start").click()
    wait_for(browser, "turn", "over")
    state = server_state(browser, live_server)
    assert state["config"] == {"num_players": 4, "session": True, "session_rounds": 3} and state["phase"] == "proposal"
    assert "propose a change to the rules" in browser.find_element(By.ID, "prompt").text
    def texts():
        return {b.get_attribute("data-action"): b.text for b in browser.find_elements(By.CSS_SELECTOR, "#buttons button")}

    assert texts()["propose base"] == "propose: change a base rule" and texts()["pass"] == "no proposal"
    click_actions(browser, ["propose base"])
    assert texts()["select 8"] == "'swaps per player' (now 1)"
    click_actions(browser, ["select 8"])
    assert texts()["select 2"] == "to 2"
    click_actions(browser, ["select 2"])
    assert texts() == {"timing now": "apply it now", "timing next": "apply it from the next round"}
    shot(browser, "lopti-session-proposal")
    click_actions(browser, ["timing next"])
    facts = browser.find_element(By.ID, "facts").text.replace("\n", " ")
    assert "Proposal (player_1) set 'swaps per player' to 2, from the next round" in facts
    log = [li.text for li in browser.find_elements(By.CSS_SELECTOR, "#log li")]
    assert log[:4] == ["player_1: propose: change a base rule", "player_1: 'swaps per player' (now 1)",
                       "player_1: to 2", "player_1: apply it from the next round"]
    shot(browser, "lopti-session-vote")


def test_multi_deck_plays_stay_clear_of_the_seats(browser, live_server):
    """Three- and four-deck Sheng Ji at 1024x768 and on a 390x844 phone, at every decision of a whole
    hand: no card on the table covers a seat's plate, cards or shown cards, nor another seat's play
    (wide throws beside seats with shown cards: the seats give up their card backs to make room)."""
    try:
        for (width, height), decks, seed in (((1024, 768), "4", 50), ((390, 844), "3", 48), ((390, 844), "4", 51)):
            viewport(browser, width, height)
            start(browser, live_server, "shengji", decks, opponents="random", seed=seed)
            problems = browser.execute_async_script("""
                const done = arguments[arguments.length - 1];
                const bad = [];
                const check = (i) => {
                  const felt = document.getElementById("felt");
                  const plays = [...felt.querySelectorAll(".play")].map((e) => e.getBoundingClientRect());
                  if (plays.some((p) => seatParts(felt).some((q) => overlaps(p, q, 0)))) bad.push([i, "a play over a seat"]);
                  if (plays.some((a, j) => plays.some((b, k) => k > j && overlaps(a, b, 0)))) bad.push([i, "plays overlap"]);
                };
                (async () => {
                  for (let i = 0; i < 600 && !game.over; i++) {
                    check(i);
                    const cards = game.legal.filter((a) => a !== "done");
                    const lead = game.legal.includes("done") && game.hand.some((h) => h.selected);
                    await act(lead && i % 3 ? "done" : (cards.length ? cards : game.legal)[(i * 7) % (cards.length || game.legal.length)]);
                  }
                })().then(() => done([bad, game.over]));""")
            assert problems == [[], True], (width, decks, problems)
            shot(browser, f"shengji-{decks}-decks-{width}")
    finally:
        viewport(browser, None)


def test_a_scrolled_phone_page_lays_the_table_out_as_an_unscrolled_one(browser, live_server):
    """On a 390x844 phone the person scrolls down to the hand to play; laying the table out again then
    moves the side panel below it (the page's height, so its scroll offset), and the places of the
    cards on the table must not be measured against seats measured before that jump: at every decision
    of whole Court Piece bazis, played from a scrolled page, no card on the table covers a seat."""
    try:
        viewport(browser, 390, 844)
        for variant, seat, seed in (("single_sar", "3", 15), ("double_sar", "1", 21), ("be_rang", "2", 32)):
            browser.get(f"{live_server}/?speed=0&seed={seed}")
            wait_for(browser, "setup")
            Select(browser.find_element(By.ID, "game")).select_by_value("courtpiece")
            Select(browser.find_element(By.ID, "opt")).select_by_value(variant)
            Select(browser.find_element(By.ID, "seat")).select_by_value(seat)
            browser.find_element(By.ID, "start").click()
            wait_for(browser, "turn", "over")
            problems = browser.execute_async_script("""
                const done = arguments[arguments.length - 1];
                const bad = [];
                const check = (i) => {
                  const felt = document.getElementById("felt");
                  const box = (e) => e.getBoundingClientRect();
                  const parts = [...felt.querySelectorAll(".seat > *")].map(box).filter((r) => r.width && r.height);
                  const plays = [...felt.querySelectorAll(".play")].map(box);
                  if (plays.some((p) => parts.some((q) => overlaps(p, q, 0)))) bad.push([i, "a play over a seat"]);
                };
                (async () => {
                  for (let i = 0; i < 100 && !game.over; i++) {
                    check(i);
                    document.getElementById("hand").scrollIntoView({block: "center"});
                    await act(game.legal[(i * 7) % game.legal.length]);
                  }
                  check("end");
                })().then(() => done([bad, game.over]));""")
            assert problems == [[], True], (variant, problems)
    finally:
        viewport(browser, None)
