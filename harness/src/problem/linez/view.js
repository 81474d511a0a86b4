// Linez on the replay page (see `Views::page_script`): the numbers as coloured balls, the
// path of the move, what was removed and what landed, and `nextThree`; at a refused move, the
// cells that were allowed (green).
// Okabe-Ito: seven colours told apart with any colour vision; the digit is printed too.
const PALETTE = ["", "#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7"];
const INK = ["", "#000", "#000", "#fff", "#000", "#fff", "#fff", "#000"];

function board(f, g) {
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
