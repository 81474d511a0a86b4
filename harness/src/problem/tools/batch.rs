//! The batch shape (AtCoder): the player reads its input on stdin and writes its answer on
//! stdout, as an exact-answer problem's player does (the same limits and verdicts); then the
//! judge runs contained over the input and the answer, and [`judge::judge_outcome`] reads
//! its score. The pictures it leaves in its folder (`pictures`) are kept for the report.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use super::config::Def;
use super::inputs::{self, Made};
use super::judge::{self, Placeholders};
use crate::problem::{CaseError, Channel, Game, Picture};
use crate::sandbox::tool::{self, Stdin, ToolCommand, ToolDir};
use crate::sandbox::Isolation;
use crate::verdict::{Fault, Outcome, Verdict};

/// File names of the input and the answer in the judge's working folder.
const INPUT: &str = "input.txt";
const OUTPUT: &str = "output.txt";

/// One test of a batch problem.
pub struct BatchGame {
    def: Arc<Def>,
    isolation: Arc<Isolation>,
    made: Arc<Made>,
    input: String,
    pictures: Vec<Picture>,
}

impl BatchGame {
    pub fn new(
        def: Arc<Def>,
        isolation: Arc<Isolation>,
        made: Arc<Made>,
    ) -> Result<BatchGame, CaseError> {
        let input = CaseError::read(&made.path)?;
        Ok(BatchGame {
            def,
            isolation,
            made,
            input,
            pictures: Vec::new(),
        })
    }

    /// Makes the judge ready while the player runs: its sandbox set up first, held before the
    /// exec of the judge until the answer is there ([`tool::Held`]), then its folder filled
    /// (the tools shown, the input copied) while both sandboxes are being set up. A failure
    /// here is the harness's, told once the player has answered.
    fn ready_judge(&self) -> Result<Ready, String> {
        let ws = ToolDir::new(self.isolation.scratch())
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
        let ready = Ready {
            ws: Some(ws),
            held: Some(held),
            answer,
        };
        let mut outputs = vec![INPUT, OUTPUT];
        outputs.extend(self.def.pictures.iter().map(String::as_str));
        judge::show_tools(ready.folder(), &self.def.tools, &outputs)
            .map_err(|e| format!("cannot make the judge's folder: {e}"))?;
        // Readable by the judge whatever the made input's mode: the folder is no longer
        // handed to the judge's id (that happened when its sandbox was set up).
        use std::os::unix::fs::PermissionsExt;
        std::fs::copy(&self.made.path, &input)
            .and_then(|_| std::fs::set_permissions(&input, std::fs::Permissions::from_mode(0o644)))
            .map_err(|e| format!("cannot write the judge's files: {e}"))?;
        Ok(ready)
    }

    /// Runs the judge over the player's answer.
    fn judge(&mut self, ready: Result<Ready, String>, output: &str) -> Outcome {
        let mut ready = match ready {
            Ok(ready) => ready,
            Err(why) => return Outcome::failed(Verdict::HarnessError, why),
        };
        // A new file: nothing the folder held before can redirect the write.
        let written = std::fs::File::create_new(&ready.answer)
            .and_then(|mut f| std::io::Write::write_all(&mut f, output.as_bytes()));
        if let Err(e) = written {
            return Outcome::failed(
                Verdict::HarnessError,
                format!("cannot write the judge's files: {e}"),
            );
        }
        let run = ready.held.take().expect("held until now").go();
        let work = ready.folder().work();
        for name in &self.def.pictures {
            if let Ok(bytes) = std::fs::read(work.join(name)) {
                self.pictures.push(Picture {
                    name: name.clone(),
                    bytes,
                });
            }
        }
        let outcome = judge::judge_outcome(&self.def, &run, 1)
            .unwrap_or_else(|| Outcome::fault(&Fault::Interrupted, 0.0, 0));
        judge::keep_log(&self.def, &outcome, &run, &mut self.pictures);
        outcome
    }
}

/// A judge made ready for one test ([`BatchGame::ready_judge`]).
struct Ready {
    ws: Option<ToolDir>,
    held: Option<tool::Held>,
    /// Where the player's answer goes (written just before the judge's go).
    answer: PathBuf,
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

    fn play(&mut self, player: &mut dyn Channel) -> Outcome {
        // The player's sandbox is starting: the judge's is made ready beside it.
        let ready = self.ready_judge();
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
