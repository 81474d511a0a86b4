// ChessPuzzle on the replay page (see `Views::page_script`): the top tile of every stack,
// its height, the cells allowed next and the clicked cell. At a refused click, the cells that
// were allowed for it (those of the last board shown).
const GLYPH = { K: "\u265E", B: "\u265D", R: "\u265C", Q: "\u265B" };
const TILE_BG = { "1": "#fff4d6", "2": "#ffe8b0", "3": "#ffd98a", "4": "#ffc966", K: "#d9ecff", B: "#d8f5e3", R: "#f3dcf7", Q: "#ffd6d6" };

function board(f, g) {
  const H = g.tops.length, W = g.tops[0].length, S = 44, M = 24;
  const allowed = new Set((f.allowed || (f.error && g.allowed) || []).map(([r, c]) => r + "," + c));
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

function extra(f, g) {
  if (f.error) return "(green: the cells that were allowed)";
  return g.total ? "(" + f.move + " of " + g.total + " tiles)" : "";
}
