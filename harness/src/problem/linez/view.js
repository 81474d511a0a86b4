// Linez on the replay page (see `Views::page_script`): the numbers as coloured balls, the
// path of the move, what was removed and what landed, and `nextThree`; at a refused move, the
// cells that were allowed (green).
//
// The page holds the game compactly (`page_data` in frames.rs): the start, then per move the
// move and the cells where the judge landed numbers after it. `expand` applies them with the
// rules (a move, the lines of 5+ it makes, each landing and its lines, `nextThree`) to compute
// every frame in the page, so a 20,000-move game costs a few bytes a move to embed.
// Okabe-Ito: seven colours told apart with any colour vision; the digit is printed too.
const PALETTE = ["", "#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7"];
const INK = ["", "#000", "#000", "#fff", "#000", "#fff", "#fff", "#000"];

function board(f, g) {
  const S = 46, M = 24, N = 9;
  // data-cells: the position as 81 digits, for readers of the page (the browser test).
  let s = `<svg width="${N * S + M + 200}" height="${N * S + M + 4}" role="img" data-cells="${Array.from(g.cells).join("")}">`;
  for (let c = 0; c < N; c++) s += `<text x="${M + c * S + S / 2}" y="16" text-anchor="middle" font-size="13" fill="#666">${c + 1}</text>`;
  for (let r = 0; r < N; r++) s += `<text x="10" y="${M + r * S + S / 2 + 5}" text-anchor="middle" font-size="13" fill="#666">${"ABCDEFGHI"[r]}</text>`;
  const cx = (i) => M + (i % N) * S + S / 2, cy = (i) => M + Math.floor(i / N) * S + S / 2;
  for (let i = 0; i < N * N; i++) s += `<rect x="${cx(i) - S / 2 + 1}" y="${cy(i) - S / 2 + 1}" width="${S - 2}" height="${S - 2}" fill="#eee" stroke="#ccc"/>`;
  const ball = (i, n, extra) => `<g ${extra || ""}><circle cx="${cx(i)}" cy="${cy(i)}" r="${S / 2 - 5}" fill="${PALETTE[n]}" stroke="#333"/>` +
    `<text x="${cx(i)}" y="${cy(i) + 6}" text-anchor="middle" font-size="17" font-weight="bold" fill="${INK[n]}">${n}</text></g>`;
  const path = f.path || (f.before && route(f.before, f.from, f.to));
  if (path && path.length > 1) {
    s += `<polyline points="${path.map((i) => cx(i) + "," + cy(i)).join(" ")}" fill="none" stroke="#444" stroke-width="3" stroke-dasharray="6 4" stroke-linecap="round"/>`;
    s += `<circle cx="${cx(f.from)}" cy="${cy(f.from)}" r="${S / 2 - 8}" fill="none" stroke="#444" stroke-width="2" stroke-dasharray="3 3"/>`;
  }
  g.cells.forEach((n, i) => { if (n) s += ball(i, n); });
  if (f.error) (f.allowed || []).forEach((i) => { s += `<rect x="${cx(i) - S / 2 + 3}" y="${cy(i) - S / 2 + 3}" width="${S - 6}" height="${S - 6}" fill="none" stroke="#009E73" stroke-width="3"/>`; });
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

function extra() { return ""; }

const LINEZ_N = 9;

// A shortest path of empty cells of board b (up, down, left, right first, as the judge's
// frames), drawn for the move shown: computed when a frame is drawn, not for every frame.
function route(b, from, to) {
  const N = LINEZ_N, prev = new Int16Array(N * N).fill(-1), queue = [from];
  prev[from] = from;
  for (let q = 0; q < queue.length && queue[q] !== to; q++) {
    const i = queue[q], r = Math.floor(i / N), c = i % N;
    for (const j of [r > 0 ? i - N : -1, r + 1 < N ? i + N : -1, c > 0 ? i - 1 : -1, c + 1 < N ? i + 1 : -1]) {
      if (j >= 0 && prev[j] < 0 && b[j] === 0) { prev[j] = i; queue.push(j); }
    }
  }
  if (prev[to] < 0) return [from, to];
  const out = [to];
  while (out[out.length - 1] !== from) out.push(prev[out[out.length - 1]]);
  return out.reverse();
}

function expand(d) {
  const N = LINEZ_N, DIRS = [[0, 1], [1, 0], [1, 1], [1, -1]];
  const cell = (t, k) => (t.charCodeAt(k) - 65) * N + (t.charCodeAt(k + 1) - 49);
  const points = (k) => 10 + Math.floor(k * (k - 5) / 2);
  // The cells of every line of 5+ equal numbers through cell i (each once), with their numbers.
  function lines(b, i) {
    const n = b[i], r0 = Math.floor(i / N), c0 = i % N, hit = [];
    for (const [dr, dc] of DIRS) {
      const run = [];
      for (const s of [1, -1]) {
        let r = r0 + s * dr, c = c0 + s * dc;
        while (r >= 0 && r < N && c >= 0 && c < N && b[r * N + c] === n) { run.push(r * N + c); r += s * dr; c += s * dc; }
      }
      if (run.length >= 4) hit.push(...run);
    }
    if (hit.length) hit.push(i);
    return hit.map((j) => [j, n]);
  }
  let cells = Uint8Array.from(d.cells, Number), next = Array.from(d.next, Number), score = 0;
  const out = [{ move: 0, score: 0, cells, next, note: "start" }];
  d.moves.forEach((record, k) => {
    const [mv, ...landings] = record.split(" ");
    const from = cell(mv, 0), to = cell(mv, 2), b = cells.slice();
    b[to] = b[from];
    b[from] = 0;
    const removed = [], placed = [];
    const take = (i) => {
      const found = lines(b, i);
      found.forEach(([j]) => { b[j] = 0; });
      if (found.length) score += points(found.length);
      removed.push(...found);
    };
    take(to);
    for (const landing of landings) {
      const [where, fresh] = landing.split("=");
      for (let t = 0; 2 * t < where.length; t++) {
        const i = cell(where, 2 * t);
        b[i] = next[t];
        placed.push(i);
        take(i);
      }
      next = Array.from(fresh, Number);
    }
    const standing = placed.filter((i) => b[i] !== 0);
    const note = `move ${k + 1}: ${mv}` + (removed.length ? `, removed ${removed.length}` : standing.length ? `, ${standing.length} landed` : "");
    out.push({ move: k + 1, score, cells: b, next, from, to, before: cells, removed, placed: standing, note });
    cells = b;
  });
  if (d.error) out.push({ move: d.error.move, score, error: d.error.reason, allowed: d.error.allowed });
  return out;
}
