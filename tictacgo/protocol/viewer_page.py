"""The viewer page's template, style and script (``tictacgo.protocol.viewer`` fills the template in).

The board fills the window and stays square; the players (names, captures,
score where the game has one), the move list and the result sit beside it,
or under it on a narrow window. The buttons draw their icons as inline SVG,
so they show with any font, and are big enough for a finger; a swipe across
the board steps a move, as the arrow keys do, and the play button (or
space) steps one a second. The Content-Security-Policy names the style and
the script by their SHA-256 hashes, computed here from their final text, so
an edit to either keeps the page working.
"""

from __future__ import annotations

import base64
import hashlib

PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="@CSP@">
<title>@TITLE@</title>
<style>@STYLE@</style>
</head>
<body data-check="pending">
<header>
<h1>@TITLE@</h1>
<div id="game-pick"><label for="game-select">game</label> <select id="game-select"></select></div>
</header>
<main>
<section id="stage">
<div id="board" aria-label="the board; swipe left or right to step a move"></div>
<nav class="controls" aria-label="moves">
<button id="first" title="first position (Home)" aria-label="first position"><svg viewBox="0 0 24 24"
 aria-hidden="true"><path d="M5 5h2.5v14H5zM19 5v14L8.5 12z" fill="currentColor"/></svg></button>
<button id="prev" title="previous move (left arrow)" aria-label="previous move"><svg viewBox="0 0 24 24"
 aria-hidden="true"><path d="M15 5l-7 7 7 7" fill="none" stroke="currentColor" stroke-width="2.6"
 stroke-linecap="round" stroke-linejoin="round"/></svg></button>
<input id="slider" type="range" min="0" max="0" value="0" aria-label="move">
<button id="play" title="play the moves one a second, or stop (space)" aria-label="play"
 aria-pressed="false"><svg viewBox="0 0 24 24" aria-hidden="true"><path class="when-stopped"
 d="M7 4v16l13-8z" fill="currentColor"/><path class="when-playing" d="M6 5h4v14H6zM14 5h4v14h-4z"
 fill="currentColor"/></svg></button>
<button id="next" title="next move (right arrow)" aria-label="next move"><svg viewBox="0 0 24 24"
 aria-hidden="true"><path d="M9 5l7 7-7 7" fill="none" stroke="currentColor" stroke-width="2.6"
 stroke-linecap="round" stroke-linejoin="round"/></svg></button>
<button id="last" title="last position (End)" aria-label="last position"><svg viewBox="0 0 24 24"
 aria-hidden="true"><path d="M5 5v14l10.5-7zM16.5 5H19v14h-2.5z" fill="currentColor"/></svg></button>
</nav>
</section>
<aside id="side">
<div id="players">
<div class="player" id="player-1"><span class="score"></span><span class="colour"></span>
<span class="name"></span><span class="facts"></span></div>
<div class="player" id="player-2"><span class="score"></span><span class="colour"></span>
<span class="name"></span><span class="facts"></span></div>
</div>
<div id="counter"></div>
<div id="move-text"></div>
<div id="status"></div>
<div id="result"></div>
<ol id="moves" aria-label="moves: pick one to go there"></ol>
<p class="hint">Left and right arrows (or a swipe across the board) step through the moves; Home and
End jump to the ends; space plays them; up and down change the game.</p>
</aside>
</main>
<script id="game-data" type="application/json">@DATA@</script>
<script>@SCRIPT@</script>
</body>
</html>
"""

STYLE = """
* { box-sizing: border-box; }
body { font-family: "DejaVu Sans", Arial, sans-serif; margin: 0; padding: 0.75rem; color: #222;
       background: #f6f3ec; }
header { display: flex; flex-wrap: wrap; align-items: center; gap: 0.4rem 1.2rem; min-height: 2rem;
         margin-bottom: 0.5rem; }
h1 { font-size: 1.15rem; margin: 0; overflow-wrap: anywhere; }
#game-pick select { font-size: 1rem; max-width: 80vw; padding: 0.2rem; }
main { display: flex; flex-wrap: wrap; gap: 0.75rem 1.25rem; align-items: flex-start; }
#stage { width: min(100%, max(14rem, calc(100vh - 8rem))); flex: none; }
#board { touch-action: pan-y; user-select: none; }
#board svg { display: block; width: 100%; height: auto; border-radius: 4px;
             box-shadow: 0 1px 4px rgba(0, 0, 0, 0.25); }
.controls { display: flex; gap: 0.4rem; align-items: center; margin-top: 0.5rem; }
.controls button { flex: none; width: 2.9rem; height: 2.9rem; padding: 0.45rem; border: 1px solid #bbb;
                   border-radius: 6px; background: #fff; color: #333; cursor: pointer; }
.controls button:hover { background: #eee; }
.controls button:disabled { color: #bbb; cursor: default; }
.controls button svg { display: block; width: 100%; height: 100%; }
#play { background: #c0902c; border-color: #a27520; color: #fff; }
#play:hover { background: #a27520; }
#play[aria-pressed="true"] .when-stopped, #play[aria-pressed="false"] .when-playing { display: none; }
#slider { flex: 1; min-width: 3rem; height: 2.9rem; margin: 0; }
#side { flex: 1 1 17rem; min-width: 15rem; max-width: 36rem; display: flex; flex-direction: column;
        gap: 0.45rem; max-height: calc(100vh - 4rem); }
#players { display: flex; flex-direction: column; gap: 0.3rem; }
.player { padding: 0.4rem 0.6rem; border: 2px solid transparent; border-radius: 6px; background: #fff; }
.player.to-move { border-color: #c0902c; }
.player.winner { background: #fbf0cf; }
.player .colour { font-weight: bold; }
.player .name { overflow-wrap: anywhere; }
.player .score { float: right; font-size: 1.5rem; font-weight: bold; margin-left: 0.5rem; }
.player .facts { display: block; color: #555; font-size: 0.9rem; }
.player .facts:empty { display: none; }
#counter { color: #555; font-size: 0.9rem; }
#move-text { font-weight: bold; }
#status { color: #555; font-size: 0.9rem; }
#result { font-weight: bold; color: #7a1010; }
#result:empty { display: none; }
#moves { list-style: none; margin: 0; padding: 0.3rem; background: #fff; border-radius: 6px;
         display: grid; grid-template-columns: repeat(auto-fill, minmax(7.4rem, 1fr)); gap: 0.2rem;
         overflow-y: auto; min-height: 6rem; flex: 1 1 auto; align-content: start; }
#moves button { width: 100%; min-height: 2.2rem; text-align: left; font: inherit; font-size: 0.95rem;
                border: 1px solid transparent; border-radius: 4px; background: none; cursor: pointer;
                padding: 0.15rem 0.35rem; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
#moves button:hover { background: #f0ead8; }
#moves button[aria-current="true"] { background: #c0902c; color: #fff; }
#moves .number { display: inline-block; min-width: 1.6em; color: #888; font-size: 0.85em; }
#moves button[aria-current="true"] .number { color: #fff; }
.hint { color: #777; font-size: 0.8rem; margin: 0; }
@media (min-aspect-ratio: 1/1) and (min-width: 40rem) {
  /* a landscape window: leave room beside the board for the side panel */
  #stage { width: min(calc(100% - 18.5rem), max(14rem, calc(100vh - 8rem))); }
}
@media (max-width: 40rem) {
  #side { max-height: none; }
  #moves { max-height: 50vh; }
}
"""

SCRIPT = r"""
"use strict";
const DATA = JSON.parse(document.getElementById("game-data").textContent);
let gameIndex = 0, moveIndex = 0, drawn = -1, listed = -1;
const $ = (id) => document.getElementById(id);

function checkData() {
  const problems = [];
  DATA.games.forEach((g, k) => {
    const where = (m) => `game ${k + 1} frame ${m}`;
    if (g.frames.length !== g.moves.length + 1) {
      problems.push(`game ${k + 1}: ${g.frames.length} frames for ${g.moves.length} moves`);
    }
    g.frames.forEach((f, m) => {
      const bad = (why) => problems.push(`${where(m)}: ${why}`);
      if (f.board.length !== g.points) bad(`${f.board.length} points, not ${g.points}`);
      if (!/^[012]*$/.test(f.board)) bad("a value other than 0, 1, 2");
      if (m > 0 && f.last >= 0 && f.board[f.last] === "0") bad("the last move's point is empty");
    });
  });
  return problems;
}

function moveButton(g, k) {
  const f = g.frames[k], button = document.createElement("button");
  const number = document.createElement("span");
  number.className = "number";
  number.textContent = k === 0 ? "" : String(k);
  button.appendChild(number);
  const words = k === 0 ? "start" : `${g.names[f.mover - 1]} ${f.move}`;
  const taken = f.captured.length ? ` \u00d7${f.captured.length}` : "";
  button.appendChild(document.createTextNode(words + taken));
  button.title = f.text;
  button.dataset.move = String(k);
  button.addEventListener("click", () => go(k));
  const item = document.createElement("li");
  item.appendChild(button);
  return item;
}

function listMoves(g) {
  const list = $("moves");
  list.replaceChildren(...g.frames.map((f, k) => moveButton(g, k)));
  listed = gameIndex;
}

function keepInView(list, item) {
  if (list.scrollHeight <= list.clientHeight) return;
  const slack = 6;  // a little of the entries around it shows too
  const top = item.offsetTop - list.offsetTop - slack, bottom = top + item.offsetHeight + 2 * slack;
  if (top < list.scrollTop) list.scrollTop = top;
  else if (bottom > list.scrollTop + list.clientHeight) list.scrollTop = bottom - list.clientHeight;
}

function number(x) {
  return String(Math.round(x * 100) / 100);
}

function playerFacts(g, f, p) {
  const facts = [];
  if (f.score) {
    const komi = g.komi[p] ? ` + komi ${number(g.komi[p])}` : "";
    facts.push(`score: ${f.stones[p]} stones on the board${komi}`);
  }
  if (g.captures) facts.push(`captured ${f.taken[p]}`);
  return facts.join("; ");
}

function show() {
  const g = DATA.games[gameIndex];
  if (drawn !== g.board) { $("board").innerHTML = DATA.boards[g.board]; drawn = g.board; }
  if (listed !== gameIndex) listMoves(g);
  const f = g.frames[moveIndex], n = g.frames.length - 1;
  const captured = new Set(f.captured);
  for (const el of $("board").querySelectorAll("[data-point]")) {
    const p = Number(el.dataset.point), v = el.dataset.value;
    const on = v === "last" ? p === f.last : v === "captured" ? captured.has(p) : f.board[p] === v;
    el.setAttribute("visibility", on ? "visible" : "hidden");
  }
  for (const el of $("board").querySelectorAll("[data-points]")) {
    const on = el.dataset.points.split(" ").every((p) => f.board[Number(p)] === el.dataset.value);
    el.setAttribute("visibility", on ? "visible" : "hidden");
  }
  [0, 1].forEach((p) => {
    const box = $(`player-${p + 1}`);
    box.querySelector(".colour").textContent = g.names[p];
    box.querySelector(".name").textContent = g.players[p];
    box.querySelector(".facts").textContent = playerFacts(g, f, p);
    box.querySelector(".score").textContent = f.score ? number(f.score[p]) : "";
    box.classList.toggle("to-move", f.turn === p + 1);
    box.classList.toggle("winner", moveIndex === g.frames.length - 1 && f.winner === p + 1);
  });
  $("slider").max = n;
  $("slider").value = moveIndex;
  $("first").disabled = $("prev").disabled = moveIndex === 0;
  $("next").disabled = $("last").disabled = moveIndex === n;
  $("counter").textContent = `move ${moveIndex} of ${n}`;
  $("move-text").textContent = f.text;
  $("status").textContent = f.status;
  $("result").textContent = moveIndex === n ? (f.result || "") : "";
  for (const button of $("moves").querySelectorAll("button")) {
    const here = Number(button.dataset.move) === moveIndex;
    button.setAttribute("aria-current", here ? "true" : "false");
    if (here) keepInView($("moves"), button.parentElement);
  }
  $("game-select").value = String(gameIndex);
  try {
    history.replaceState(null, "", `#game=${gameIndex + 1}&move=${moveIndex}`);
  } catch (e) { /* a browser may refuse it for a file: page; the position is still shown */ }
}

function go(move, playing) {
  if (!playing) stop();
  const n = DATA.games[gameIndex].frames.length - 1;
  moveIndex = Math.max(0, Math.min(n, move));
  show();
}

function pick(game) {
  stop();
  gameIndex = Math.max(0, Math.min(DATA.games.length - 1, game));
  moveIndex = 0;
  show();
}

let timer = null;

function stop() {
  if (timer !== null) clearInterval(timer);
  timer = null;
  $("play").setAttribute("aria-pressed", "false");
}

function play() {
  if (timer !== null) { stop(); return; }
  if (moveIndex === DATA.games[gameIndex].frames.length - 1) go(0);
  $("play").setAttribute("aria-pressed", "true");
  timer = setInterval(() => {
    go(moveIndex + 1, true);
    if (moveIndex === DATA.games[gameIndex].frames.length - 1) stop();
  }, 1000);
}

function checkDrawing() {
  const g = DATA.games[gameIndex], f = g.frames[moveIndex];
  const shown = [...$("board").querySelectorAll("[data-point]")].filter(
    (el) => el.getAttribute("visibility") !== "hidden" && ["1", "2"].includes(el.dataset.value));
  const stones = [...f.board].filter((c) => c !== "0").length;
  const problems = shown.length === stones ? [] : [`${shown.length} pieces drawn for ${stones} on the board`];
  if ($("moves").children.length !== g.frames.length) {
    problems.push(`${$("moves").children.length} entries in the move list for ${g.frames.length} positions`);
  }
  return problems;
}

DATA.games.forEach((g, k) => {
  const option = document.createElement("option");
  option.value = String(k);
  option.textContent = g.label;
  $("game-select").appendChild(option);
});
if (DATA.games.length < 2) $("game-pick").hidden = true;
$("game-select").addEventListener("change", (e) => pick(Number(e.target.value)));
$("first").addEventListener("click", () => go(0));
$("prev").addEventListener("click", () => go(moveIndex - 1));
$("play").addEventListener("click", play);
$("next").addEventListener("click", () => go(moveIndex + 1));
$("last").addEventListener("click", () => go(Infinity));
$("slider").addEventListener("input", (e) => go(Number(e.target.value)));
document.addEventListener("keydown", (e) => {
  if (e.target.tagName === "SELECT" || e.target.tagName === "INPUT") return;
  if (e.key === " " && e.target.tagName === "BUTTON") return;  // the button's own press
  const keys = {ArrowLeft: () => go(moveIndex - 1), ArrowRight: () => go(moveIndex + 1),
                Home: () => go(0), End: () => go(Infinity), " ": play,
                ArrowUp: () => pick(gameIndex - 1), ArrowDown: () => pick(gameIndex + 1)};
  if (keys[e.key]) { keys[e.key](); e.preventDefault(); }
});
let touch = null;
$("board").addEventListener("touchstart", (e) => {
  touch = e.touches.length === 1 ? {x: e.touches[0].clientX, y: e.touches[0].clientY} : null;
}, {passive: true});
$("board").addEventListener("touchend", (e) => {
  if (!touch || e.changedTouches.length !== 1) return;
  const dx = e.changedTouches[0].clientX - touch.x, dy = e.changedTouches[0].clientY - touch.y;
  touch = null;
  if (Math.abs(dx) > 40 && Math.abs(dx) > 2 * Math.abs(dy)) go(moveIndex + (dx < 0 ? 1 : -1));
});

const wanted = new URLSearchParams(location.hash.slice(1));
gameIndex = Math.max(0, Math.min(DATA.games.length - 1, (Number(wanted.get("game")) || 1) - 1));
go(Number(wanted.get("move")) || 0);
const problems = checkData().concat(checkDrawing());
document.body.dataset.check = problems.length ? problems.join("; ") : "ok";
"""


def csp_hash(text: str) -> str:
    """The Content-Security-Policy source that allows an inline element whose text is ``text``."""
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


#: What the page may do, as its Content-Security-Policy: run its own script and style (by their
#: hashes) and nothing else: no other script or handler, nothing fetched, no form sent.
CONTENT_SECURITY_POLICY = "; ".join([
    "default-src 'none'", f"script-src {csp_hash(SCRIPT)}", f"style-src {csp_hash(STYLE)}",
    "base-uri 'none'", "form-action 'none'"])
