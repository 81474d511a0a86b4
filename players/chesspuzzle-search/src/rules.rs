//! The rules of ChessPuzzle as the player needs them: tiles, the cells a removed tile allows
//! next (precomputed per cell and tile, emptiness applied when asked), and the position the
//! player knows: the top tile and the tiles left on every cell. Pure: no input, no output.

/// The tile types in the statement's order; a tile is its index here.
pub(crate) const TILES: &[u8; 8] = b"1234KBRQ";
/// The top of a cell with no tile left.
pub(crate) const EMPTY: u8 = 8;

const LINES: [(i32, i32); 8] = [
    (-1, 0),
    (1, 0),
    (0, -1),
    (0, 1),
    (-1, -1),
    (-1, 1),
    (1, -1),
    (1, 1),
];
const KNIGHT: [(i32, i32); 8] = [
    (-2, -1),
    (-2, 1),
    (-1, -2),
    (-1, 2),
    (1, -2),
    (1, 2),
    (2, -1),
    (2, 1),
];

/// The tile of a character (`1`..`4`, `K`, `B`, `R`, `Q`), or `None`.
pub(crate) fn tile_of(ch: u8) -> Option<u8> {
    TILES.iter().position(|&t| t == ch).map(|i| i as u8)
}

/// Up to 8 cells.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub(crate) struct Cells {
    cells: [u16; 8],
    len: u8,
}

impl Cells {
    pub(crate) fn push(&mut self, cell: u16) {
        self.cells[self.len as usize] = cell;
        self.len += 1;
    }

    pub(crate) fn as_slice(&self) -> &[u16] {
        &self.cells[..self.len as usize]
    }

    pub(crate) fn len(&self) -> usize {
        self.len as usize
    }
}

/// The board's shape and, for every cell and tile, the cells the tile reaches from it when no
/// cell is empty.
pub(crate) struct Geometry {
    pub(crate) height: usize,
    pub(crate) width: usize,
    reach: Vec<Cells>,
    /// `into[cell * 8 + tile]`: the cells from which `tile` reaches `cell`.
    into: Vec<Vec<u16>>,
}

impl Geometry {
    pub(crate) fn new(height: usize, width: usize) -> Geometry {
        let mut reach = Vec::with_capacity(height * width * 8);
        for cell in 0..height * width {
            for tile in 0..8 {
                reach.push(reach_from(height, width, cell, tile));
            }
        }
        let mut into = vec![Vec::new(); height * width * 8];
        for from in 0..height * width {
            for tile in 0..8 {
                for &to in reach[from * 8 + tile].as_slice() {
                    into[to as usize * 8 + tile].push(from as u16);
                }
            }
        }
        Geometry {
            height,
            width,
            reach,
            into,
        }
    }

    /// The cells from which `tile` reaches `cell`.
    pub(crate) fn into(&self, cell: usize, tile: u8) -> &[u16] {
        &self.into[cell * 8 + tile as usize]
    }

    pub(crate) fn cells(&self) -> usize {
        self.height * self.width
    }

    /// The cells `tile` reaches from `cell`, empty or not.
    pub(crate) fn reach(&self, cell: usize, tile: u8) -> &[u16] {
        self.reach[cell * 8 + tile as usize].as_slice()
    }

    /// How many cells may be clicked after `tile` is removed from `cell`.
    #[inline]
    pub(crate) fn allowed_count(&self, left: &[u8], cell: usize, tile: u8) -> usize {
        self.reach(cell, tile)
            .iter()
            .filter(|&&next| left[next as usize] > 0)
            .count()
    }

    /// The cells that may be clicked after `tile` was removed from `cell`.
    pub(crate) fn allowed(&self, left: &[u8], cell: usize, tile: u8) -> Cells {
        let mut out = Cells::default();
        for &next in self.reach(cell, tile) {
            if left[next as usize] > 0 {
                out.push(next);
            }
        }
        out
    }
}

fn reach_from(height: usize, width: usize, cell: usize, tile: u8) -> Cells {
    let inside = |r: i32, c: i32| r >= 0 && c >= 0 && (r as usize) < height && (c as usize) < width;
    let (r, c) = ((cell / width) as i32, (cell % width) as i32);
    let mut out = Cells::default();
    let mut add = |rr: i32, cc: i32| {
        if inside(rr, cc) && (rr, cc) != (r, c) {
            out.push((rr as usize * width + cc as usize) as u16);
        }
    };
    match TILES[tile as usize] {
        b'1'..=b'4' => {
            let n = i32::from(TILES[tile as usize] - b'0');
            for (dr, dc) in LINES {
                add(r + dr * n, c + dc * n);
            }
        }
        b'K' => {
            for (dr, dc) in KNIGHT {
                add(r + dr, c + dc);
            }
        }
        slider => {
            let dirs = match slider {
                b'R' => &LINES[..4],
                b'B' => &LINES[4..],
                _ => &LINES[..],
            };
            // A slider lands only on the last cell of the board in each direction.
            for &(dr, dc) in dirs {
                let (mut rr, mut cc) = (r, c);
                while inside(rr + dr, cc + dc) {
                    rr += dr;
                    cc += dc;
                }
                add(rr, cc);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(g: &Geometry, r: usize, c: usize) -> u16 {
        (r * g.width + c) as u16
    }

    fn sorted(cells: &[u16]) -> Vec<u16> {
        let mut v = cells.to_vec();
        v.sort_unstable();
        v
    }

    #[test]
    fn steps_go_exactly_their_distance_in_eight_directions() {
        let g = Geometry::new(6, 7);
        // From (2, 3) a 2 reaches rows 0 and 4, columns 1 and 5, straight and diagonally.
        let two = tile_of(b'2').unwrap();
        let expected = [
            (0, 3),
            (4, 3),
            (2, 1),
            (2, 5),
            (0, 1),
            (0, 5),
            (4, 1),
            (4, 5),
        ];
        let expected: Vec<u16> = expected.iter().map(|&(r, c)| at(&g, r, c)).collect();
        assert_eq!(
            sorted(g.reach(at(&g, 2, 3) as usize, two)),
            sorted(&expected)
        );
        // A 4 from a corner of a 6x7 board: only (4, 0), (0, 4) and (4, 4).
        let four = tile_of(b'4').unwrap();
        let expected = vec![at(&g, 0, 4), at(&g, 4, 0), at(&g, 4, 4)];
        assert_eq!(sorted(g.reach(0, four)), sorted(&expected));
    }

    #[test]
    fn sliders_reach_only_the_edge_and_never_stop_early() {
        let g = Geometry::new(6, 6);
        let from = at(&g, 1, 2) as usize;
        // A rook from (1, 2): (0, 2), (5, 2), (1, 0), (1, 5).
        let rook = tile_of(b'R').unwrap();
        let expected = vec![at(&g, 0, 2), at(&g, 5, 2), at(&g, 1, 0), at(&g, 1, 5)];
        assert_eq!(sorted(g.reach(from, rook)), sorted(&expected));
        // A bishop from (1, 2): the last cells of its diagonals, (0, 1), (0, 3), (3, 0) and
        // (4, 5).
        let bishop = tile_of(b'B').unwrap();
        let expected = vec![at(&g, 0, 1), at(&g, 0, 3), at(&g, 3, 0), at(&g, 4, 5)];
        assert_eq!(sorted(g.reach(from, bishop)), sorted(&expected));
        // The edge cell emptied: the slider cannot stop on the cell before it.
        let mut left = vec![1u8; 36];
        left[at(&g, 1, 5) as usize] = 0;
        let allowed = g.allowed(&left, from, rook);
        assert_eq!(allowed.len(), 3);
        assert!(!allowed.as_slice().contains(&at(&g, 1, 4)));
        // A rook on the edge does not reach its own cell.
        assert_eq!(g.reach(at(&g, 0, 2) as usize, rook).len(), 3);
    }

    #[test]
    fn knights_jump_and_empty_cells_are_never_allowed() {
        let g = Geometry::new(6, 6);
        let knight = tile_of(b'K').unwrap();
        assert_eq!(g.reach(0, knight).len(), 2);
        assert_eq!(g.reach(at(&g, 2, 2) as usize, knight).len(), 8);
        let mut left = vec![3u8; 36];
        left[at(&g, 1, 2) as usize] = 0;
        assert_eq!(g.allowed(&left, 0, knight).as_slice(), &[at(&g, 2, 1)]);
    }
}
