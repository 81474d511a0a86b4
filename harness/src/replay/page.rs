//! The replay page: one self-contained HTML file (the frames as JSON, a small inline script
//! and style; no network, no external fonts or scripts, enforced by a Content-Security-Policy
//! that allows nothing but inline code and `data:` images).
//!
//! The frames are embedded with [`embed_json`], so no text in them (a player's move, a
//! reason) can end or open an element.
//!
//! The page reads `#step=N` or `#step=last` from its address to start at a given frame, and
//! keeps the shown score in `#score` and the move number in `#move` (the browser test reads
//! them).

use super::Replay;

/// The page of one game.
pub fn render(replay: &Replay) -> String {
    let data = embed_json(&serde_json::to_string(replay).expect("a replay is plain data"));
    let title = format!(
        "{} — {} — seed {}",
        escape(&replay.problem),
        escape(&replay.player),
        escape(&replay.seed)
    );
    TEMPLATE
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

/// Escapes text for HTML.
pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
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
<span id="resources" hidden></span>
<p class="help">Keys: &#x2190; &#x2192; step, Home / End, space play/pause. Address <code>#step=N</code> or <code>#step=last</code> opens a given move.</p>
<script id="data" type="application/json">__DATA__</script>
<script>
"use strict";
const R = JSON.parse(document.getElementById("data").textContent);
const F = R.frames;
const $ = (id) => document.getElementById(id);
let at = 0, timer = null;
// Okabe-Ito: seven colours told apart with any colour vision; the digit is printed too.
const PALETTE = ["", "#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7"];
const INK = ["", "#000", "#000", "#fff", "#000", "#fff", "#fff", "#000"];
const GLYPH = { K: "\u265E", B: "\u265D", R: "\u265C", Q: "\u265B" };
const TILE_BG = { "1": "#fff4d6", "2": "#ffe8b0", "3": "#ffd98a", "4": "#ffc966", K: "#d9ecff", B: "#d8f5e3", R: "#f3dcf7", Q: "#ffd6d6" };
const esc = (s) => String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;");

$("final").textContent = "recorded: score " + R.recorded_score + ", verdict " + R.verdict +
  (R.reason ? " (" + R.reason + ")" : "") + "; judged again from the transcript: score " + R.score;

function lastGood(i) { while (i > 0 && F[i].error !== undefined && F[i].cells === undefined && F[i].tops === undefined) i--; return i; }

function chess(f, g) {
  const H = g.tops.length, W = g.tops[0].length, S = 44, M = 24;
  const allowed = new Set((f.allowed || []).map(([r, c]) => r + "," + c));
  let s = `<svg width="${W * S + M + 4}" height="${H * S + M + 4}" role="img">`;
  for (let c = 0; c < W; c++) s += `<text x="${M + c * S + S / 2}" y="16" text-anchor="middle" font-size="12" fill="#666">${c}</text>`;
  for (let r = 0; r < H; r++) s += `<text x="10" y="${M + r * S + S / 2 + 4}" text-anchor="middle" font-size="12" fill="#666">${r}</text>`;
  for (let r = 0; r < H; r++) for (let c = 0; c < W; c++) {
    const t = g.tops[r][c], h = g.heights[r][c], x = M + c * S, y = M + r * S;
    const empty = t === "-";
    s += `<rect x="${x + 1}" y="${y + 1}" width="${S - 2}" height="${S - 2}" rx="4" fill="${empty ? "#c8c8c8" : TILE_BG[t]}" stroke="#999"/>`;
    if (!empty) {
      const label = GLYPH[t] || t;
      s += `<text x="${x + S / 2}" y="${y + S / 2 + 8}" text-anchor="middle" font-size="${GLYPH[t] ? 26 : 22}" font-weight="bold" fill="#222">${label}</text>`;
      s += `<text x="${x + S - 5}" y="${y + 12}" text-anchor="end" font-size="10" fill="#555">${h}</text>`;
      // Stack height as a bar on the left edge: full at K tiles.
      const bh = (S - 8) * h / g.k;
      s += `<rect x="${x + 3}" y="${y + S - 4 - bh}" width="3" height="${bh}" fill="#777"/>`;
    }
    if (allowed.has(r + "," + c)) s += `<rect x="${x + 3}" y="${y + 3}" width="${S - 6}" height="${S - 6}" rx="3" fill="none" stroke="#009E73" stroke-width="3"/>`;
  }
  const clicked = f.clicked || g.clicked;
  if (clicked) {
    const [r, c] = clicked;
    s += `<rect x="${M + c * S}" y="${M + r * S}" width="${S}" height="${S}" rx="4" fill="none" stroke="${f.error ? "#b00020" : "#D55E00"}" stroke-width="3.5"/>`;
  }
  return s + "</svg>";
}

function linez(f, g) {
  const S = 46, M = 24, N = 9;
  let s = `<svg width="${N * S + M + 200}" height="${N * S + M + 4}" role="img">`;
  for (let c = 0; c < N; c++) s += `<text x="${M + c * S + S / 2}" y="16" text-anchor="middle" font-size="13" fill="#666">${c + 1}</text>`;
  for (let r = 0; r < N; r++) s += `<text x="10" y="${M + r * S + S / 2 + 5}" text-anchor="middle" font-size="13" fill="#666">${"ABCDEFGHI"[r]}</text>`;
  const cx = (i) => M + (i % N) * S + S / 2, cy = (i) => M + Math.floor(i / N) * S + S / 2;
  for (let i = 0; i < N * N; i++) s += `<rect x="${cx(i) - S / 2 + 1}" y="${cy(i) - S / 2 + 1}" width="${S - 2}" height="${S - 2}" fill="#eee" stroke="#ccc"/>`;
  const ball = (i, n, extra) => `<g ${extra || ""}><circle cx="${cx(i)}" cy="${cy(i)}" r="${S / 2 - 5}" fill="${PALETTE[n]}" stroke="#333"/>` +
    `<text x="${cx(i)}" y="${cy(i) + 6}" text-anchor="middle" font-size="17" font-weight="bold" fill="${INK[n]}">${n}</text></g>`;
  if (f.path && f.path.length > 1) {
    s += `<polyline points="${f.path.map((i) => cx(i) + "," + cy(i)).join(" ")}" fill="none" stroke="#444" stroke-width="3" stroke-dasharray="6 4" stroke-linecap="round"/>`;
    s += `<circle cx="${cx(f.from)}" cy="${cy(f.from)}" r="${S / 2 - 8}" fill="none" stroke="#444" stroke-width="2" stroke-dasharray="3 3"/>`;
  }
  g.cells.forEach((n, i) => { if (n) s += ball(i, n); });
  (f.placed || []).forEach((i) => { s += `<circle cx="${cx(i)}" cy="${cy(i)}" r="${S / 2 - 2}" fill="none" stroke="#0072B2" stroke-width="3" stroke-dasharray="4 3"/>`; });
  if (f.to !== undefined && g === f) s += `<rect x="${cx(f.to) - S / 2 + 2}" y="${cy(f.to) - S / 2 + 2}" width="${S - 4}" height="${S - 4}" fill="none" stroke="#D55E00" stroke-width="3.5"/>`;
  (f.removed || []).forEach(([i, n]) => {
    s += ball(i, n, 'class="flash" opacity=".95"');
    s += `<path d="M${cx(i) - 12},${cy(i) - 12}L${cx(i) + 12},${cy(i) + 12}M${cx(i) + 12},${cy(i) - 12}L${cx(i) - 12},${cy(i) + 12}" stroke="#b00020" stroke-width="3"/>`;
  });
  const nx = M + N * S + 20;
  s += `<text x="${nx}" y="${M + 14}" font-size="14" fill="#333">nextThree</text>`;
  (g.next || []).forEach((n, k) => {
    const x = nx + 22 + k * 48, y = M + 46;
    s += `<circle cx="${x}" cy="${y}" r="18" fill="${PALETTE[n]}" stroke="#333"/><text x="${x}" y="${y + 6}" text-anchor="middle" font-size="16" font-weight="bold" fill="${INK[n]}">${n}</text>`;
  });
  const legend = [["#D55E00", "moved to"], ["#0072B2", "landed"], ["#b00020", "removed (flashes)"]];
  legend.forEach(([col, text], k) => {
    const y = M + 110 + k * 24;
    s += `<rect x="${nx}" y="${y - 12}" width="16" height="16" fill="none" stroke="${col}" stroke-width="3"/><text x="${nx + 24}" y="${y + 2}" font-size="13">${text}</text>`;
  });
  return s + "</svg>";
}

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
  $("extra").textContent = R.problem === "chesspuzzle" && g.total ? "(" + f.move + " of " + g.total + " tiles)" : "";
  $("board").innerHTML = R.problem === "chesspuzzle" ? chess(f, g) : linez(f, g);
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
// What the page fetched besides itself (the browser test expects none).
$("resources").textContent = String(performance.getEntriesByType("resource").length);
</script>
</body>
</html>
"##;
