//! The replay page: one self-contained HTML file (the game as JSON: its frames, or a compact
//! record that the problem's script expands into frames; a small inline script and style;
//! no network, no external fonts or scripts, enforced by a Content-Security-Policy that
//! allows nothing but inline code and `data:` images).
//!
//! The game is embedded with [`embed_json`], so no text in it (a player's move, a reason)
//! can end or open an element.
//!
//! The page's frame-independent part lives here (controls, keys, the score line); how a
//! board is drawn is the problem's own script ([`crate::problem::Views::page_script`]),
//! placed inline where the template says `__VIEW__`.
//!
//! The page reads `#step=N` or `#step=last` from its address to start at a given frame, and
//! keeps the shown score in `#score` and the move number in `#move`, and the milliseconds it
//! took from its data to the first board drawn in `#ready-ms` (the browser test reads them).

use super::Replay;
use crate::report::html::escape;

/// The page of one game.
pub fn render(replay: &Replay) -> String {
    let data = embed_json(&serde_json::to_string(replay).expect("a replay is plain data"));
    let title = format!(
        "{} — {} — seed {}",
        escape(&replay.problem),
        escape(&replay.player),
        escape(&replay.seed)
    );
    // The problem's script first: the title and the data may hold any text.
    TEMPLATE
        .replace("__VIEW__", replay.script)
        .replace("__TITLE__", &title)
        .replace("__DATA__", &data)
}

/// Makes JSON safe inside a `<script>` element, whatever its strings hold (a player's move
/// may be `</script>` or `<!--<script>`, which would end the element early or swallow the
/// page's own script): every `<`, `>` and `&` is written `\u003c`, `\u003e`, `\u0026`, and
/// U+2028 and U+2029 (line ends to older JavaScript) `\u2028` and `\u2029`. These characters
/// can only stand inside JSON strings, where the escape means the same character, so the
/// data parses to the same value.
pub(crate) fn embed_json(json: &str) -> String {
    let mut out = String::with_capacity(json.len() + json.len() / 16);
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

const TEMPLATE: &str = r##"<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">
<title>__TITLE__</title>
<style>
body { font-family: system-ui, sans-serif; margin: 1em; color: #222; background: #fafafa; }
h1 { font-size: 1.2em; margin: 0 0 .4em 0; }
#bar { display: flex; gap: .5em; align-items: center; flex-wrap: wrap; margin: .5em 0; }
#bar button { font-size: 1em; min-width: 2.4em; }
#slider { width: 24em; }
#status { font-size: 1.05em; margin: .3em 0; }
#status b { font-variant-numeric: tabular-nums; }
#note { color: #444; min-height: 1.3em; }
#error { color: #b00020; font-weight: bold; }
#final { color: #555; font-size: .9em; }
svg text { font-family: "DejaVu Sans", system-ui, sans-serif; }
@keyframes flash { 0%, 100% { opacity: .95; } 50% { opacity: .15; } }
.flash { animation: flash .5s ease-in-out 3; }
.help { color: #777; font-size: .85em; }
</style>
</head>
<body>
<h1>__TITLE__</h1>
<div id="final"></div>
<div id="bar">
  <button id="first" title="first move (Home)">|&#x25C0;</button>
  <button id="prev" title="back (&#x2190;)">&#x25C0;</button>
  <button id="play" title="play / pause (space)">play</button>
  <button id="next" title="forward (&#x2192;)">&#x25B6;</button>
  <button id="last" title="last move (End)">&#x25B6;|</button>
  <input id="slider" type="range" min="0" value="0">
  <label>speed <select id="speed">
    <option value="1000">1/s</option><option value="400" selected>2.5/s</option>
    <option value="150">7/s</option><option value="40">25/s</option><option value="5">max</option>
  </select></label>
</div>
<div id="status">move <b id="move">0</b> / <span id="moves">0</span> &nbsp; score <b id="score">0</b> <span id="extra"></span></div>
<div id="note"></div><div id="error"></div>
<div id="board"></div>
<span id="resources" hidden></span><span id="ready-ms" hidden></span>
<p class="help">Keys: &#x2190; &#x2192; step, Home / End, space play/pause. Address <code>#step=N</code> or <code>#step=last</code> opens a given move.</p>
<script id="data" type="application/json">__DATA__</script>
<script>
"use strict";
const R = JSON.parse(document.getElementById("data").textContent);
const $ = (id) => document.getElementById(id);
let at = 0, timer = null;
const esc = (s) => String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;");

// The problem's own drawing code: `board(f, g)` and `extra(f, g)`.
__VIEW__

// The frames: embedded, or computed here from the problem's compact record (long games).
const opened = performance.now();
const F = typeof expand === "function" ? expand(R.data) : R.data;

$("final").textContent = "recorded: score " + R.recorded_score + ", verdict " + R.verdict +
  (R.reason ? " (" + R.reason + ")" : "") + "; judged again from the transcript: score " + R.score;

// A frame with an error holds no board: the board shown is the last one before it.
function lastGood(i) { while (i > 0 && F[i].error !== undefined) i--; return i; }

function show(i) {
  at = Math.max(0, Math.min(F.length - 1, i));
  const f = F[at], g = F[lastGood(at)];
  const final = at === F.length - 1;
  // The last frame shows the judge's own score for the whole game.
  const score = final ? R.score : (f.score !== undefined ? f.score : g.score);
  $("score").textContent = String(score);
  $("move").textContent = String(f.move);
  $("moves").textContent = String(F[F.length - 1].move);
  $("slider").value = at;
  $("note").textContent = f.note || "";
  $("error").textContent = f.error ? "illegal: " + f.error : (final && R.verdict !== "OK" ? R.verdict + ": " + R.reason : "");
  $("extra").textContent = extra(f, g);
  $("board").innerHTML = board(f, g);
}

function stop() { if (timer) { clearInterval(timer); timer = null; } $("play").textContent = "play"; }
function play() {
  if (timer) return stop();
  if (at === F.length - 1) show(0);
  $("play").textContent = "pause";
  timer = setInterval(() => { if (at >= F.length - 1) stop(); else show(at + 1); }, +$("speed").value);
}
$("slider").max = F.length - 1;
$("slider").addEventListener("input", (e) => { stop(); show(+e.target.value); });
$("first").onclick = () => { stop(); show(0); };
$("prev").onclick = () => { stop(); show(at - 1); };
$("next").onclick = () => { stop(); show(at + 1); };
$("last").onclick = () => { stop(); show(F.length - 1); };
$("play").onclick = play;
$("speed").onchange = () => { if (timer) { stop(); play(); } };
document.addEventListener("keydown", (e) => {
  if (e.target.tagName === "SELECT") return;
  const k = { ArrowRight: () => show(at + 1), ArrowLeft: () => show(at - 1), Home: () => show(0), End: () => show(F.length - 1) }[e.key];
  if (k) { stop(); k(); e.preventDefault(); }
  else if (e.key === " ") { play(); e.preventDefault(); }
});
function fromHash() {
  const m = /step=(\w+)/.exec(location.hash);
  if (m) show(m[1] === "last" ? F.length - 1 : parseInt(m[1], 10) || 0); else show(0);
}
window.addEventListener("hashchange", fromHash);
fromHash();
// Milliseconds from the data to the first board drawn (the browser test reads it).
$("ready-ms").textContent = String(Math.round(performance.now() - opened));
// What the page fetched besides itself (the browser test expects none).
$("resources").textContent = String(performance.getEntriesByType("resource").length);
</script>
</body>
</html>
"##;
