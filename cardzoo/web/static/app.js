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

async function errorOf(res) {
  // the server's {"error": ...} message of a failed response
  const data = await res.json().catch(() => ({}));
  return (data && data.error) || `HTTP ${res.status}`;
}

async function api(method, url, body) {
  const opts = { method, headers: {} };
  if (body !== undefined) {
    opts.headers["Content-Type"] = "application/json";
    opts.body = typeof body === "string" ? body : JSON.stringify(body);
  }
  const res = await fetch(url, opts);
  if (!res.ok) throw new Error(await errorOf(res));
  return res.json();
}

// numbers for display: at most 3 decimals, no trailing zeros (float32 rewards: -0.3333333432674408 -> -0.333)
function num(x) {
  if (!Number.isFinite(x) || Number.isInteger(x)) return String(x);
  const r = Number(x.toFixed(3));
  return String(Object.is(r, -0) ? 0 : r);
}

function fmt(x) { return (x > 0 ? "+" : "") + num(x); }

function fmtValue(v) {
  // a result value as compact JSON, its numbers through num()
  if (typeof v === "number") return num(v);
  if (Array.isArray(v)) return `[${v.map(fmtValue).join(", ")}]`;
  if (v && typeof v === "object") {
    return `{${Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}: ${fmtValue(x)}`).join(", ")}}`;
  }
  return typeof v === "string" ? v : JSON.stringify(v);
}

function shortSpec(spec) {
  // an agent spec with every file path cut to its file name: learned:/long/path/shengji.pt -> learned:shengji.pt
  return spec.replace(/[^:,=]*[\/\\]([^:,=\/\\]*)/g, "$1");
}

// ---- cards ---------------------------------------------------------------------------------------
function cardEl(text, mini) {
  const c = el("div", "card" + (mini ? " mini" : ""));
  c.dataset.card = text;
  if (text === "LJ" || text === "BJ") {
    // big and little joker told apart by their text and star as well as by colour
    const big = text === "BJ";
    c.classList.add("joker", big ? "big" : "little");
    if (big) c.classList.add("red");
    c.append(el("span", "rank", text), el("span", "corner", "JOKER"), el("span", "pip", big ? "\u2605" : "\u2606"));
    c.title = big ? "big joker" : "little joker";
    return c;
  }
  const rank = text[0] === "T" ? "10" : text[0];
  const suit = text[1];
  if (suit === "H" || suit === "D") c.classList.add("red");
  c.append(el("span", "rank", rank), el("span", "corner", SUITS[suit]), el("span", "pip", SUITS[suit]));
  c.title = text;
  return c;
}

const SHOWN_AS_CARDS = 6;   // a seat's shown (known) cards up to this many are drawn as cards, more as text

function cardText(text) {
  // a card as a short coloured text: "10♥", "BJ"
  const joker = text === "LJ" || text === "BJ";
  const red = joker ? text === "BJ" : text[1] === "H" || text[1] === "D";
  const t = el("span", "ct" + (red ? " red" : ""), joker ? text : (text[0] === "T" ? "10" : text[0]) + SUITS[text[1]]);
  t.dataset.card = text;
  return t;
}

function backEl(mini) { return el("div", "card back" + (mini ? " mini" : "")); }

function sortKey(text) {
  if (text === "LJ") return 100;
  if (text === "BJ") return 101;
  return SUIT_ORDER[text[1]] * 20 + RANK_ORDER.indexOf(text[0]);
}

function sortedCards(cards) { return [...cards].sort((a, b) => sortKey(a) - sortKey(b)); }

// ---- the table -----------------------------------------------------------------------------------
let lastTable = null;   // drawTable's latest arguments: the table is drawn again when the window is resized

function seatPos(rel, n, radius) {
  const angle = Math.PI / 2 + (2 * Math.PI * rel) / n;   // rel 0 at the bottom, then around
  return [50 + radius[0] * Math.cos(angle), 50 + radius[1] * Math.sin(angle)];
}

// a box in page coordinates: laying out the table empties and fills the side panel, which on a phone
// lies below it, so the page's height and a scrolled page's scroll offset change between measurements
// that are compared (viewport boxes measured before and after such a jump disagree)
const rectOf = (e) => {
  const r = e.getBoundingClientRect();
  return { left: r.left + scrollX, right: r.right + scrollX, top: r.top + scrollY, bottom: r.bottom + scrollY,
           width: r.width, height: r.height };
};

function overlaps(a, b, gap = 3) {
  return a.left < b.right + gap && b.left < a.right + gap && a.top < b.bottom + gap && b.top < a.bottom + gap;
}

function seatParts(felt) {
  // what a card on the table must not cover: every seat's plate, fans and card count
  return [...felt.querySelectorAll(".seat > *")].map(rectOf).filter((r) => r.width && r.height);
}

function welcome(html) {
  // an empty table with a line of text
  lastTable = null;
  $("felt").innerHTML = `<div class="welcome"><p>${html}</p></div>`;
  $("facts").innerHTML = $("log").innerHTML = $("last-slot").innerHTML = "";
  $("result").hidden = true;
}

function drawTable(view, opts) {
  // opts: {viewer, players, freshSeat, showBottomHand}
  lastTable = [view, opts];
  const felt = $("felt");
  const narrow = felt.clientWidth < 560;   // a phone: smaller cards on the table, fewer card backs
  felt.classList.toggle("narrow", narrow);
  const n = view.seats.length;
  const rel = (s) => (s - opts.viewer + n) % n;
  // the seats with as many card backs as leave the cards on the table clear of every seat (a wide
  // multi-deck Sheng Ji play beside a seat with shown cards has no room otherwise), else fewer
  const sizes = narrow ? ["narrow", "compact"] : ["wide", "narrow", "compact"];
  sizes.find((size, k) => layoutFelt(felt, view, opts, rel, size, narrow) || k === sizes.length - 1);
  drawFacts(view);
}

function layoutFelt(felt, view, opts, rel, size, narrow) {
  // the seats (size: drawSeats's), LOPTI's pile, the last trick and the cards on the table; false if
  // some of those cards still cover a seat or each other
  felt.innerHTML = "";
  $("last-slot").innerHTML = "";
  const n = view.seats.length;
  drawSeats(felt, view, opts, rel, size);
  if (size !== "compact" && seatsOverlap(felt)) drawSeats(felt, view, opts, rel, "compact");   // no room for the card backs
  if (seatsOverlap(felt)) separateSeats(felt);                          // five seats on a phone
  let pile = null;
  if (view.pile) {
    pile = el("div");
    pile.id = "pile";
    const under = view.under || { plays: 0, cards: [] };
    if (under.plays) {   // the plays under the ones drawn: how many cards, which in the tooltip
      const col = el("div", "play-col");
      const stack = el("div", "stack", `+${under.cards.length}`);
      stack.title = `${under.cards.length} more card${under.cards.length === 1 ? "" : "s"} under these ` +
        `(${under.plays} play${under.plays === 1 ? "" : "s"}): ${under.cards.join(" ")}`;
      col.append(stack, el("div", "who", "under"));
      pile.append(col);
    }
    for (const [s, cards] of view.table) {
      const play = el("div", "play-col");
      const row = el("div", "fan small");
      for (const c of cards) {
        const card = cardEl(c, true);
        card.title = `${c}, player_${s}`;
        row.append(card);
      }
      play.append(row, el("div", "who", `player_${s}`));
      pile.append(play);
    }
    felt.append(pile);
  }
  const obstacles = seatParts(felt);
  if (pile) {
    // the middle, else as near it, up or down, as it goes clear of the seats; else its plays overlapped
    // (who played each card: its tooltip, and the log)
    const clear = () => [0, -3, 3, -6, 6, -9, 9, -12, 12, -15, 15, -18, 18, -21, 21].some((dy) => {
      pile.style.top = `${50 + dy}%`;
      return !obstacles.some((o) => overlaps(rectOf(pile), o));
    });
    if (!clear()) {
      pile.classList.add("tight");
      if (!clear()) pile.style.top = "50%";
    }
    obstacles.push(rectOf(pile));
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
    // a free corner of the table (its cards overlapped if need be), else the side panel
    felt.append(last);
    const corner = ["", " tight"].flatMap((t) => ["tl", "bl", "tr", "br"].map((c) => c + t)).find((c) => {
      last.className = `last ${c}`;
      const box = rectOf(last);
      return !obstacles.some((o) => overlaps(box, o, 6));
    });
    if (corner) obstacles.push(rectOf(last));
    else {
      last.className = "last";
      $("last-slot").append(last);
    }
  }
  if (view.pile) return true;
  return placePlays(felt, view, opts, rel, n, obstacles, narrow) ||
    (!narrow && placePlays(felt, view, opts, rel, n, obstacles, true));     // no room: smaller cards
}

function drawFacts(view) {
  const facts = $("facts");
  facts.innerHTML = "";
  for (const [k, v] of [["Phase", view.phase], ...view.facts]) {
    const tr = el("tr");
    const text = typeof v === "string" ? v.replace(/-?\d+\.\d{4,}/g, (x) => num(Number(x))) : fmtValue(v);
    if (text.length > 24) {     // a long value (a failed throw, known cards) under its label, the row's width
      const td = el("td", "wide");
      td.colSpan = 2;
      td.append(el("span", "label", k), " ", el("span", "value", text));
      tr.append(td);
    } else tr.append(el("td", "", k), el("td", "", text));
    facts.append(tr);
  }
}

function drawSeats(felt, view, opts, rel, size) {
  // the seats round the rim; size: "wide", "narrow" (fewer card backs) or "compact" (only counts)
  felt.querySelectorAll(".seat").forEach((e) => e.remove());
  const n = view.seats.length;
  for (const st of view.seats) {
    const r = rel(st.seat);
    const bottom = r === 0;
    // each seat hugs the rim: at x% across the table, x% of its box lies left of that point, so no
    // box reaches past the edge however wide its plate or cards are
    const [x, y] = seatPos(r, n, [50, 50]);
    const where = bottom ? "bottom" : y < 20 ? "top" : "side";
    const box = el("div", `seat ${where} ${size}` + (view.actor === st.seat ? " acting" : ""));
    box.id = `seat-${st.seat}`;
    box.style.left = `calc(8px + (100% - 16px) * ${(x / 100).toFixed(4)})`;
    box.style.top = `calc(8px + (100% - 16px) * ${(y / 100).toFixed(4)})`;
    box.style.transform = `translate(${-x.toFixed(2)}%, ${-y.toFixed(2)}%)`;
    const plate = el("div", "plate");
    plate.append(el("span", "name", `player_${st.seat}`));
    const who = opts.players ? opts.players[st.seat] : null;
    if (who) {
      plate.append(" ", el("span", "who", who === "human" ? "(you)" : shortSpec(who)));
      plate.title = `player_${st.seat}: ${who}`;     // the full spec, a learned checkpoint's path too
    }
    for (const t of st.tags) plate.append(" ", el("span", "tag", t));
    let cards = el("div", "fan small");
    const showCards = st.cards && (!bottom || opts.showBottomHand);
    const caption = view.shown_as || "shown";
    if (showCards) {
      // the whole hand face up (a replay, a finished game): its shown (known) cards marked in it, as
      // cards, or where room is short and the hand long, as a line of card text
      const marks = new Map();
      for (const c of st.shown || []) marks.set(c, (marks.get(c) || 0) + 1);
      const asText = size === "compact" && st.cards.length > SHOWN_AS_CARDS;
      if (asText) cards = el("div", "cards-text");
      for (const c of sortedCards(st.cards)) {
        const card = asText ? cardText(c) : cardEl(c, true);
        if (marks.get(c)) {
          marks.set(c, marks.get(c) - 1);
          card.classList.add("marked");
          card.title = `${c} (${caption}: every seat knows this card is in the hand)`;
        }
        cards.append(card);
        if (asText) cards.append(" ");
      }
    } else if (!bottom) {
      cards.classList.add("backs");
      const most = { wide: 8, narrow: where === "side" ? 3 : 5, compact: 0 }[size];
      for (let i = 0; i < Math.min(st.count, most); i++) cards.append(backEl(true));
    }
    const extra = el("div", "fan small");
    for (const c of st.up || []) extra.append(cardEl(c, true));
    for (let i = 0; i < st.down; i++) extra.append(backEl(true));
    // the cards of this hand that every seat knows of (Sheng Ji: declared copies, retracted throw cards;
    // LOPTI: known cards), in the server's order: a few as cards, more as a line of text
    const shown = el("div", "shown");
    if (st.shown && st.shown.length && !showCards) {
      shown.append(el("span", "caption", caption));
      if (st.shown.length <= SHOWN_AS_CARDS && size !== "compact") {
        const fan = el("div", "fan small");
        for (const c of st.shown) fan.append(cardEl(c, true));
        shown.append(fan);
      } else {
        const line = el("span", "cards-text");
        for (const c of st.shown) line.append(cardText(c), " ");
        shown.append(line);
      }
      shown.title = `player_${st.seat}: ${st.shown.join(" ")} (${caption}: every seat knows these cards)`;
    }
    // the person's own hand is below the table, its shown (known) cards marked there (drawHand)
    if (bottom && !opts.showBottomHand) box.append(extra, plate);
    else if (where === "top") box.append(cards, shown, extra, plate);      // the plate toward the middle
    else box.append(plate, cards, shown, extra);
    if (!showCards && !bottom) box.append(el("div", "count", `${st.count} card${st.count === 1 ? "" : "s"}`));
    felt.append(box);
  }
}

function overlappingSeats(felt) {
  // the pairs of seats whose plates or cards overlap
  const seats = [...felt.querySelectorAll(".seat")];
  const parts = seats.map((s) => [...s.children].map(rectOf).filter((r) => r.width && r.height));
  const pairs = [];
  parts.forEach((a, i) => parts.forEach((b, j) => {
    if (j > i && a.some((r) => b.some((q) => overlaps(r, q, 2)))) pairs.push([seats[i], seats[j]]);
  }));
  return pairs;
}

function seatsOverlap(felt) { return overlappingSeats(felt).length > 0; }

function overlapScore(felt) {
  // how badly the seats overlap: each pair of overlapping parts of two seats, a part that is a plate
  // (a name) ten times, two plates a hundred times
  const parts = [...felt.querySelectorAll(".seat")].map((s) => [...s.children].filter((e) => {
    const r = rectOf(e);
    return r.width && r.height;
  }).map((e) => [rectOf(e), e.classList.contains("plate")]));
  let score = 0;
  parts.forEach((a, i) => parts.slice(i + 1).forEach((b) => a.forEach(([r, pr]) => b.forEach(([q, pq]) => {
    if (overlaps(r, q, 2)) score += pr && pq ? 100 : pr || pq ? 10 : 1;
  }))));
  return score;
}

const SEAT_MIN_WIDTH = 112;   // a plate's name, and a fan of three mini cards a row

function separateSeats(felt) {
  // seats that overlap even without card backs (five seats on a phone): the boxes of overlapping
  // seats narrowed a step at a time, down to SEAT_MIN_WIDTH (their plates and fans wrap)
  for (let round = 0; round < 10; round++) {
    const pairs = overlappingSeats(felt);
    if (!pairs.length) return;
    let narrowed = false;
    for (const box of new Set(pairs.flat())) {
      const width = rectOf(box).width;
      const next = Math.max(SEAT_MIN_WIDTH, Math.floor(width * 0.9));
      if (next < width - 0.5) {
        box.style.maxWidth = `${next}px`;
        narrowed = true;
      }
    }
    if (!narrowed) break;
  }
  // then a seat of a pair that still overlaps moved down (the lower one) or up, as far as clears the
  // other and stays on the table, where that makes the overlap less bad (overlapScore)
  const inner = rectOf(felt);
  for (let round = 0; round < 8; round++) {
    const pairs = overlappingSeats(felt);
    if (!pairs.length) return;
    const before = overlapScore(felt);
    let better = false;
    for (const [a, b] of pairs) {
      const [upper, lower] = rectOf(a).top <= rectOf(b).top ? [a, b] : [b, a];
      const shift = rectOf(upper).bottom + 4 - rectOf(lower).top;
      const moves = [[lower, shift], [upper, -shift]].filter(([box, dy]) =>
        rectOf(box).bottom + dy <= inner.bottom - 10 && rectOf(box).top + dy >= inner.top + 10);
      for (const [box, dy] of moves) {
        const old = box.style.marginTop;
        box.style.marginTop = `${(parseFloat(old) || 0) + dy}px`;
        if (overlapScore(felt) < before) { better = true; break; }
        box.style.marginTop = old;
      }
      if (better) break;
    }
    if (!better) return;
  }
}

function placePlays(felt, view, opts, rel, n, obstacles, mini) {
  // the cards each seat has on the table, between the seat and the middle: moved toward the middle as
  // far as they must not to cover a plate, a hand or another play. False if some still overlap.
  felt.querySelectorAll(".play").forEach((p) => p.remove());
  const base = opts.showBottomHand ? [13, 12] : [15, 17];
  const placed = [];
  let clear = true;
  for (const [s, cards] of view.table) {
    const play = el("div", "play" + (s === opts.freshSeat ? " fresh" : "") + (mini ? " mini" : ""));
    play.dataset.seat = s;
    for (const c of cards) play.append(cardEl(c, mini));
    felt.append(play);
    let ok = false;
    for (let f = 1; f >= -0.01 && !ok; f -= 0.1) {
      const [x, y] = seatPos(rel(s), n, [base[0] * f, base[1] * f]);
      play.style.left = `${x}%`;
      play.style.top = `${y}%`;
      const box = rectOf(play);
      ok = !obstacles.some((o) => overlaps(box, o)) && !placed.some((p) => overlaps(box, p));
    }
    if (!ok) {   // nowhere free: its nominal place
      const [x, y] = seatPos(rel(s), n, base);
      play.style.left = `${x}%`;
      play.style.top = `${y}%`;
      clear = false;
    }
    placed.push(rectOf(play));
  }
  return clear;
}

function drawLog(moves, current, mySeat) {
  const log = $("log");
  log.innerHTML = "";
  // room left of the items for the widest move number ("1234. "), in the log's monospace digits
  log.style.setProperty("--digits", String(Math.max(moves.length, 1)).length);
  moves.forEach((m, i) => {
    const li = el("li", (i === current ? "current" : "") + (m.seat === mySeat ? " mine" : ""),
      `player_${m.seat}: ${m.label || m.action}`);     // the action in words where the server gives them
    if (m.label) li.title = m.action;
    log.append(li);
  });
}

function scrollLog() {
  // the current move in the middle of the log, else the newest at its bottom. Called after the result
  // box is drawn: that box takes its height from the log.
  const log = $("log");
  const cur = log.querySelector("li.current");
  log.scrollTop = cur ? cur.offsetTop - (log.clientHeight - cur.offsetHeight) / 2 : log.scrollHeight;
}

function drawResult(summary) {
  // the server's summary of a finished game (views.result_view): a headline for the human's seat, rows
  const box = $("result");
  if (!summary) { box.hidden = true; return; }
  box.hidden = false;
  box.innerHTML = "";
  box.className = summary.tone;     // won, lost or even
  box.append(el("div", "headline", summary.headline));
  const dl = el("dl");
  for (const [k, v] of summary.rows) dl.append(el("dt", "", k), el("dd", "", v));
  box.append(dl);
}

// ---- play mode -----------------------------------------------------------------------------------
let fullLog = [];

function delay() { return Number($("speed").value); }
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function playState(s) { if (mode === "play") setState(s); }   // the Replay tab keeps its own state

async function showState(state) {
  // the bots' moves, one at a time, then the position where the human acts (or the end)
  busy = true;
  playState("busy");
  if (mode === "play") drawHand(state, false);
  let prev = null;
  for (const frame of state.frames) {
    fullLog.push(frame.move);
    if (mode !== "play" || delay() <= 0) continue;     // the Replay tab is open, or instant: no show
    const key = JSON.stringify([frame.table, frame.last, frame.facts]);
    drawTable(frame, { viewer: state.seat, players: state.players, freshSeat: frame.move.seat });
    drawLog(fullLog, fullLog.length - 1, state.seat);
    scrollLog();
    if (key !== prev) await sleep(delay());
    prev = key;
  }
  game = state;
  busy = false;
  if (mode === "play") drawPlay();
}

function drawPlay() {
  // the Play tab as it stands: the live (or finished) game, else an empty table
  const over = !!(game && game.over);
  $("download").hidden = $("to-replay").hidden = !over;   // a live game's record would show every hand
  if (!game) {
    welcome("Choose a game and press <b>New game</b>, or open <b>Replay</b>.");
    $("hand-area").hidden = !busy;
    setState(busy ? "busy" : "setup");
    return;
  }
  $("download").href = `/api/games/${game.id}/record`;
  drawTable(game.view, { viewer: game.seat, players: game.players, freshSeat: null });
  drawLog(fullLog, -1, game.seat);
  drawHand(game, !busy);
  drawResult(over ? game.summary : null);
  scrollLog();
  setState(busy ? "busy" : over ? "over" : game.your_turn ? "turn" : "waiting");
}

function drawHand(state, live) {
  $("hand-area").hidden = false;
  const hand = $("hand");
  hand.innerHTML = "";
  // the cards of this hand every seat knows of (Sheng Ji: shown; LOPTI: known), one mark per copy
  const mine = state.view.seats.find((st) => st.seat === state.seat);
  const caption = state.view.shown_as || "shown";
  const marks = new Map();
  for (const c of (mine && mine.shown) || []) marks.set(c, (marks.get(c) || 0) + 1);
  for (const h of state.hand) {   // in the server's order (Sheng Ji: trumps last)
    const c = cardEl(h.card);
    if (marks.get(h.card)) {
      marks.set(h.card, marks.get(h.card) - 1);
      c.classList.add("marked");
      c.title += ` (${caption}: every seat knows this card is in your hand)`;
    }
    if (h.selected) c.classList.add("selected");
    else if (live && h.action) {
      c.classList.add("playable");
      c.dataset.action = h.action;
      c.addEventListener("click", () => act(h.action));
    } else c.classList.add("dim");
    hand.append(c);
  }
  layoutHand();
  $("hand-legend").textContent = hand.querySelector(".card.marked") ? `gold edge: ${caption} to every seat` : "";
  const buttons = $("buttons");
  buttons.innerHTML = "";
  if (live) {
    for (const a of state.buttons) {
      const b = el("button", "", (state.labels && state.labels[a]) || a);   // the action's words, else its name
      b.type = "button";
      b.dataset.action = a;
      b.addEventListener("click", () => act(a));
      buttons.append(b);
    }
  }
  const prompt = $("prompt");
  prompt.className = live && state.your_turn ? "turn" : "";
  prompt.textContent = !live ? "The others are playing..." : state.over ? "The game is over." :
    state.your_turn ? `Your turn (${state.phase}): ` + (state.hint ||
      (state.hand.some((h) => h.action) ? "click a card" : "choose") +
      (state.buttons.length && state.hand.some((h) => h.action) ? " or a button" : "")) :
      `Waiting for player_${state.to_act}`;
}

function layoutHand() {
  // overlap the cards just enough for the hand to fit the row (two-deck Sheng Ji: 33 cards); where
  // they would overlap too much to read (a phone), in rows of equal length
  const hand = $("hand");
  hand.querySelectorAll(".break").forEach((b) => b.remove());
  const cards = [...hand.querySelectorAll(".card")];
  const n = cards.length;
  if (!n) return;
  const width = cards[0].offsetWidth || 64;
  const room = hand.clientWidth - width - 1;
  let perRow = n;
  if (n > 1 && room / (n - 1) < 22) {
    const fits = Math.max(1, Math.floor(room / 22) + 1);
    perRow = Math.ceil(n / Math.ceil(n / fits));
  }
  const step = perRow > 1 ? Math.min(46, room / (perRow - 1)) : 0;
  cards.forEach((c, i) => {
    c.style.marginLeft = i % perRow ? `${step - width}px` : "0";
    if (i && i % perRow === 0) hand.insertBefore(el("div", "break"), c);
  });
}

async function act(action) {
  if (busy || !game) return;
  busy = true;
  playState("busy");
  showError("");
  try {
    await showState(await api("POST", `/api/games/${game.id}/actions`, { action }));
  } catch (e) {
    busy = false;
    if (mode === "play") drawPlay();
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
    const modes = META.games[g].modes;       // LOPTI: session mode, its config added to the option's
    const extra = modes ? modes.choices[Number($("mode").value)][1] : {};
    const body = { game: g, config: { [optName]: optValue, ...extra }, seat: Number($("seat").value), opponents: spec };
    const seed = new URLSearchParams(location.search).get("seed");   // ?seed=N: the same deal again
    if (seed !== null) body.seed = Number(seed);
    const state = await api("POST", "/api/games", body);
    game = null;         // the previous game is gone
    fullLog = [];
    $("result").hidden = $("download").hidden = $("to-replay").hidden = true;
    await showState(state);
  } catch (e) {
    busy = false;
    if (mode === "play") drawPlay();
    showError(e.message);
  }
}

async function downloadRecord(ev) {
  // fetched here rather than followed, so that a refusal is the page's error line, not a JSON page
  ev.preventDefault();
  showError("");
  try {
    const res = await fetch($("download").href);
    if (!res.ok) throw new Error(await errorOf(res));
    const name = /filename="([^"]+)"/.exec(res.headers.get("Content-Disposition") || "");
    const a = el("a");
    a.href = URL.createObjectURL(await res.blob());
    a.download = name ? name[1] : "record.json";
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 60000);
  } catch (e) {
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
  $("mode-label").hidden = !g.modes;
  $("mode").innerHTML = "";
  if (g.modes) {
    $("mode-name").textContent = g.modes.label;
    g.modes.choices.forEach(([label], i) => $("mode").append(new Option(label, i)));
  }
  const opp = $("opponents");
  const old = opp.value;
  opp.innerHTML = "";
  for (const a of g.agents) opp.append(new Option(a, a));
  if (g.learned) {
    const o = new Option("learned (shipped checkpoint)", g.learned);
    o.title = g.learned;
    opp.append(o);
  }
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
    if (mode === "replay") drawReplay();
  } catch (e) {
    showError(e.message);
  }
}

function drawReplay() {
  const none = !replay;
  const last = !none && replay.pos === replay.frames.length - 1;
  $("rp-first").disabled = $("rp-prev").disabled = none || replay.pos === 0;
  $("rp-next").disabled = $("rp-last").disabled = none || last;
  if (none) {
    $("rp-pos").textContent = "-";
    welcome("Load a record: a file, or paste its JSON.");
    setState("replay-empty");
    return;
  }
  const f = replay.frames[replay.pos];
  const players = replay.players;
  const human = players ? players.indexOf("human") : -1;
  drawTable(f, { viewer: human >= 0 ? human : 0, players, freshSeat: f.move ? f.move.seat : null,
                 showBottomHand: true });
  const moves = replay.frames.slice(1).map((fr) => fr.move);
  drawLog(moves, replay.pos - 1, human);
  $("rp-pos").textContent = `${replay.pos} / ${replay.frames.length - 1}`;
  drawResult(last ? replay.summary : null);
  scrollLog();
  setState(last ? "replay-end" : "replay");
}

function step(to) {
  if (!replay) return;     // nothing loaded yet
  replay.pos = Math.max(0, Math.min(replay.frames.length - 1, to));
  drawReplay();
}

function setMode(m) {
  mode = m;
  $("tab-play").classList.toggle("active", m === "play");
  $("tab-replay").classList.toggle("active", m === "replay");
  $("setup").hidden = m !== "play";
  $("replay-bar").hidden = m !== "replay";
  showError("");
  if (m === "replay") {
    $("hand-area").hidden = true;
    drawReplay();
  } else drawPlay();
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
  $("rp-prev").addEventListener("click", () => replay && step(replay.pos - 1));
  $("rp-next").addEventListener("click", () => replay && step(replay.pos + 1));
  $("rp-last").addEventListener("click", () => replay && step(replay.frames.length));
  document.addEventListener("keydown", (ev) => {
    const t = ev.target;     // not while typing a record
    if (t.tagName === "TEXTAREA" || (t.tagName === "INPUT" && t.type !== "file")) return;
    if (mode !== "replay" || !replay) return;      // nothing loaded: nothing to step
    if (ev.key === "ArrowRight") step(replay.pos + 1);
    if (ev.key === "ArrowLeft") step(replay.pos - 1);
  });
  $("download").addEventListener("click", downloadRecord);
  $("to-replay").addEventListener("click", async () => {
    const id = game.id;
    setMode("replay");
    try {
      // the record's text as the server wrote it: JSON.parse would round seeds above 2**53
      const res = await fetch(`/api/games/${id}/record`);
      if (!res.ok) throw new Error(await errorOf(res));
      await loadReplay(await res.text());
    } catch (e) {
      showError(e.message);
    }
  });
  // the table and the hand laid out again when their room changes (the window, a scroll bar, the error
  // line): once per frame, outside the observer's callback
  const sizes = new Map();
  let pending = false;
  const observer = new ResizeObserver((entries) => {
    let changed = false;
    for (const e of entries) {
      const w = Math.round(e.contentRect.width), h = Math.round(e.contentRect.height);
      const key = e.target.id === "hand" ? `${w}` : `${w}x${h}`;   // the hand's own rows change its height
      if (sizes.get(e.target.id) !== key) changed = sizes.has(e.target.id) || changed;
      sizes.set(e.target.id, key);
    }
    if (!changed || pending) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      if (lastTable) drawTable(...lastTable);
      if (!$("hand-area").hidden) layoutHand();
    });
  });
  observer.observe($("felt"));
  observer.observe($("hand"));
  setState("setup");
}

init().catch((e) => showError(e.message));
