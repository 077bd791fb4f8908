// The cardzoo web table: plain JS over the JSON API (cardzoo/web/server.py). No build step.
"use strict";

const $ = (id) => document.getElementById(id);
const SUITS = { C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660" };
const SUIT_ORDER = { S: 0, H: 1, C: 2, D: 3 };            // alternate colours in a hand
const RANK_ORDER = "23456789TJQKA";
let META = null;
let game = null;        // the current state from the server (play mode)
let replay = null;      // {frames, record, pos} (replay mode)
let mode = "play";
let busy = false;

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function setState(s) { document.body.dataset.state = s; }

function showError(msg) {
  const box = $("error");
  box.textContent = msg || "";
  box.hidden = !msg;
}

async function api(method, url, body) {
  const opts = { method, headers: {} };
  if (body !== undefined) {
    opts.headers["Content-Type"] = "application/json";
    opts.body = typeof body === "string" ? body : JSON.stringify(body);
  }
  const res = await fetch(url, opts);
  const data = await res.json().catch(() => ({ error: `HTTP ${res.status}` }));
  if (!res.ok) throw new Error(data.error || `HTTP ${res.status}`);
  return data;
}

// ---- cards ---------------------------------------------------------------------------------------
function cardEl(text, mini) {
  const c = el("div", "card" + (mini ? " mini" : ""));
  c.dataset.card = text;
  if (text === "LJ" || text === "BJ") {
    c.classList.add("joker");
    if (text === "BJ") c.classList.add("red");
    c.append(el("span", "rank", "JOKER"), el("span", "pip", "\u2605"));
    c.title = text === "BJ" ? "big joker" : "little joker";
    return c;
  }
  const rank = text[0] === "T" ? "10" : text[0];
  const suit = text[1];
  if (suit === "H" || suit === "D") c.classList.add("red");
  c.append(el("span", "rank", rank), el("span", "corner", SUITS[suit]), el("span", "pip", SUITS[suit]));
  c.title = text;
  return c;
}

function backEl(mini) { return el("div", "card back" + (mini ? " mini" : "")); }

function sortKey(text) {
  if (text === "LJ") return 100;
  if (text === "BJ") return 101;
  return SUIT_ORDER[text[1]] * 20 + RANK_ORDER.indexOf(text[0]);
}

function sortedCards(cards) { return [...cards].sort((a, b) => sortKey(a) - sortKey(b)); }

// ---- the table -----------------------------------------------------------------------------------
function seatPos(rel, n, radius) {
  const angle = Math.PI / 2 + (2 * Math.PI * rel) / n;   // rel 0 at the bottom, then around
  return [50 + radius[0] * Math.cos(angle), 50 + radius[1] * Math.sin(angle)];
}

function drawTable(view, opts) {
  // opts: {viewer, players, freshSeat, showBottomHand}
  const felt = $("felt");
  felt.innerHTML = "";
  const n = view.seats.length;
  const rel = (s) => (s - opts.viewer + n) % n;
  for (const st of view.seats) {
    const r = rel(st.seat);
    const bottom = r === 0;
    // every hand face up (replays) takes more room: the seats move in
    const radius = opts.showBottomHand ? [34, 33] : view.pile ? [38, bottom ? 36 : 32] : bottom ? [40, 40] : [38, 38];
    const [x, y] = seatPos(r, n, radius);
    const box = el("div", "seat" + (view.actor === st.seat ? " acting" : ""));
    box.id = `seat-${st.seat}`;
    box.style.left = `${x}%`;
    box.style.top = `${y}%`;
    const plate = el("div", "plate");
    plate.append(`player_${st.seat} `);
    const who = opts.players ? opts.players[st.seat] : null;
    if (who) plate.append(el("span", "who", who === "human" ? "(you)" : who));
    for (const t of st.tags) plate.append(el("span", "tag", t));
    const cards = el("div", "fan small");
    const showCards = st.cards && (!bottom || opts.showBottomHand);
    if (showCards) {
      for (const c of sortedCards(st.cards)) cards.append(cardEl(c, true));
    } else if (!bottom) {
      for (let i = 0; i < Math.min(st.count, 8); i++) cards.append(backEl(true));
    }
    const extra = el("div", "fan small");
    for (const c of st.up || []) extra.append(cardEl(c, true));
    for (let i = 0; i < st.down; i++) extra.append(backEl(true));
    if (bottom && !opts.showBottomHand) box.append(extra, plate);    // the hand itself is below the table
    else if (r === 2 || (n > 4 && r > 1 && r < n - 1)) box.append(cards, extra, plate);
    else box.append(plate, cards, extra);
    if (!showCards && !bottom) box.append(el("div", "count", `${st.count} cards`));
    felt.append(box);
  }
  if (view.pile) {
    const pile = el("div");
    pile.id = "pile";
    for (const [s, cards] of view.table) {
      const play = el("div", "play-col");
      const row = el("div", "fan small");
      for (const c of cards) row.append(cardEl(c, true));
      play.append(row, el("div", "who", `player_${s}`));
      pile.append(play);
    }
    felt.append(pile);
  } else {
    for (const [s, cards] of view.table) {
      const [x, y] = seatPos(rel(s), n, opts.showBottomHand ? [13, 12] : [15, 17]);
      const play = el("div", "play" + (s === opts.freshSeat ? " fresh" : ""));
      play.style.left = `${x}%`;
      play.style.top = `${y}%`;
      play.dataset.seat = s;
      for (const c of cards) play.append(cardEl(c));
      felt.append(play);
    }
  }
  if (view.last) {
    const last = el("div", "last");
    last.append(el("div", "", view.last.title));
    const row = el("div", "cards");
    for (const [, cards] of view.last.plays) {
      const grp = el("div", "grp");
      for (const c of cards) grp.append(cardEl(c, true));
      row.append(grp);
    }
    last.append(row);
    felt.append(last);
  }
  felt.append(el("div", "phase", `phase: ${view.phase}`));
  const facts = $("facts");
  facts.innerHTML = "";
  for (const [k, v] of view.facts) {
    const tr = el("tr");
    tr.append(el("td", "", k), el("td", "", v));
    facts.append(tr);
  }
}

function drawLog(moves, current, mySeat) {
  const log = $("log");
  log.innerHTML = "";
  moves.forEach((m, i) => {
    const li = el("li", (i === current ? "current" : "") + (m.seat === mySeat ? " mine" : ""),
      `player_${m.seat}: ${m.action}`);
    log.append(li);
  });
  const cur = log.children[current];   // keep the current move in view, else the newest
  log.scrollTop = cur ? cur.offsetTop - log.clientHeight / 2 : log.scrollHeight;
}

function drawResult(result, rewards, seat) {
  const box = $("result");
  if (!result && !rewards) { box.hidden = true; return; }
  box.hidden = false;
  box.innerHTML = "";
  const mine = seat === null || seat === undefined ? null : rewards[seat];
  let headline = "Game over";
  if (mine !== null) headline = mine > 0 ? `You won (${fmt(mine)})` : mine < 0 ? `You lost (${fmt(mine)})` : "A draw";
  box.className = mine !== null && mine < 0 ? "lost" : "";
  box.append(el("div", "headline", headline));
  const dl = el("dl");
  dl.append(el("dt", "", "rewards"), el("dd", "", rewards.map(fmt).join(" / ")));
  for (const [k, v] of Object.entries(result || {})) {
    dl.append(el("dt", "", k), el("dd", "", typeof v === "object" && v !== null ? JSON.stringify(v) : String(v)));
  }
  box.append(dl);
}

function fmt(x) { return (x > 0 ? "+" : "") + (Math.round(x * 1000) / 1000); }

// ---- play mode -----------------------------------------------------------------------------------
let fullLog = [];

function delay() { return Number($("speed").value); }
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function showState(state) {
  // the bots' moves, one at a time, then the position where the human acts (or the end)
  busy = true;
  setState("busy");
  drawHand(state, false);
  let prev = null;
  for (const frame of state.frames) {
    fullLog.push(frame.move);
    const key = JSON.stringify([frame.table, frame.last, frame.facts]);
    drawTable(frame, { viewer: state.seat, players: state.players, freshSeat: frame.move.seat });
    drawLog(fullLog, fullLog.length - 1, state.seat);
    if (key !== prev && delay() > 0) await sleep(delay());
    prev = key;
  }
  game = state;
  busy = false;
  drawTable(state.view, { viewer: state.seat, players: state.players, freshSeat: null,
                          showBottomHand: false });
  drawLog(fullLog, -1, state.seat);
  drawHand(state, true);
  drawResult(state.over ? state.result : null, state.over ? state.rewards : null, state.seat);
  const dl = $("download");
  dl.hidden = false;
  dl.href = `/api/games/${state.id}/record`;
  $("to-replay").hidden = !state.over;
  setState(state.over ? "over" : state.your_turn ? "turn" : "waiting");
}

function drawHand(state, live) {
  $("hand-area").hidden = false;
  const hand = $("hand");
  hand.innerHTML = "";
  for (const h of state.hand) {   // in the server's order (Sheng Ji: trumps last)
    const c = cardEl(h.card);
    if (h.selected) c.classList.add("selected");
    else if (live && h.action) {
      c.classList.add("playable");
      c.dataset.action = h.action;
      c.addEventListener("click", () => act(h.action));
    } else c.classList.add("dim");
    hand.append(c);
  }
  // overlap the cards just enough for the whole hand to fit in one row (two-deck Sheng Ji: 33 cards)
  const n = hand.children.length;
  const width = 64;
  const step = n > 1 ? Math.min(46, (hand.clientWidth - width) / (n - 1)) : 0;
  [...hand.children].forEach((c, i) => { c.style.marginLeft = i ? `${step - width}px` : "0"; });
  const buttons = $("buttons");
  buttons.innerHTML = "";
  if (live) {
    for (const a of state.buttons) {
      const b = el("button", "", a);
      b.type = "button";
      b.dataset.action = a;
      b.addEventListener("click", () => act(a));
      buttons.append(b);
    }
  }
  const prompt = $("prompt");
  prompt.className = live && state.your_turn ? "turn" : "";
  prompt.textContent = !live ? "The others are playing..." : state.over ? "The game is over." :
    state.your_turn ? `Your turn (${state.phase}): ${state.hand.some((h) => h.action) ? "click a card" : "choose"}` +
      (state.buttons.length && state.hand.some((h) => h.action) ? " or a button" : "") :
      `Waiting for player_${state.to_act}`;
}

async function act(action) {
  if (busy || !game) return;
  busy = true;
  setState("busy");
  showError("");
  try {
    await showState(await api("POST", `/api/games/${game.id}/actions`, { action }));
  } catch (e) {
    busy = false;
    setState(game.your_turn ? "turn" : "waiting");
    showError(e.message);
  }
}

async function startGame() {
  if (busy) return;
  showError("");
  const g = $("game").value;
  const optName = Object.keys(META.games[g].options)[0];
  let optValue = $("opt").value;
  if (/^\d+$/.test(optValue)) optValue = Number(optValue);
  const spec = $("opponents").value === "other" ? $("spec").value.trim() : $("opponents").value;
  busy = true;
  setState("busy");
  $("prompt").textContent = "Dealing...";
  try {
    const body = { game: g, config: { [optName]: optValue }, seat: Number($("seat").value), opponents: spec };
    const seed = new URLSearchParams(location.search).get("seed");   // ?seed=N: the same deal again
    if (seed !== null) body.seed = Number(seed);
    const state = await api("POST", "/api/games", body);
    fullLog = [];
    $("result").hidden = true;
    await showState(state);
  } catch (e) {
    busy = false;
    setState("setup");
    showError(e.message);
  }
}

function fillOptions() {
  const g = META.games[$("game").value];
  const [name, values] = Object.entries(g.options)[0];
  $("opt-name").textContent = name.replace("_", " ");
  $("opt").innerHTML = "";
  for (const v of values) $("opt").append(new Option(String(v).replace(/_/g, " "), v));
  if (name === "num_players") $("opt").value = "4";
  const opp = $("opponents");
  const old = opp.value;
  opp.innerHTML = "";
  for (const a of g.agents) opp.append(new Option(a, a));
  if (g.learned) opp.append(new Option("learned (shipped checkpoint)", g.learned));
  opp.append(new Option("other spec...", "other"));
  if ([...opp.options].some((o) => o.value === old)) opp.value = old;
  fillSeats();
}

function fillSeats() {
  const g = META.games[$("game").value];
  const n = Object.keys(g.options)[0] === "num_players" ? Number($("opt").value) : g.players;
  const old = $("seat").value;
  $("seat").innerHTML = "";
  for (let s = 0; s < n; s++) $("seat").append(new Option(`player_${s}`, s));
  if (old && Number(old) < n) $("seat").value = old;
}

// ---- replay mode ---------------------------------------------------------------------------------
async function loadReplay(text) {
  showError("");
  try {
    const data = await api("POST", "/api/replays", text);
    replay = { ...data, pos: 0 };
    drawReplay();
  } catch (e) {
    showError(e.message);
  }
}

function drawReplay() {
  if (!replay) return;
  const f = replay.frames[replay.pos];
  const players = replay.players;
  const human = players ? players.indexOf("human") : -1;
  const last = replay.pos === replay.frames.length - 1;
  drawTable(f, { viewer: human >= 0 ? human : 0, players, freshSeat: f.move ? f.move.seat : null,
                 showBottomHand: true });
  const moves = replay.frames.slice(1).map((fr) => fr.move);
  drawLog(moves, replay.pos - 1, human);
  $("rp-pos").textContent = `${replay.pos} / ${replay.frames.length - 1}`;
  $("rp-first").disabled = $("rp-prev").disabled = replay.pos === 0;
  $("rp-next").disabled = $("rp-last").disabled = last;
  const rec = replay.record;
  drawResult(last && rec.over ? rec.result : null, last && rec.over ? rec.rewards : null, human >= 0 ? human : null);
  setState(last ? "replay-end" : "replay");
}

function step(to) {
  if (!replay) return;
  replay.pos = Math.max(0, Math.min(replay.frames.length - 1, to));
  drawReplay();
}

function setMode(m) {
  mode = m;
  $("tab-play").classList.toggle("active", m === "play");
  $("tab-replay").classList.toggle("active", m === "replay");
  $("setup").hidden = m !== "play";
  $("replay-bar").hidden = m !== "replay";
  $("hand-area").hidden = m !== "play" || !game;
  $("download").hidden = m !== "play" || !game;
  $("to-replay").hidden = m !== "play" || !game || !game.over;
  showError("");
  if (m === "replay") {
    if (replay) drawReplay();
    else {
      $("felt").innerHTML = '<div id="welcome">Load a record: a file, or paste its JSON.</div>';
      $("facts").innerHTML = $("log").innerHTML = "";
      $("result").hidden = true;
      setState("replay-empty");
    }
  } else if (game) {
    drawTable(game.view, { viewer: game.seat, players: game.players });
    drawLog(fullLog, -1, game.seat);
    drawResult(game.over ? game.result : null, game.over ? game.rewards : null, game.seat);
    setState(game.over ? "over" : game.your_turn ? "turn" : "waiting");
  }
}

// ---- wiring --------------------------------------------------------------------------------------
async function init() {
  META = await api("GET", "/api/meta");
  for (const [g, m] of Object.entries(META.games)) $("game").append(new Option(m.title, g));
  const params = new URLSearchParams(location.search);
  if (params.has("speed")) $("speed").value = params.get("speed");
  fillOptions();
  $("game").addEventListener("change", fillOptions);
  $("opt").addEventListener("change", fillSeats);
  $("opponents").addEventListener("change", () => { $("spec-label").hidden = $("opponents").value !== "other"; });
  $("start").addEventListener("click", startGame);
  $("tab-play").addEventListener("click", () => setMode("play"));
  $("tab-replay").addEventListener("click", () => setMode("replay"));
  $("rp-load").addEventListener("click", () => loadReplay($("rp-text").value));
  $("rp-file").addEventListener("change", async (ev) => {
    const f = ev.target.files[0];
    if (f) loadReplay(await f.text());
  });
  $("rp-first").addEventListener("click", () => step(0));
  $("rp-prev").addEventListener("click", () => step(replay.pos - 1));
  $("rp-next").addEventListener("click", () => step(replay.pos + 1));
  $("rp-last").addEventListener("click", () => step(replay.frames.length));
  document.addEventListener("keydown", (ev) => {
    if (mode !== "replay" || ev.target.tagName === "TEXTAREA" || !replay) return;
    if (ev.key === "ArrowRight") step(replay.pos + 1);
    if (ev.key === "ArrowLeft") step(replay.pos - 1);
  });
  $("to-replay").addEventListener("click", async () => {
    setMode("replay");
    // the record's text as the server wrote it: JSON.parse would round seeds above 2**53
    const res = await fetch(`/api/games/${game.id}/record`);
    loadReplay(await res.text());
  });
  setState("setup");
}

init().catch((e) => showError(e.message));
