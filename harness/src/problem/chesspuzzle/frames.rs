//! ChessPuzzle frames: the board after every click, drawn from the rule functions of
//! [`crate::problem::chesspuzzle`] (`click`, `targets`, `parse_click`); nothing is re-judged
//! here (the final score comes from the judge itself, see [`crate::replay::build`]).

use serde_json::{json, Value};

use super::{parse_click, Board, Cell, IllegalClick, Puzzle, Tile};

fn view(board: &Board) -> (Vec<String>, Vec<Vec<usize>>) {
    let tops = (0..board.height)
        .map(|r| {
            (0..board.width)
                .map(|c| board.top((r, c)).map_or('-', Tile::to_char))
                .collect()
        })
        .collect();
    let heights = (0..board.height)
        .map(|r| (0..board.width).map(|c| board.remaining((r, c))).collect())
        .collect();
    (tops, heights)
}

fn cells(cells: &[Cell]) -> Vec<[usize; 2]> {
    cells.iter().map(|&(r, c)| [r, c]).collect()
}

/// One frame per click, after a first frame of the starting board. Each frame has the top
/// tiles (`-` for empty), the stack heights, the clicked cell and the tile it removed, the
/// cells allowed next, and the score the game would have if it ended there. A refused click
/// ends the frames with one that says why (its `move` is the count of accepted clicks).
pub(super) fn frames(board: Board, answers: &[String]) -> Vec<Value> {
    let total = board.total_tiles() as f64;
    let (tops, heights) = view(&board);
    let all: Vec<Cell> = (0..board.height)
        .flat_map(|r| (0..board.width).map(move |c| (r, c)))
        .filter(|&cell| !board.is_empty(cell))
        .collect();
    let mut out = vec![json!({
        "move": 0, "score": 0.0, "tops": tops, "heights": heights,
        "allowed": cells(&all), "note": "start: any cell may be clicked",
        "k": board.k, "total": board.total_tiles(),
    })];
    let mut puzzle = Puzzle::new(board);
    for (i, answer) in answers.iter().enumerate() {
        let clicks = i + 1;
        let cell = match parse_click(answer, &puzzle.board) {
            Ok(cell) => cell,
            Err(why) => {
                out.push(json!({"move": i, "error": format!("click {clicks}: {why}")}));
                break;
            }
        };
        let tile = match puzzle.try_click(cell) {
            Ok(tile) => tile,
            Err(IllegalClick::NotAllowed { .. }) => {
                out.push(json!({"move": i, "clicked": [cell.0, cell.1],
                    "error": format!("click {clicks}: ({}, {}) is not allowed", cell.0, cell.1)}));
                break;
            }
            Err(IllegalClick::Empty(_)) => {
                out.push(json!({"move": i, "error": format!("click {clicks}: cell is empty")}));
                break;
            }
        };
        let (tops, heights) = view(&puzzle.board);
        out.push(json!({
            "move": clicks, "score": clicks as f64 / total, "tops": tops, "heights": heights,
            "clicked": [cell.0, cell.1], "tile": tile.to_char().to_string(),
            "allowed": cells(puzzle.allowed().unwrap_or_default()),
            "note": format!("click {clicks}: ({}, {}) removed {}", cell.0, cell.1, tile.to_char()),
        }));
    }
    out
}
