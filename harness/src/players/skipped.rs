//! What a run leaves out of the paths it was given, and how it says so: things a `players/*`
//! glob matches that are not players (an old results folder, a README, a LICENSE), the
//! players of other problems than `--problem`, summed up in one note, and the players that
//! need a program this machine lacks, one note per missing program.

use std::path::Path;

/// A player that will not take part in this run, and why.
#[derive(Clone, Debug)]
pub struct Skipped {
    pub name: String,
    pub reason: String,
    /// Skipped for playing this problem, not the one `--problem` chose.
    pub plays: Option<String>,
    /// Left out because a program it needs is not on this machine (`reason` says which, and
    /// the package to install): one note for all the players that lack the same.
    pub needs: bool,
}

/// The notes on skipped players to show before a run: one line each, except the players of
/// another problem than `only` (`--problem`), summed up in one note (how many, and their
/// names wrapped to 100 columns): a run of one problem skips every other player; and the
/// players left out for a program this machine lacks, one note per reason.
pub(crate) fn skip_notes(skipped: &[Skipped], only: Option<&str>) -> Vec<String> {
    let one = |s: &Skipped| format!("skipped player {}: {}", s.name, s.reason);
    let (others, mut notes): (Vec<&Skipped>, Vec<String>) = (
        skipped.iter().filter(|s| s.plays.is_some()).collect(),
        skipped
            .iter()
            .filter(|s| s.plays.is_none() && !s.needs)
            .map(one)
            .collect(),
    );
    let mut reasons: Vec<&str> = Vec::new();
    for s in skipped.iter().filter(|s| s.needs) {
        if !reasons.contains(&s.reason.as_str()) {
            reasons.push(&s.reason);
        }
    }
    for reason in reasons {
        let names: Vec<&str> = skipped
            .iter()
            .filter(|s| s.needs && s.reason == reason)
            .map(|s| s.name.as_str())
            .collect();
        notes.push(match names.len() {
            1 => format!("left out player {}: {reason}", names[0]),
            n => wrap(
                format!("left out {n} players: {reason}:"),
                names.into_iter(),
                100,
            ),
        });
    }
    match only {
        Some(only) if others.len() > 1 => {
            let head = format!(
                "skipped {} players that play another problem than {only}:",
                others.len()
            );
            notes.push(wrap(head, others.iter().map(|s| s.name.as_str()), 100));
        }
        _ => notes.extend(others.into_iter().map(one)),
    }
    notes
}

/// `head` and then `words` joined by ", ", broken into lines of at most `width` columns (a
/// longer word has a line of its own), the lines after the first indented by two spaces.
fn wrap<'a>(head: String, words: impl Iterator<Item = &'a str>, width: usize) -> String {
    let mut out = String::new();
    let mut line = head;
    let words: Vec<&str> = words.collect();
    for (i, word) in words.iter().enumerate() {
        let item = if i + 1 < words.len() {
            format!("{word},")
        } else {
            word.to_string()
        };
        if line.trim_start().is_empty() || line.chars().count() + 1 + item.chars().count() <= width
        {
            if !line.trim_start().is_empty() {
                line.push(' ');
            }
            line.push_str(&item);
        } else {
            out.push_str(&line);
            out.push('\n');
            line = format!("  {item}");
        }
    }
    out.push_str(&line);
    out
}

/// Why something a `players/*` glob matched is not a player a user could mean: a folder of
/// run results (an old `players/results/`), or a file kept beside the players that is not
/// executable: a text file (a README, notes), a project file (LICENSE, Makefile), a hidden
/// file (`.gitignore`). `None` for everything else, which [`describe`] then judges (so a
/// program that is not executable yet gets "chmod +x it").
pub(super) fn not_a_player(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    if meta.is_dir() {
        if path.join("player.toml").exists() || path.join("Cargo.toml").exists() {
            return None;
        }
        let holds_runs = path.join("latest").exists()
            || path.join("best.csv").exists()
            || std::fs::read_dir(path).ok()?.flatten().any(|e| {
                let run = e.path();
                run.join("scores.csv").is_file() && run.join("run.toml").is_file()
            });
        return holds_runs.then(|| {
            "a folder of run results, not a player (runs are written to results/ beside \
             scoring.toml; this one can be removed)"
                .to_string()
        });
    }
    let executable = std::os::unix::fs::PermissionsExt::mode(&meta.permissions()) & 0o111 != 0;
    if executable {
        return None;
    }
    let name = path.file_name()?.to_string_lossy().to_lowercase();
    let text = [
        "md", "markdown", "txt", "rst", "adoc", "org", "toml", "csv", "tsv", "json", "yaml", "yml",
        "ini", "cfg", "log", "html", "pdf",
    ];
    let project = [
        "readme",
        "license",
        "licence",
        "copying",
        "notice",
        "authors",
        "changelog",
        "changes",
        "contributing",
        "todo",
        "makefile",
        "gnumakefile",
        "dockerfile",
    ];
    let stem = name.split('.').next().unwrap_or_default();
    let is_text = name
        .rsplit_once('.')
        .is_some_and(|(_, ext)| text.contains(&ext));
    if name.starts_with('.') {
        Some("a hidden file, not executable: not a player".to_string())
    } else if is_text {
        Some("a text file, not executable: not a player".to_string())
    } else if project.contains(&stem) {
        Some("a project file (README, LICENSE, Makefile...), not executable: not a player".into())
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn players_of_other_problems_are_one_note_with_their_names_wrapped() {
        let other = |name: &str| Skipped {
            name: name.to_string(),
            reason: "plays chesspuzzle, not linez".into(),
            plays: Some("chesspuzzle".into()),
            needs: false,
        };
        let stray = Skipped {
            name: "players/README".into(),
            reason: "a project file".into(),
            plays: None,
            needs: false,
        };
        let mut skipped: Vec<Skipped> = (0..12)
            .map(|i| other(&format!("chesspuzzle-player-{i:02}")))
            .collect();
        skipped.push(stray.clone());
        let notes = skip_notes(&skipped, Some("linez"));
        assert_eq!(notes.len(), 2, "{notes:#?}");
        assert_eq!(notes[0], "skipped player players/README: a project file");
        let lines: Vec<&str> = notes[1].lines().collect();
        assert!(
            lines[0].starts_with("skipped 12 players that play another problem than linez: "),
            "{}",
            notes[1]
        );
        assert!(lines.len() > 1 && lines.iter().all(|l| l.chars().count() <= 100));
        assert!(lines[1..].iter().all(|l| l.starts_with("  ")));
        let names: Vec<&str> = notes[1]
            .split_once(": ")
            .unwrap()
            .1
            .split(',')
            .map(str::trim)
            .collect();
        let expected: Vec<String> = (0..12)
            .map(|i| format!("chesspuzzle-player-{i:02}"))
            .collect();
        assert_eq!(names, expected);
        // One player of another problem keeps its own line.
        let notes = skip_notes(&[other("solo")], Some("linez"));
        assert_eq!(notes, ["skipped player solo: plays chesspuzzle, not linez"]);
    }

    #[test]
    fn players_left_out_for_the_same_missing_program_are_one_note() {
        let lacking = |name: &str, reason: &str| Skipped {
            name: name.to_string(),
            reason: reason.to_string(),
            plays: None,
            needs: true,
        };
        let python = "python3 not found (apt-get install python3)";
        let skipped = [
            lacking("players/a", python),
            lacking("players/cpp", "c++ not found (apt-get install g++)"),
            lacking("players/b", python),
        ];
        assert_eq!(
            skip_notes(&skipped, None),
            [
                format!("left out 2 players: {python}: players/a, players/b"),
                "left out player players/cpp: c++ not found (apt-get install g++)".to_string(),
            ]
        );
    }
}
