//! What a batch test of a problem judged by a contest's tools (`tools-batch`, else the first
//! batch one found) costs in a run over running its player and its judge by hand,
//! uncontained, on the same input. Each measurement is the median of a block of
//! [`TOOL_TESTS`] tests in a row, as a run has them; the three kinds of block (by hand, in a
//! run in process mode, in a run sandboxed) take turns in a rotating order over
//! [`TOOL_ROUNDS`] rounds, each block started once the one before has left nothing working in
//! the background ([`crate::sandbox::settle`]), and each kind keeps its best block: these
//! virtual machines change pace by a millisecond from one second to the next. The player is
//! `/bin/echo 0` (its own time is not what is measured). Builds the problem's tools (into
//! the results' build cache), starts processes and writes only in temporary folders.

use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::figures::{median, ms};
use crate::context::Context;
use crate::error::{Classify, Error};
use crate::players;
use crate::problem::tools::{self, Def, Shape};
use crate::problem::{self, CaseKey};
use crate::runner::{self, Containment, Suite};

/// Tests in a row of one kind of batch test ([`tool_batch_cost`]).
const TOOL_TESTS: usize = 21;

/// Rounds of the batch test's measurement.
const TOOL_ROUNDS: usize = 5;

/// One test of one kind, timed.
type Once<'a> = &'a dyn Fn() -> Result<Duration, Error>;

/// The batch test's cost: by hand, in a run in process mode, in a run sandboxed. Nothing
/// when no problem is judged by batch tools.
pub(super) fn tool_batch_cost(
    context: &Context,
    open: &Containment,
    sandboxed: &Containment,
) -> Result<(), Error> {
    let Some(def) = batch_def() else {
        return Ok(());
    };
    let (player, _folder) = echo_player(context, &def)?;
    // The tools as built (in the harness's cache, never in the contest's folder): the
    // definition `echo_player`'s prepare left, which by hand runs too.
    let def = tools::def(def.id).unwrap_or(def);
    let case = CaseKey::Seed(1);
    let suites = [open, sandboxed].map(|c| suite_in(context, &def, &case, &player, c));
    let by_hand = ByHand::new(&def, context, &case)?;
    let kinds: [Once; 3] = [
        &|| by_hand.once(),
        &|| tool_test_once(&suites[0], open, &case, &player),
        &|| tool_test_once(&suites[1], sandboxed, &case, &player),
    ];
    // Tests in a row, as a run's worker has them (a test makes its judge ready for the
    // next); each block starts with nothing made ready (`settle` ends it).
    crate::sandbox::held_ahead::enable_here();
    let best = best_blocks(&kinds)?;
    for line in table(def.id, best, &sandboxed.isolation.describe()) {
        println!("{line}");
    }
    Ok(())
}

/// `tools-batch`, else the first problem judged by batch tools.
fn batch_def() -> Option<Arc<Def>> {
    tools::def("tools-batch").or_else(|| {
        problem::all()
            .iter()
            .filter_map(|p| tools::def(p.id()))
            .find(|d| d.shape == Shape::Batch)
    })
}

/// The problem's tools built, and a player `/bin/echo 0` of it, found in a temporary folder
/// (returned: it lives as long as the player is used).
fn echo_player(
    context: &Context,
    def: &Def,
) -> Result<(players::Player, tempfile::TempDir), Error> {
    let mut builds = crate::build::Builds::new(Duration::from_secs_f64(
        context.scoring.harness.build_timeout,
    ));
    builds.cache = Some(context.results(None).join(".cache").join("builds"));
    let problem = problem::by_id(def.id).expect("loaded");
    problem.prepare(&mut builds).map_err(Error::Usage)?;
    let tmp = tempfile::tempdir().fault()?;
    let folder = tmp.path().join("bench-echo");
    std::fs::create_dir(&folder).fault()?;
    std::fs::write(
        folder.join("player.toml"),
        format!("problem = {:?}\ncommand = [\"/bin/echo\", \"0\"]\n", def.id),
    )
    .fault()?;
    let ids = problem::ids();
    let (found, _) = players::discover(&[folder], None, &ids, &mut builds).usage()?;
    let player = found
        .into_iter()
        .next()
        .ok_or_else(|| Error::Usage("bench: no tool player".into()))?;
    Ok((player, tmp))
}

/// A suite of the one `case` and `player`, its problem attached to `containment`.
fn suite_in(
    context: &Context,
    def: &Def,
    case: &CaseKey,
    player: &players::Player,
    containment: &Containment,
) -> Suite {
    let problem = problem::by_id(def.id).expect("loaded");
    problem.attach(&containment.isolation);
    Suite {
        env: context.env(problem.id(), None),
        problem,
        cases: vec![case.clone()],
        players: vec![player.clone()],
        done: Default::default(),
    }
}

/// Each kind's best median of a block of [`TOOL_TESTS`], over [`TOOL_ROUNDS`] rounds in a
/// rotating order, after one test of each: a run makes its input (gen) once, and the first
/// test of a run makes what the later ones reuse.
fn best_blocks(kinds: &[Once; 3]) -> Result<[Duration; 3], Error> {
    for once in kinds {
        once()?;
    }
    let mut best = [Duration::MAX; 3];
    for round in 0..TOOL_ROUNDS {
        for k in 0..kinds.len() {
            let kind = (round + k) % kinds.len();
            crate::sandbox::settle(Duration::from_secs(2));
            let times = (0..TOOL_TESTS)
                .map(|_| kinds[kind]())
                .collect::<Result<Vec<_>, _>>()?;
            best[kind] = best[kind].min(median(times));
        }
    }
    Ok(best)
}

/// The table's lines for problem `id`: by hand, process mode, sandboxed (`sandbox`).
fn table(id: &str, [hand, in_open, in_box]: [Duration; 3], sandbox: &str) -> Vec<String> {
    vec![
        format!(
            "\na batch test of {id} (player /bin/echo 0; median of {TOOL_TESTS} in a row, best of {TOOL_ROUNDS}):"
        ),
        format!("  player and judge by hand             {:7.3} ms", ms(hand)),
        format!(
            "  in a run, process mode              {:7.3} ms   +{:.3} ms",
            ms(in_open),
            ms(in_open) - ms(hand)
        ),
        format!(
            "  in a run, sandboxed ({sandbox:<14}) {:7.3} ms   +{:.3} ms   {:.2}x (target <= +3 ms)",
            ms(in_box),
            ms(in_box) - ms(hand),
            in_box.as_secs_f64() / hand.as_secs_f64()
        ),
    ]
}

/// The time of one test of `case` in a run (its input already made: one per run).
fn tool_test_once(
    suite: &Suite,
    containment: &Containment,
    case: &CaseKey,
    player: &players::Player,
) -> Result<Duration, Error> {
    let start = Instant::now();
    let result = runner::run_one(suite, containment, case, player)
        .ok_or_else(|| Error::Interrupted("bench: interrupted".into()))?;
    let took = start.elapsed();
    if result.outcome.verdict == crate::verdict::Verdict::HarnessError {
        return Err(Error::Usage(format!("bench: {}", result.outcome.reason)));
    }
    Ok(took)
}

/// Running the player (`/bin/echo 0`) on the input of a case and the judge on its answer by
/// hand: plain processes, in a fresh folder each time, as a user would.
struct ByHand<'a> {
    def: &'a Def,
    input: String,
}

impl<'a> ByHand<'a> {
    fn new(def: &'a Def, context: &Context, case: &CaseKey) -> Result<ByHand<'a>, Error> {
        let problem = problem::by_id(def.id).expect("loaded");
        let input = problem
            .case(case, &context.env(def.id, None))
            .map_err(|e| Error::Usage(e.to_string()))?
            .describe();
        Ok(ByHand { def, input })
    }

    /// One test's time: the player, its answer written, the judge.
    fn once(&self) -> Result<Duration, Error> {
        use crate::problem::tools::judge;
        // On the file system of the run's own folders: what is compared is the harness's
        // work, not two file systems.
        let dir = tempfile::tempdir_in(crate::sandbox::scratch::base()).fault()?;
        let (in_path, out_path) = (dir.path().join("input.txt"), dir.path().join("output.txt"));
        std::fs::write(&in_path, &self.input).fault()?;
        let start = Instant::now();
        let answer = Command::new("/bin/echo")
            .arg("0")
            .stdin(std::fs::File::open(&in_path).fault()?)
            .output()
            .fault()?;
        std::fs::write(&out_path, &answer.stdout).fault()?;
        let args = judge::Placeholders {
            input: Some(in_path),
            output: Some(out_path),
            seed: Some(1),
            ..Default::default()
        }
        .apply(&self.def.judge);
        let judged = Command::new(judge::program(&self.def.tools, &args[0]))
            .args(&args[1..])
            .current_dir(dir.path())
            .stdin(Stdio::null())
            .output()
            .fault()?;
        let took = start.elapsed();
        if !judged.status.success() {
            return Err(Error::Usage(format!(
                "bench: the judge of {} failed by hand",
                self.def.id
            )));
        }
        Ok(took)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_gives_a_run_over_by_hand() {
        let best = [2000, 3500, 4900].map(Duration::from_micros);
        assert_eq!(
            table("tools-batch", best, "namespaces"),
            [
                "\na batch test of tools-batch (player /bin/echo 0; median of 21 in a row, best of 5):",
                "  player and judge by hand               2.000 ms",
                "  in a run, process mode                3.500 ms   +1.500 ms",
                "  in a run, sandboxed (namespaces    )   4.900 ms   +2.900 ms   2.45x (target <= +3 ms)",
            ]
        );
    }
}
