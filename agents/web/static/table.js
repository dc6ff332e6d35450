// The web table's page: it asks the server (agents/web) for the table as your seat sees it
// and draws it; your moves are the buttons (keys 1-9), Enter deals the next hand.
"use strict";
let table = null;
let state = null;

const $ = (sel) => document.querySelector(sel);
const el = (tag, attrs = {}, text = "") => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text) e.textContent = text;
  return e;
};

async function call(path, body) {
  document.body.dataset.state = "busy";
  try {
    const r = await fetch(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    const data = await r.json();
    if (!r.ok) throw new Error(data.error || r.statusText);
    $("#error").hidden = true;
    return data;
  } catch (err) {
    $("#error").textContent = err.message;
    $("#error").hidden = false;
    throw err;
  } finally {
    document.body.dataset.state = "ready";
  }
}

// the server takes whole numbers as JSON numbers: "2" from a form or the URL is sent as 2
// (anything else as typed, for the server to refuse with what it allows)
const NUMBERS = ["players", "seat", "seed", "banker"];
function typed(settings) {
  const out = {};
  for (const [k, v] of Object.entries(settings)) {
    if (v === "") continue;
    out[k] = NUMBERS.includes(k) && /^-?[0-9]{1,18}$/.test(v) ? Number(v) : v;
  }
  return out;
}

function settingsFromUrl() {
  const p = new URLSearchParams(location.search);
  const out = {};
  for (const k of ["rules", "players", "seat", "opponents", "seed", "banker", "deck"]) if (p.has(k)) out[k] = p.get(k);
  return typed(out);
}

async function newTable(settings) {
  const data = await call("/api/new", settings);
  table = data.table;
  show(data);
}

async function act(name) {
  if (!table || !state || document.body.dataset.state === "busy") return;
  show(await call("/api/act", { table, action: name, move: state.move }));
}

async function nextHand() {
  if (!table || !state || !state.over) return;
  show(await call("/api/next", { table, move: state.move }));
}

// "1 chip", "2 chips", "1 point"
const units = (n, unit) => Math.abs(n) + " " + (Math.abs(n) === 1 ? unit.replace(/s$/, "") : unit);
const signed = (n, unit) => (n > 0 ? "+" : n < 0 ? "−" : "") + units(n, unit);

function cardImg(card, deck) {
  if (card.id === null) return el("img", { src: "/cards/" + deck + "/back.png", alt: "a face-down card", "data-card": "back" });
  const img = el("img", { src: "/cards/" + deck + "/" + card.id + ".png", alt: card.name + (card.face_down ? " (face-down: only you see it)" : ""), title: card.name, "data-card": card.id });
  if (card.face_down) img.classList.add("mine-down");
  return img;
}

function show(data) {
  state = data;
  const v = data.view;
  $("#hand-no").textContent = "hand " + v.hand_no;
  $("#rules").textContent = data.preset + " rules · " + v.header.split(" · ").slice(1).join(" · ");
  $("#score").textContent = "score " + signed(data.score, v.unit);
  $("#score").dataset.score = data.score;
  const t = $("#table");
  t.replaceChildren();
  for (const s of v.seats) {
    const div = el("div", { class: "seat", "data-seat": s.seat });
    if (s.acting) div.classList.add("acting");
    if (s.you) div.classList.add("you");
    const h = el("h3");
    h.append(el("span", {}, (s.you ? "you (player " + s.seat + ")" : "player " + s.seat + " · " + s.name)));
    h.append(el("span", { class: "role " + s.role }, s.role + " · " + signed(s.chips, v.unit)));
    div.append(h);
    for (const hand of s.hands) {
      const hd = el("div", { class: "hand" + (hand.acting ? " acting" : "") });
      const cards = el("div", { class: "cards" });
      for (const c of hand.cards) cards.append(cardImg(c, data.deck));
      hd.append(cards);
      const cap = el("div", { class: "caption" });
      cap.append(el("span", { class: "total" }, hand.total));
      if (hand.status) cap.append(" · " + hand.status);
      if (hand.stake !== null && hand.stake > 0) cap.append(" · stake " + hand.stake);
      if (hand.cards.some((c) => c.face_down)) cap.append(el("span", { class: "mine-note" }, " · ▲ raised: your face-down card"));
      hd.append(cap);
      div.append(hd);
    }
    t.append(div);
  }
  const moves = $("#moves");
  moves.replaceChildren();
  data.legal.forEach((m, i) => {
    const b = el("button", { "data-action": m.name, title: m.help });
    if (i < 9) b.append(el("span", { class: "key" }, String(i + 1)));
    b.append(m.name.toLowerCase().replace(/_/g, " "));
    b.addEventListener("click", () => act(m.name));
    moves.append(b);
  });
  if (data.over) {
    const b = el("button", { id: "next-hand" }, "next hand ↵");
    b.addEventListener("click", nextHand);
    moves.append(b);
  } else if (!data.legal.length) {
    moves.append(el("span", { class: "waiting" }, "waiting for the other seats…"));
  }
  const res = $("#result");
  if (data.over && data.result) {
    const won = data.result.won;
    res.hidden = false;
    res.className = won > 0 ? "win" : won < 0 ? "lose" : "";
    res.dataset.won = won;
    $("#result-line").textContent = (won > 0 ? "You win " + units(won, v.unit) : won < 0 ? "You lose " + units(won, v.unit) : "You break even") +
      " this hand. Running score " + signed(data.score, v.unit) + ".";
    const why = $("#why");
    why.replaceChildren();
    for (const line of v.why) why.append(el("li", {}, line));
  } else {
    res.hidden = true;
    delete res.dataset.won;
  }
  const log = $("#log");
  log.replaceChildren();
  for (const line of data.log) log.append(el("li", { class: line.startsWith("you") ? "you" : "" }, line));
  log.scrollTop = log.scrollHeight;
  const g = $("#guide-lines");
  g.replaceChildren();
  for (const line of data.guide) g.append(el("li", {}, line));
  document.body.dataset.state = "ready";
}

document.addEventListener("keydown", (ev) => {
  if (ev.target.closest && ev.target.closest("input, select, textarea")) return;
  if (ev.key >= "1" && ev.key <= "9" && state) {
    const m = state.legal[Number(ev.key) - 1];
    if (m) act(m.name);
  } else if (ev.key === "Enter") {
    nextHand();
  } else if (ev.key === "?") {
    $("#guide").showModal();
  }
});
$("#help-button").addEventListener("click", () => $("#guide").showModal());
$("#new-table").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const f = new FormData(ev.target);
  newTable(typed(Object.fromEntries(f.entries())))
    .then(() => { $("#settings").open = false; })
    .catch(() => {});
});
newTable(settingsFromUrl()).catch(() => {});
