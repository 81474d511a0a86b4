//! Judging a Linez move allocates nothing: a whole game costs the same few allocations
//! however long it lasts. Counted with a global allocator of this test binary alone, on the
//! test's own thread (the test runner's threads allocate when they like).

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use harness::config::ProblemConfig;
use harness::problem::linez::{Board, Cell, CELLS, SIDE};
use harness::problem::{CaseKey, Channel, Env, Problem};
use harness::verdict::{Fault, Verdict};

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// Whether this thread's allocations are counted.
    static COUNTED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

// SAFETY: every call is handed on to the system allocator unchanged; counting touches only an
// atomic and a thread-local flag, neither of which allocates.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if COUNTED.with(|c| c.get()) {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: the caller's layout, as GlobalAlloc::alloc requires of it.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `alloc` above (the system's) with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// A player that moves the first number that can move to the first cell it can reach,
/// reading the view and writing its answer without allocating.
struct FirstMove {
    board: Board,
    answer: [u8; 4],
    turns: u64,
}

impl Channel for FirstMove {
    fn send(&mut self, text: &str) -> Result<(), Fault> {
        let mut cells = text.bytes().filter(|b| *b != b'\n');
        for i in 0..CELLS {
            let ch = cells.next().expect("a whole board");
            self.board
                .set(Cell::from_index(i), if ch == b'.' { 0 } else { ch - b'0' });
        }
        Ok(())
    }

    fn recv(&mut self) -> Result<&str, Fault> {
        self.turns += 1;
        let (from, to) = (0..CELLS)
            .map(Cell::from_index)
            .filter(|&c| self.board.get(c) != 0)
            .find_map(|from| {
                let reach = self.board.reachable_from(from);
                (reach != 0).then(|| (from, Cell::from_index(reach.trailing_zeros() as usize)))
            })
            .expect("the judge only asks when a move exists");
        for (i, cell) in [from, to].into_iter().enumerate() {
            self.answer[2 * i] = b'A' + cell.row() as u8;
            self.answer[2 * i + 1] = b'1' + cell.col() as u8;
        }
        Ok(std::str::from_utf8(&self.answer).expect("ascii"))
    }

    fn recv_to_end(&mut self) -> Result<&str, Fault> {
        unreachable!("Linez never reads to the end")
    }
}

#[test]
fn a_whole_game_allocates_a_constant_few_times() {
    assert_eq!(SIDE, 9);
    let env = Env {
        testcases: Path::new(env!("CARGO_MANIFEST_DIR")).join("../testcases"),
        config: ProblemConfig::default(),
        secret: None,
    };
    let mut game = harness::problem::linez::Linez
        .case(&CaseKey::Seed(5), &env)
        .unwrap();
    let mut player = FirstMove {
        board: Board::EMPTY,
        answer: [0; 4],
        turns: 0,
    };
    COUNTED.with(|c| c.set(true));
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    let outcome = game.play(&mut player);
    let during = ALLOCATIONS.load(Ordering::Relaxed) - before;
    COUNTED.with(|c| c.set(false));
    assert_eq!(outcome.verdict, Verdict::Ok, "{outcome:?}");
    assert!(outcome.moves >= 20, "a real game: {outcome:?}");
    // The message buffer, once per game.
    assert!(
        during <= 2,
        "{during} allocations in a game of {} moves",
        outcome.moves
    );
}
