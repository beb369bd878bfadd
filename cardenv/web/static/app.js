// cardenv web page: plain JavaScript, no build step, nothing fetched but this server's API.
// The server decides everything (legality, the agents' moves, what a seat may see); this file
// only draws its JSON messages and sends the person's clicks back (see docs/web.md). It knows no
// game: each game's presentation sends generic facts in its seat view (title, status, table,
// the seats' facts, center, extra, leader, select_hint), the message the game's extras (score
// against its marks, notes, the last trick) and /api/info its rules options and rules panel,
// and this file draws them the same way for every game. The other players' moves are asked for
// one at a time ("advance": false, then /advance), so the page shows who is thinking and each
// move as it comes, paced for people to follow (?pace=0 in the address: no pause, for tests).
"use strict";

const $ = (selector, root = document) => root.querySelector(selector);
const $$ = (selector, root = document) => Array.from(root.querySelectorAll(selector));

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(node.dataset, value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

const PACE_MS = 700;        // at least this long between two other players' moves
const TRICK_PAUSE_MS = 1600; // and this long after a trick ends, to read it
const pace = (() => {
  const asked = Number(new URLSearchParams(location.search).get("pace"));
  return Number.isFinite(asked) && asked >= 0 && new URLSearchParams(location.search).has("pace")
    ? asked : 1;
})();
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

const page = {
  info: null,
  // the games' terms in the page's language (English) unless the person chose Chinese
  lang: localStorage.getItem("cardenv-lang") || "en",
  game: null,          // the last message of the game being played
  selected: new Set(), // indices into game.view.hand
  trickSeen: null,     // the last trick already paused on (its hand and moves)
  // whether the message's last trick was paused on already (else: it is, now)
  shownTrick(message) {
    const key = JSON.stringify([message.id, message.last_trick.hand,
      message.last_trick.plays.map((p) => [p.seat, p.text])]);
    const seen = this.trickSeen === key;
    this.trickSeen = key;
    return seen;
  },
  replay: null,        // the record being watched (its header)
  step: null,          // the step shown
  closed: {},          // game id -> the last hand whose result the person closed
  advancing: false,    // the other players' moves are being asked for
  listed: false,       // the records folder's files have been listed
};

// --- talking to the server ------------------------------------------------------------------

async function api(method, path, body) {
  const url = path + (path.includes("?") ? "&" : "?") + "lang=" + encodeURIComponent(page.lang);
  const options = { method, headers: {} };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(url, options);
  let data;
  try {
    data = await response.json();
  } catch (e) {
    throw new Error(`the server answered HTTP ${response.status} without JSON`);
  }
  if (!response.ok) throw new Error(data.error || `HTTP ${response.status}`);
  return data;
}

async function busy(work) {
  document.body.dataset.state = "busy";
  try {
    await work();
  } catch (e) {
    showError(e.message);
  } finally {
    document.body.dataset.state = "ready";
  }
}

function showError(message) {
  const box = $("#error");
  box.textContent = message;
  box.hidden = !message;
}

// --- cards ----------------------------------------------------------------------------------

function cardEl(card, attrs = {}) {
  const joker = card === "SJ" || card === "BJ";
  const suit = joker ? "★" : card[0];
  const rank = joker ? card : card.slice(1);
  const red = card === "BJ" || suit === "♥" || suit === "♦";
  return el("span", Object.assign({
    class: "card" + (red ? " red" : "") + (joker ? " joker" : ""),
    title: joker ? (card === "BJ" ? "big joker (BJ)" : "small joker (SJ)") : card,
    dataset: { card },
  }, attrs), el("span", { class: "rank", text: rank }), el("span", { class: "suit", text: suit }));
}

function smallCards(cards) {
  return el("span", { class: "cards-small" }, (cards || []).map((c) => cardEl(c)));
}

function backs(count) {
  return el("span", { class: "backs", title: `${count} cards` }, el("span", { class: "back" }),
    `× ${count}`);
}

// The hand as groups to draw: Dabang's view groups it as players hold it (side suits, then the
// trump in strength order); a Dagong hand is one group.
function handGroups(v) {
  return v.hand_groups || [{ label: null, trump: false, suit: null, cards: v.hand }];
}

function drawGroups(v, card) {
  let i = 0;
  return handGroups(v).map((g) => el("span", {
    class: "hand-group" + (g.trump ? " trump" : ""),
    dataset: { label: g.label || "", trump: g.trump ? "true" : "false" },
  }, g.label ? el("span", { class: "group-label", text: g.label }) : null,
  g.cards.map((c) => card(c, i++))));
}

// the seat whose play is the one to beat (the view's leader: Dabang's play winning the trick so
// far, Dagong's standing play)
function winningSeat(v) {
  return v.leader ? v.leader.seat : null;
}

// a seat as people read it: its number and its player's readable label (a checkpoint's file
// name, "search (PIMC)"), never a long spec
function player(message, seat) {
  const name = (message.labels || message.players)[seat];
  return seat === message.seat ? `player_${seat} (you)` : `player_${seat} · ${name}`;
}

// --- choosing a game --------------------------------------------------------------------------

// A rules option's input, built from its spec (/api/info): a checkbox for a boolean, a list for
// a choice of words, a number for an int, else text read as JSON where it parses (5 or [5, 7]
// or null) and as a word otherwise ("random").
function optionInput(spec) {
  const attrs = { id: `opt-${spec.name}`, title: `${spec.doc} (${spec.expected})`,
    dataset: { option: spec.name, default: JSON.stringify(spec.default) } };
  const words = spec.choices && spec.choices.every((c) => typeof c === "string");
  const intOrNone = spec.ints && !spec.pair && (spec.choices || []).every((c) => c === null);
  if (spec.boolean) {
    return el("input", Object.assign(attrs, { type: "checkbox", checked: spec.default === true }));
  }
  if (words && !spec.ints && !spec.pair) {
    const select = el("select", attrs, spec.choices.map((c) => el("option", { value: c, text: c })));
    select.value = spec.default;
    return select;
  }
  if (intOrNone) {
    return el("input", Object.assign(attrs, { type: "number", min: spec.ints[0], max: spec.ints[1],
      value: spec.default === null ? "" : spec.default,
      placeholder: spec.default === null ? "none" : null }));
  }
  return el("input", Object.assign(attrs, { type: "text", placeholder: JSON.stringify(spec.default) }));
}

// The rules options set in the form that differ from their defaults.
function chosenOptions() {
  const options = {};
  for (const input of $$("#rules-options [data-option]")) {
    let value;
    if (input.type === "checkbox") value = input.checked;
    else if (input.value.trim() === "") continue;
    else if (input.type === "number") value = Number(input.value);
    else if (input.tagName === "SELECT") value = input.value;
    else {
      try {
        value = JSON.parse(input.value);
      } catch (e) {
        value = input.value.trim();
      }
    }
    if (JSON.stringify(value) !== input.dataset.default) options[input.dataset.option] = value;
  }
  return options;
}

function fillOptions(name) {
  const box = $("#rules-options");
  if (box.dataset.game === name && page.info.lang === box.dataset.lang) return;
  box.dataset.game = name;
  box.dataset.lang = page.info.lang;
  box.replaceChildren(el("legend", { text: "Rules options" }),
    ...(page.info.options[name] || []).map((spec) =>
      el("label", { title: `${spec.doc} (${spec.expected})` }, spec.name + " ", optionInput(spec))));
}

function fillSetup() {
  const info = page.info;
  const game = $("#game");
  if (!game.options.length) {
    for (const name of info.games) game.append(el("option", { value: name, text: name }));
  }
  document.body.dataset.game = game.value;
  fillOptions(game.value);
  const seat = $("#seat");
  if (!seat.options.length) {
    for (let s = 0; s < 4; s++) seat.append(el("option", { value: s, text: `player_${s}` }));
  }
  const box = $("#opponents");
  const before = $$("select", box).map((s) => s.value);
  box.replaceChildren();
  let k = 0;
  for (let s = 0; s < 4; s++) {
    if (s === Number(seat.value)) continue;
    const select = el("select", { id: `opp-${k}`, dataset: { seat: s } });
    for (const name of info.players) select.append(el("option", { value: name, text: name }));
    for (const entry of info.search || []) {
      if (entry.game === game.value) {
        select.append(el("option", { value: entry.spec, text: entry.label, title: entry.spec }));
      }
    }
    for (const c of info.checkpoints) {
      if (c.game === null || c.game === game.value) {
        select.append(el("option", { value: c.path, text: c.label || c.path, title: c.path }));
      }
    }
    const fallback = (info.defaults || {})[game.value] || "heuristic";
    const keep = before[k] && (page.setupGame === game.value || before[k] !== page.setupDefault);
    select.value = keep && $$("option", select).some((o) => o.value === before[k])
      ? before[k] : fallback;
    box.append(el("label", {}, `player_${s} `, select));
    k++;
  }
  page.setupGame = game.value;
  page.setupDefault = (info.defaults || {})[game.value] || "heuristic";
  drawHelp();
}

async function startGame(event) {
  event.preventDefault();
  const game = $("#game").value;
  const options = chosenOptions();
  const body = {
    game, seat: Number($("#seat").value), options, advance: false,
    opponents: $$("#opponents select").map((s) => s.value),
  };
  if ($("#seed").value !== "") body.seed = Number($("#seed").value);
  await busy(async () => {
    const message = await api("POST", "/api/games", body);
    showError("");
    location.hash = "game=" + message.id;
    showGame(message);
    await others();
  });
}

// The other players move one at a time, each asked for, while the page says who is thinking;
// paced so that a person sees each move (and a finished trick) before the next.
async function others() {
  if (page.advancing) return; // (a language change while they move: the running loop goes on)
  page.advancing = true;
  try {
    let last = Date.now(), first = true;
    while (page.game && page.game.thinking !== null && page.game.thinking !== undefined
           && !page.game.over) {
      const message = page.game;
      const pause = message.last_trick && !page.shownTrick(message) ? TRICK_PAUSE_MS
        : first ? 0 : PACE_MS;
      const wait = pause * pace - (Date.now() - last);
      first = false;
      if (wait > 0) await sleep(wait);
      if (!page.game || page.game.id !== message.id) return; // another game, or none
      last = Date.now();
      showGame(await api("POST", `/api/games/${message.id}/advance`, {}));
    }
  } finally {
    page.advancing = false;
  }
}

// --- playing ----------------------------------------------------------------------------------

function showGame(message) {
  const changed = !page.game || page.game.id !== message.id || page.game.version !== message.version;
  page.game = message;
  if (changed) page.selected.clear();
  showTab("play");
  $("#setup").hidden = true;
  $("#table").hidden = false;
  $("#table").dataset.version = message.version;
  $("#table").dataset.over = message.over;
  $("#table").dataset.yourTurn = message.your_turn;
  $("#table").dataset.thinking = message.thinking === null || message.thinking === undefined
    ? "" : message.thinking;
  document.body.dataset.game = message.game;
  drawStatus(message);
  drawScore(message.score || null);
  drawNotes(message.notes || []);
  drawHelp();
  drawBoard(message);
  drawHand(message);
  drawChoices(message.choices || null);
  drawMoves(message);
  drawLog(message);
  drawResults(message);
}

function drawStatus(message) {
  const v = message.view;
  const items = [[v.title, ""], ...v.status];
  $("#status").replaceChildren(...items.map(([k, value]) =>
    el("span", {}, value === "" ? el("b", { text: k }) : [k + ": ", el("b", { text: String(value) })])));
}

function seatBox(message, row, lastEntry) {
  const v = message.view;
  const facts = row.facts;
  const winning = winningSeat(v) === row.seat;
  const box = el("div", {
    class: "seat" + (v.to_act === row.seat ? " to-act" : "") + (winning ? " winning" : ""),
    dataset: { seat: row.seat },
  },
  el("div", {}, el("span", { class: "name", text: player(message, row.seat) }),
    row.role ? el("span", { class: "badge", text: row.role }) : null,
    winning ? el("span", { class: "badge winning", text: v.leader.label })
      : null),
  el("div", { class: "facts" }, backs(row.cards), " ", facts.join(" · ")),
  lastEntry ? el("div", { class: "last" }, "last: " + lastEntry.text + " ",
    smallCards(lastEntry.cards)) : null);
  return box;
}

function drawBoard(message) {
  const v = message.view;
  const last = {};
  for (const entry of message.log) {
    if (entry.hand === v.hand_number) last[entry.seat] = entry;
  }
  const places = ["bottom", "right", "top", "left"];
  for (const row of v.seats) {
    const where = places[(row.seat - message.seat + 4) % 4];
    $(`#board .pos.${where}`).replaceChildren(seatBox(message, row, last[row.seat]));
  }
  $("#center").replaceChildren(...centerParts(v, (s) => player(message, s)),
    lastTrick(message));
}

// The trick ended last, kept in the table's middle until the next lead: each move of it as the
// log shows it, the play that took it marked, and who took it in words.
function lastTrick(message) {
  const t = message.last_trick;
  if (!t) return "";
  const name = (s) => player(message, s);
  const said = t.text.split("{player}");
  // the play that took it: the winner's last play with cards
  const took = t.plays.map((p, i) => (p.seat === t.winner && p.cards.length ? i : -1))
    .reduce((a, b) => Math.max(a, b), -1);
  return el("div", { id: "last-trick", class: "last-trick", dataset: { hand: t.hand,
    winner: t.winner === null ? "" : t.winner } },
  el("div", { class: "last-trick-title", text: `Last trick (hand ${t.hand})` }),
  t.plays.map((p, i) => el("div", {
    class: "play" + (i === took ? " winning" : ""), dataset: { seat: p.seat },
  }, `${name(p.seat)}: ${p.text} `, p.cards.length ? smallCards(p.cards) : null,
  i === took ? el("span", { class: "badge winning", text: "took it" }) : null)),
  el("div", { class: "last-trick-said" },
    said.flatMap((piece, i) => (i ? [name(t.seat), piece] : [piece]))));
}

// The game's score against its marks (Dabang: the attackers' points, 120 / 160 / 200), drawn
// as a bar with a tick at each mark, and its facts.
function drawScore(score) {
  const box = $("#score");
  box.hidden = !score;
  if (!score) {
    box.replaceChildren();
    return;
  }
  const at = (x) => `${Math.min(100, (100 * x) / score.max)}%`;
  box.replaceChildren(
    el("div", { class: "score-head" }, el("b", { text: score.title + ": " }),
      el("span", { class: "score-value", text: String(score.value) })),
    el("div", { class: "score-bar", title: score.text },
      el("div", { class: "score-fill", style: `width: ${at(score.value)}` }),
      score.marks.map((m) => el("div", {
        class: "score-mark" + (m.reached ? " reached" : ""), style: `left: ${at(m.at)}`,
        title: m.label, dataset: { at: m.at },
      }, el("span", { text: String(m.at) })))),
    el("div", { class: "score-facts" }, score.facts.map(([k, v]) =>
      el("span", {}, k + ": ", el("b", { text: String(v) })))),
    el("div", { class: "hint", text: score.text }));
}

// What happened in words (the tribute, the burial: how many cards, which went where).
function drawNotes(notes) {
  const box = $("#notes");
  box.hidden = !notes.length;
  box.replaceChildren(...notes.map((n) => el("li", { text: n })));
}

// The rules panel of the game being played, or chosen in the form.
function drawHelp() {
  if (!page.info) return;
  const game = page.game && !$("#table").hidden ? page.game.game : $("#game").value;
  const help = (page.info.help || {})[game];
  $("#help-toggle").hidden = !help;
  const box = $("#help");
  if (!help) {
    box.hidden = true;
    return;
  }
  box.dataset.game = game;
  $("#help-lines").replaceChildren(...help.lines.map((line) => el("li", { text: line })));
  $("#help-terms").replaceChildren(...help.terms.map(([term, english]) =>
    el("span", { class: "term" }, el("b", { text: term }), " " + english)));
}

// The table's middle as the view describes it: texts naming seats ("{player}"), cards, badges.
function centerParts(v, name) {
  return v.center.map((part) => {
    const children = [];
    if (part.text) {
      part.text.split("{player}").forEach((piece, i) => {
        if (i) children.push(name(part.seat));
        children.push(piece);
      });
    }
    if (part.cards) children.push(smallCards(part.cards));
    if (part.badge) {
      children.push(el("span", { class: "badge" + (part.winning ? " winning" : ""), text: part.badge }));
    }
    const classes = [part.kind, part.winning ? "winning" : null].filter(Boolean).join(" ");
    return el("div", {
      class: classes || null,
      dataset: part.seat === null || part.seat === undefined ? undefined : { seat: part.seat },
    }, children);
  });
}

function drawHand(message) {
  const v = message.view;
  const hand = $("#hand");
  hand.replaceChildren(...drawGroups(v, (card, i) => cardEl(card, { dataset: { card, index: i } })));
  $$(".card", hand).forEach((node) => {
    if (page.selected.has(Number(node.dataset.index))) node.classList.add("selected");
    node.addEventListener("click", () => toggleCard(Number(node.dataset.index), node));
  });
  const extra = v.extra;
  $("#hand-extra").replaceChildren(...extra.map(([label, cards]) =>
    el("div", {}, label + ": ", smallCards(cards))));
  const canSelect = message.your_turn && message.card_select;
  $("#play-cards").disabled = !canSelect;
  $("#clear-cards").disabled = !canSelect;
  $("#selection-note").textContent = !message.your_turn ? "" : canSelect
    ? v.select_hint : "Choose a move from the list.";
  const thinking = message.thinking !== null && message.thinking !== undefined && !message.over;
  $("#turn").classList.toggle("thinking", thinking);
  $("#turn").textContent = message.over ? "The game is over."
    : message.your_turn ? "Your turn."
      : `${player(message, thinking ? message.thinking : v.to_act)} is thinking…`;
}

function toggleCard(index, node) {
  if (!page.game || !page.game.your_turn) return;
  if (page.selected.has(index)) page.selected.delete(index);
  else page.selected.add(index);
  node.classList.toggle("selected", page.selected.has(index));
}

function selectedCards() {
  const hand = handGroups(page.game.view).flatMap((g) => g.cards); // the cards' indices, in order
  return Array.from(page.selected).sort((a, b) => a - b).map((i) => hand[i]);
}

async function playCards() {
  const message = page.game;
  await busy(async () => {
    const answer = await api("POST", `/api/games/${message.id}/cards`,
      { cards: selectedCards(), version: message.version, advance: false });
    showError("");
    showGame(answer);
    await others();
  });
}

async function playMove(action) {
  const message = page.game;
  await busy(async () => {
    const answer = await api("POST", `/api/games/${message.id}/move`,
      { action, version: message.version, advance: false });
    showError("");
    showGame(answer);
    await others();
  });
}

function drawChoices(choices) {
  const box = $("#choices");
  box.hidden = !choices;
  if (!choices) {
    box.replaceChildren();
    return;
  }
  box.replaceChildren(el("div", { text: "These cards make several moves: choose one." }),
    ...choices.map((c) => el("button", {
      class: "choice", type: "button", dataset: { id: c.id }, onclick: () => playMove(c.id),
    }, c.text, " ", smallCards(c.cards))));
}

function drawMoves(message) {
  const box = $("#moves");
  box.replaceChildren();
  $("#moves-box").hidden = !message.your_turn;
  for (const group of message.moves) {
    box.append(el("div", { class: "group" }, el("h4", { text: group.label || group.type }),
      group.moves.map((m) => el("button", {
        class: "move", type: "button", dataset: { id: m.id, cards: JSON.stringify(m.cards) },
        onclick: () => playMove(m.id),
        onmouseenter: () => hintCards(m.cards), onmouseleave: () => hintCards([]),
      }, m.text, m.cards.length ? smallCards(m.cards) : null))));
  }
}

function hintCards(cards) {
  const want = {};
  for (const c of cards) want[c] = (want[c] || 0) + 1;
  for (const node of $$("#hand .card")) {
    const c = node.dataset.card;
    node.classList.toggle("hint", (want[c] || 0) > 0);
    if (want[c]) want[c]--;
  }
}

function drawLog(message) {
  const list = $("#log");
  const skipped = message.log_total - message.log.length;
  list.replaceChildren();
  list.start = skipped + 1;
  let hand = null;
  for (const entry of message.log) {
    list.append(el("li", {
      class: (entry.seat === message.seat ? "mine" : "") + (entry.hand !== hand ? " hand-start" : ""),
    }, (entry.hand !== hand ? `[hand ${entry.hand}] ` : "") + `${player(message, entry.seat)}: ${entry.text} `,
    entry.cards.length ? smallCards(entry.cards) : null));
    hand = entry.hand;
  }
  $("#log-note").textContent = skipped ? `(the last ${message.log.length} of ${message.log_total})` : "";
  const box = $("#log-box");
  box.scrollTop = box.scrollHeight;
}

function drawResults(message) {
  // the game over: the last hands' results; during a game of several hands: the hand just
  // finished, until closed
  const latest = message.results.slice(-1);
  const shown = message.over ? message.results.slice(-3).reverse()
    : latest.filter((r) => r.hand > (page.closed[message.id] || 0));
  $("#results").replaceChildren(...shown.map((r) =>
    el("div", { class: "result", dataset: { hand: r.hand } }, el("b", { text: `Hand ${r.hand}: ` }),
      message.over ? null : el("button", {
        class: "close", type: "button", text: "Close",
        onclick: () => { page.closed[message.id] = r.hand; drawResults(message); },
      }),
      "\n" + r.text)));
  $("#over").hidden = !message.over;
  if (message.over) {
    $("#returns").textContent = "Returns: " + message.returns.map((r, s) =>
      `${player(message, s)} ${r > 0 ? "+" : ""}${r}`).join(", ")
      + (message.record ? ` | saved as the game record ${message.record}` : "");
  }
}

// --- watching a record ----------------------------------------------------------------------

async function listRecords() {
  const data = await api("GET", "/api/records");
  page.listed = true;
  $("#records-dir").textContent = data.folder;
  const list = $("#record-files");
  list.replaceChildren();
  if (!data.files.length) {
    list.append(el("li", { class: "hint", text: data.exists ? "(no *.json files)" : "(no such folder)" }));
  }
  for (const f of data.files) {
    list.append(el("li", {}, el("button", {
      class: "record-file", type: "button", dataset: { name: f.name },
      onclick: () => openReplay({ name: f.name }),
    }, f.name), el("span", { class: "hint", text: ` ${Math.round(f.size / 1024 * 10) / 10} KiB` })));
  }
}

async function openReplay(body, path = "/api/replays") {
  await busy(async () => {
    const header = await api("POST", path, body);
    showError("");
    await showReplay(header);
  });
}

async function showReplay(header) {
  page.replay = header;
  showTab("viewer");
  if (!page.listed) await listRecords(); // opened from a game or a link: the folder's files too
  location.hash = "replay=" + header.id;
  $("#replay").hidden = false;
  const slider = $("#slider");
  slider.max = header.moves;
  // "source cardenv.play · finished yes", not JSON's quotes and true/false
  const said = (v) => typeof v === "string" ? v : typeof v === "boolean" ? (v ? "yes" : "no")
    : JSON.stringify(v);
  const meta = Object.entries(header.meta || {}).map(([k, v]) => `${k} ${said(v)}`);
  // (the DOM's replaceChildren writes a null as the text "null": leave the missing parts out)
  $("#replay-head").replaceChildren(...[
    el("span", {}, el("b", { text: header.game }), ` seed ${header.seed}`),
    el("span", { text: (header.labels || header.players).map((p, s) => `player_${s} ${p}`)
      .join(", ") }),
    el("span", { text: `${header.moves} moves` + (header.finished ? "" : " (unfinished)") }),
    header.source ? el("span", { class: "hint", text: header.source }) : null,
    meta.length ? el("span", { class: "hint", text: meta.join(" · ") }) : null,
  ].filter((part) => part !== null));
  $("#replay-moves").replaceChildren(...header.move_list.map((m, i) => el("li", {
    dataset: { k: i + 1 }, onclick: () => busy(() => goTo(i + 1)),
  }, `player_${m.seat}: ${m.text}`)));
  await goTo(0);
}

async function goTo(k) {
  const header = page.replay;
  if (!header) return;
  k = Math.max(0, Math.min(header.moves, k));
  const step = await api("GET", `/api/replays/${header.id}/${k}`);
  page.step = step;
  drawStep(header, step);
}

function drawStep(header, step) {
  $("#replay").dataset.k = step.k;
  const current = $("#replay-moves li.current");
  if (current) current.classList.remove("current");
  const item = $(`#replay-moves li[data-k="${step.k}"]`);
  if (item) {
    item.classList.add("current");
    const box = $("#replay-moves-box");
    if (item.offsetTop < box.scrollTop || item.offsetTop > box.scrollTop + box.clientHeight - 30) {
      box.scrollTop = item.offsetTop - box.clientHeight / 2;
    }
  }
  $("#slider").value = step.k;
  $("#step-label").textContent = `move ${step.k}/${step.moves}`;
  const name = (s) => `player_${s} (${(header.labels || header.players)[s]})`;
  $("#last-move").textContent = step.k === 0 ? `The deal (seed ${header.seed}).`
    : `Move ${step.k}: ${name(step.last.seat)}: ${step.last.text}`;
  const v0 = step.views[0];
  const info = [...v0.table];
  if (!step.over && step.to_act !== null) info.push(`${name(step.to_act)} to act`);
  $("#replay-info").replaceChildren(...info.map((t) => el("span", { text: t })));
  $("#replay-center").replaceChildren(...centerParts(v0, name));
  const lastResult = step.results.length ? step.results[step.results.length - 1] : null;
  $("#replay-seats").replaceChildren(...step.views.map((v, s) => {
    const row = v.seats[s];
    const facts = [`${row.cards} cards`, ...row.facts, ...v.own];
    const extra = v.extra;
    return el("div", {
      class: "seat-column" + (step.to_act === s && !step.over ? " to-act" : ""), dataset: { seat: s },
    }, el("div", {}, el("b", { text: name(s) }), row.role ? el("span", { class: "badge", text: row.role }) : null),
    el("div", { class: "hint-light", text: facts.join(" · ") }),
    el("div", { class: "hand" }, drawGroups(v, (c) => cardEl(c))),
    extra.map(([label, cards]) => el("div", {}, label + ": ", smallCards(cards))),
    lastResult ? el("div", { class: "result", text: `Hand ${lastResult.hand}: ${lastResult.texts[s]}` }) : null);
  }));
  $("#replay-results").replaceChildren(step.over
    ? el("div", { class: "result", text: "Returns: " + step.returns.map((r, s) => `${name(s)} ${r > 0 ? "+" : ""}${r}`).join(", ") })
    : "");
}

async function uploadRecord(event) {
  const file = event.target.files[0];
  if (!file) return;
  const text = await file.text();
  event.target.value = "";
  await openReplay({ text, filename: file.name });
}

// --- tabs, language, start ------------------------------------------------------------------

function showTab(name) {
  $("#tab-play").classList.toggle("active", name === "play");
  $("#tab-viewer").classList.toggle("active", name === "viewer");
  $("#viewer").hidden = name !== "viewer";
  const playing = name === "play";
  $("#table").hidden = !playing || !page.game;
  $("#setup").hidden = !playing || !!page.game;
  drawHelp();
}

async function refresh() {
  page.info = await api("GET", "/api/info"); // the options' docs in the language chosen
  page.info.lang = page.lang;
  fillSetup();
  if (page.game && !$("#table").hidden) {
    const message = await api("GET", `/api/games/${page.game.id}`);
    showGame(message);
    await others();
  }
  if (page.replay && page.step) await goTo(page.step.k);
}

function onKey(event) {
  if ($("#viewer").hidden || !page.replay) return;
  if (["INPUT", "SELECT", "TEXTAREA"].includes(event.target.tagName) && event.target.id !== "slider") return;
  const k = page.step ? page.step.k : 0;
  const to = { ArrowRight: k + 1, ArrowLeft: k - 1, Home: 0, End: page.replay.moves }[event.key];
  if (to === undefined) return;
  event.preventDefault();
  busy(() => goTo(to));
}

async function resume() {
  const match = /^#(game|replay)=([\w-]+)$/.exec(location.hash);
  if (!match) return;
  try {
    if (match[1] === "game") {
      showGame(await api("GET", `/api/games/${match[2]}`));
      await others(); // the other players still to move, if the page left them thinking
    } else await showReplay(await api("GET", `/api/replays/${match[2]}`));
  } catch (e) {
    showError(e.message);
    location.hash = "";
  }
}

async function main() {
  try {
    page.info = await api("GET", "/api/info");
    page.info.lang = page.lang;
  } catch (e) {
    showError("cannot reach the server: " + e.message);
    document.body.dataset.state = "ready";
    return;
  }
  if (page.info.langs.length > 1) {
    $("#lang-box").hidden = false;
    $("#lang").value = page.info.langs.includes(page.lang) ? page.lang : page.info.langs[0];
    page.lang = $("#lang").value;
  } else {
    page.lang = "zh";
  }
  $("#records-dir").textContent = page.info.records_dir || "";
  fillSetup();
  $("#game").addEventListener("change", fillSetup);
  $("#seat").addEventListener("change", fillSetup);
  $("#setup-form").addEventListener("submit", startGame);
  $("#play-cards").addEventListener("click", playCards);
  $("#clear-cards").addEventListener("click", () => {
    page.selected.clear();
    $$("#hand .card.selected").forEach((n) => n.classList.remove("selected"));
  });
  $("#help-toggle").addEventListener("click", () => {
    $("#help").hidden = !$("#help").hidden;
    $("#help-toggle").classList.toggle("active", !$("#help").hidden);
  });
  $("#new-game").addEventListener("click", () => {
    page.game = null;
    location.hash = "";
    showError("");
    showTab("play");
  });
  $("#watch").addEventListener("click", () => openReplay(undefined, `/api/games/${page.game.id}/replay`));
  $("#tab-play").addEventListener("click", () => showTab("play"));
  $("#tab-viewer").addEventListener("click", () => busy(async () => {
    showTab("viewer");
    await listRecords();
  }));
  $("#upload").addEventListener("change", uploadRecord);
  $("#first").addEventListener("click", () => busy(() => goTo(0)));
  $("#prev").addEventListener("click", () => busy(() => goTo(page.step.k - 1)));
  $("#next").addEventListener("click", () => busy(() => goTo(page.step.k + 1)));
  $("#last").addEventListener("click", () => busy(() => goTo(page.replay.moves)));
  $("#slider").addEventListener("change", (e) => busy(() => goTo(Number(e.target.value))));
  document.addEventListener("keydown", onKey);
  $("#lang").addEventListener("change", (e) => {
    page.lang = e.target.value;
    localStorage.setItem("cardenv-lang", page.lang);
    busy(refresh);
  });
  await busy(resume);
}

main();
