// cardenv league page: draws a league table (python -m cardagents league's JSON, sent by
// /api/leagues/NAME) as two generic tables, the ratings and the pairwise win rates. It knows
// no game: players are names, cells are numbers with intervals.
"use strict";

const $ = (selector) => document.querySelector(selector);

function el(tag, text, attrs = {}) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  return node;
}

async function get(path) {
  const response = await fetch(path);
  const data = await response.json();
  if (!response.ok) throw new Error(data.error || `${response.status}`);
  return data;
}

function showError(error) {
  $("#error").textContent = String(error.message || error);
  $("#error").hidden = false;
}

const signed = (x) => (x >= 0 ? "+" : "") + x.toFixed(0);

function row(cells, header = false) {
  const tr = el("tr");
  cells.forEach((cell, k) => tr.append(el(header || k === 0 ? "th" : "td", cell)));
  return tr;
}

function drawRatings(league) {
  const table = $("#ratings");
  table.replaceChildren(row(["rank", "player", "rating", "95% interval", "pairs won"], true));
  const rows = [...league.ratings.players].sort((a, b) => a.rank - b.rank);
  for (const r of rows) {
    table.append(row([r.rank, r.player, signed(r.rating),
                      `${signed(r.ci95[0])}..${signed(r.ci95[1])}`, r.win_rate.toFixed(2)]));
  }
  $("#ratings-note").textContent = `${league.ratings.model}; intervals: ` +
    `${league.ratings.interval} (${league.ratings.bootstrap} replicates).`;
  return rows.map((r) => league.matrix.players.indexOf(r.player));
}

function drawMatrix(league, order) {
  const names = league.matrix.players;
  const table = $("#matrix");
  table.replaceChildren(row(["", ...order.map((j) => names[j])], true));
  for (const i of order) {
    const cells = order.map((j) => {
      const c = league.matrix.cells[i][j];
      if (!c) return "—";
      return `${c.win_rate.toFixed(2)} (${c.win_rate_ci95[0].toFixed(2)}–` +
             `${c.win_rate_ci95[1].toFixed(2)})`;
    });
    table.append(row([names[i], ...cells]));
  }
}

async function show(name) {
  $("#error").hidden = true;
  try {
    const league = await get(`/api/leagues/${encodeURIComponent(name)}`);
    $("#league-title").textContent = league.title || name;
    drawMatrix(league, drawRatings(league));
    const seconds = league.timings ? ` in ${Math.round(league.timings.wall_seconds)} s` : "";
    $("#league-about").textContent = `${league.command || ""} (${league.date || ""}${seconds})`;
    $("#league-body").hidden = false;
    location.hash = `league=${encodeURIComponent(name)}`;
  } catch (error) {
    $("#league-body").hidden = true;
    showError(error);
  }
}

async function start() {
  try {
    const list = await get("/api/leagues");
    $("#league-dir").textContent = list.folder || "(none)";
    const choice = $("#league-choice");
    for (const league of list.leagues) {
      const option = el("option", league.title || `${league.name}: ${league.problem}`,
                        { value: league.name });
      if (league.problem) option.disabled = true;
      choice.append(option);
    }
    const usable = list.leagues.filter((league) => !league.problem).map((l) => l.name);
    if (!usable.length) {
      $("#league-body").hidden = true;
      showError("No league to show: write one with python -m cardagents league.");
      return;
    }
    const wanted = decodeURIComponent((location.hash.match(/league=([^&]+)/) || [])[1] || "");
    choice.value = usable.includes(wanted) ? wanted : usable[0];
    choice.addEventListener("change", () => show(choice.value));
    await show(choice.value);
  } catch (error) {
    showError(error);
  }
}

start();
