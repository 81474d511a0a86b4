//! The batch shape (AtCoder): the player reads its input on stdin and writes its answer on
//! stdout, as an exact-answer problem's player does (the same limits and verdicts); then the
//! judge runs contained over the input and the answer, and [`judge::judge_answer`] reads
//! its score. The pictures it leaves in its folder (`pictures`) are kept for the report, read
//! safely ([`judge::left_pictures`]).
//!
//! The judge is made ready beside the player, not after it: its sandbox is launched just
//! after the player's ([`Game::player_starting`]) and set up in full while the player's is,
//! held before the exec of the judge until the answer is there ([`tool::Held`]); its folder
//! is made ahead of the test ([`judge::JudgeFolders`]: the tools shown, the input's and the
//! answer's files made) and the input written into it meanwhile; the answer is written once
//! the player has answered. After the answer a test waits only for the answer's bytes, the
//! go, the judge itself and the reports. On a run's worker the judge is launched earlier
//! still: each test launches the judge of the worker's next test while its own judge runs
//! (kept in [`held_ahead`] until that test takes it; every judge is still a fresh sandbox
//! in a fresh folder), so that a quick player's answer need not wait for its judge's
//! sandbox to be set up.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use super::config::Def;
use super::inputs::{self, Made};
use super::judge::{self, JudgeFolders, Placeholders};
use crate::problem::{CaseError, Channel, Game, Picture};
use crate::sandbox::held_ahead;
use crate::sandbox::tool::{self, Stdin, ToolCommand, ToolDir};
use crate::sandbox::Isolation;
use crate::verdict::{Fault, Outcome, Verdict};

/// File names of the input and the answer in the judge's working folder.
pub const INPUT: &str = "input.txt";
pub const OUTPUT: &str = "output.txt";

/// One test of a batch problem.
pub struct BatchGame {
    def: Arc<Def>,
    isolation: Arc<Isolation>,
    made: Arc<Made>,
    folders: Arc<JudgeFolders>,
    input: String,
    /// The judge, launched by [`Game::player_starting`] (or by [`Game::play`] when nobody
    /// called it).
    judge: Option<Result<Ready, String>>,
    pictures: Vec<Picture>,
}

impl BatchGame {
    pub fn new(
        def: Arc<Def>,
        isolation: Arc<Isolation>,
        made: Arc<Made>,
        folders: Arc<JudgeFolders>,
    ) -> Result<BatchGame, CaseError> {
        let input = made.text()?;
        Ok(BatchGame {
            def,
            isolation,
            made,
            folders,
            input,
            judge: None,
            pictures: Vec::new(),
        })
    }

    /// The judges' folders of a problem's run: the tools shown but for the names a batch
    /// judge writes (its input, the answer and its pictures), the input and the answer's
    /// files made.
    pub fn folders(def: &Def) -> JudgeFolders {
        let mut outputs = vec![INPUT.to_string(), OUTPUT.to_string()];
        outputs.extend(def.pictures.iter().cloned());
        let files = vec![INPUT.to_string(), OUTPUT.to_string()];
        JudgeFolders::new(&def.tools, outputs, files, judge::linked_in_copies(def))
    }

    /// The judge of this test: the one the thread's last test of this problem in this run
    /// made ready for it ([`BatchGame::ready_the_next`]), else one launched now.
    fn ready_judge(&self) -> Result<Ready, String> {
        let ours = |a: &Ahead| {
            Arc::ptr_eq(&a.folders, &self.folders) && Arc::ptr_eq(&a.isolation, &self.isolation)
        };
        match held_ahead::take(ours) {
            Some(ahead) => Ok(ahead.ready),
            None => self.launch_judge(),
        }
    }

    /// Launches the judge of the thread's next test of this problem in this run, kept for it
    /// ([`held_ahead`]), while this test's judge runs: its sandbox is then set up by the time
    /// that test's player answers, even a quick one. Only for a judge whose command is the
    /// same for every test (no `{seed}`: its input and answer are files of its own folder,
    /// filled by the test that takes it).
    fn ready_the_next(&self) {
        let same_for_all = !self.def.judge.iter().any(|a| a.contains("{seed"));
        if !held_ahead::enabled() || !same_for_all {
            return;
        }
        if let Ok(ready) = self.launch_judge() {
            held_ahead::keep(Ahead {
                folders: self.folders.clone(),
                isolation: self.isolation.clone(),
                ready,
            });
        }
    }

    /// Launches the judge's sandbox in a fresh folder (made ahead, [`JudgeFolders`]), held
    /// before the exec of the judge until the answer is there ([`tool::Held`]). What is left
    /// to do in the folder is [`BatchGame::fill`]'s, once the player's sandbox is starting
    /// too. A failure here is the harness's, told once the player has answered.
    fn launch_judge(&self) -> Result<Ready, String> {
        let ws = self
            .folders
            .take(&self.isolation)
            .map_err(|e| format!("cannot make the judge's folder: {e}"))?;
        let (input, answer) = (ws.work().join(INPUT), ws.work().join(OUTPUT));
        let values = Placeholders {
            input: Some(input.clone()),
            output: Some(answer.clone()),
            seed: Some(self.made.tool_seed),
            ..Placeholders::default()
        };
        let args = values.apply(&self.def.judge);
        let cmd = ToolCommand {
            program: judge::program(&self.def.tools, &args[0]),
            args: args[1..].to_vec(),
            tools: self.def.tools.clone(),
            read_only: Vec::new(),
            env: super::tool_env(),
            stdin: Stdin::Null,
            stdout: None,
            timeout: Duration::from_secs_f64(self.def.judge_timeout),
            limits: inputs::tool_limits(&self.def),
            max_output: 64 << 20,
        };
        let held = tool::hold(&self.isolation, &cmd, &ws);
        Ok(Ready {
            ws: Some(ws),
            held: Some(held),
            input,
            answer,
            answer_file: None,
        })
    }

    /// Writes the input into the held judge's folder and opens the answer's file (written
    /// once the player has answered): both files were made with the folder. The judge's
    /// sandbox shows the folder as it is on the host, and nothing of the judge runs before
    /// its go, so none of this need precede its launch.
    fn fill(&self, ready: &mut Ready) -> Result<(), String> {
        let write = || -> std::io::Result<std::fs::File> {
            judge::open_made(&ready.input)?.write_all(self.input.as_bytes())?;
            judge::open_made(&ready.answer)
        };
        let answer = write().map_err(|e| format!("cannot write the judge's files: {e}"))?;
        ready.answer_file = Some(answer);
        Ok(())
    }

    /// Runs the judge over the player's answer.
    fn judge(&mut self, ready: Result<Ready, String>, output: &str) -> Outcome {
        let mut ready = match ready {
            Ok(ready) => ready,
            Err(why) => return Outcome::failed(Verdict::HarnessError, why),
        };
        // Through the file made before the judge could run: no path is looked up now.
        let written = match ready.answer_file.take() {
            Some(mut file) => file.write_all(output.as_bytes()),
            None => Err(std::io::Error::other("the answer's file was not made")),
        };
        if let Err(e) = written {
            return Outcome::failed(
                Verdict::HarnessError,
                format!("cannot write the judge's files: {e}"),
            );
        }
        // The next test's judge is launched while this one runs.
        let held = ready.held.take().expect("held until now");
        let run = held.go_then(|| self.ready_the_next());
        let work = ready.folder().work();
        let left = judge::left_pictures(&self.def, &work, self.made.tool_seed);
        let Some(outcome) = judge::judge_answer(&self.def, &run, output) else {
            return Outcome::fault(&Fault::Interrupted, 0.0, 0);
        };
        let outcome = judge::with_pictures(outcome, left, &mut self.pictures);
        judge::keep_log(&self.def, &outcome, &run, &mut self.pictures);
        outcome
    }
}

/// A judge made ready by a test for the next of its thread ([`BatchGame::ready_the_next`]):
/// for a test of the same problem (its judges' folders) in the same run.
struct Ahead {
    folders: Arc<JudgeFolders>,
    isolation: Arc<Isolation>,
    ready: Ready,
}

/// A judge made ready for one test ([`BatchGame::launch_judge`], [`BatchGame::fill`]).
struct Ready {
    ws: Option<ToolDir>,
    held: Option<tool::Held>,
    /// Where the input goes.
    input: PathBuf,
    /// Where the player's answer goes, and its file as [`BatchGame::fill`] opened it.
    answer: PathBuf,
    answer_file: Option<std::fs::File>,
}

impl Ready {
    fn folder(&self) -> &ToolDir {
        self.ws.as_ref().expect("until dropped")
    }
}

impl Drop for Ready {
    fn drop(&mut self) {
        // The judge's sandbox first (ended unrun if it never had its go), then its folder,
        // off the test's path: it was a mount point of that sandbox.
        drop(self.held.take());
        drop(self.answer_file.take());
        if let Some(ws) = self.ws.take() {
            ws.dispose();
        }
    }
}

impl Game for BatchGame {
    fn params(&self) -> Vec<String> {
        self.def.params_of_input(&self.input)
    }

    fn describe(&self) -> String {
        self.input.clone()
    }

    /// The judge's sandbox is launched right after the player's: the player's setup is on
    /// the test's path and the judge's is not (it is needed only once the player has
    /// answered), so the player's comes first, and the test's thread does not wait for the
    /// judge's supervisor to start before it launches the player's.
    fn player_starting(&mut self) {
        if self.judge.is_none() {
            self.judge = Some(self.ready_judge());
        }
    }

    fn play(&mut self, player: &mut dyn Channel) -> Outcome {
        // Both sandboxes are starting: the judge's folder is filled meanwhile, before the
        // player has its input (this work is not in its thinking time).
        let mut ready = self.judge.take().unwrap_or_else(|| self.ready_judge());
        if let Ok(r) = &mut ready {
            if let Err(why) = self.fill(r) {
                ready = Err(why);
            }
        }
        match player.send(&self.input) {
            // A player may answer without reading all of its input.
            Ok(()) | Err(Fault::Gone(_)) => {}
            Err(fault) => return Outcome::fault(&fault, 0.0, 0),
        }
        let output = match player.recv_to_end() {
            Ok(output) => output.to_string(),
            Err(fault) => return Outcome::fault(&fault, 0.0, 0),
        };
        self.judge(ready, &output)
    }

    fn pictures(&mut self) -> Vec<Picture> {
        std::mem::take(&mut self.pictures)
    }
}
