//! The top-level modules of harness/src import downward only: no circle between them
//! (issue 39). Reads the sources, builds the graph of references from one top-level module
//! to another, and fails naming the modules of any circle and the files that close it.
//!
//! A reference is a path in code that reaches the crate's root and names a top-level
//! module: `crate::m` (also `$crate::m`, and each first name of a group, `crate::{m, n::x}`),
//! or as many `super::` as the module is deep (`super::super::m` in `a/b.rs`), in `use`
//! statements and anywhere else in code; comments and string literals are not code.
//! Excluded: `#[cfg(test)]` modules (unit tests may reach up: they are not built into the
//! harness), and the two programs `main.rs` and `sandbox_main.rs` (they use the library by
//! its name, from outside).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// from -> to -> the files (relative to src/) whose references make that edge.
type Graph = BTreeMap<String, BTreeMap<String, BTreeSet<String>>>;

#[derive(Clone, Debug, PartialEq)]
enum Token {
    Ident(String),
    /// `::`
    Path,
    Punct(char),
}

/// The tokens of Rust source that matter for paths: names and punctuation, with comments,
/// string, character and number literals and lifetimes left out.
fn tokens(src: &str) -> Vec<Token> {
    let chars: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c.is_whitespace() {
            i += 1;
        } else if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            i = skip_block_comment(&chars, i);
        } else if c == '"' {
            i = skip_string(&chars, i + 1);
        } else if c == '\'' {
            i = skip_quote(&chars, i);
        } else if c.is_ascii_digit() {
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            match (word.as_str(), chars.get(i)) {
                ("r" | "br" | "cr", Some('"' | '#')) => i = skip_raw_string(&chars, i),
                ("b" | "c", Some('"')) => i = skip_string(&chars, i + 1),
                ("b", Some('\'')) => i = skip_quote(&chars, i),
                _ => out.push(Token::Ident(word)),
            }
        } else if c == ':' && next == Some(':') {
            out.push(Token::Path);
            i += 2;
        } else {
            out.push(Token::Punct(c));
            i += 1;
        }
    }
    out
}

/// Past a block comment starting at `i` (they nest).
fn skip_block_comment(chars: &[char], mut i: usize) -> usize {
    let mut depth = 0;
    while i < chars.len() {
        if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
            depth += 1;
            i += 2;
        } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
            depth -= 1;
            i += 2;
            if depth == 0 {
                return i;
            }
        } else {
            i += 1;
        }
    }
    i
}

/// Past the end of a string whose contents start at `i`.
fn skip_string(chars: &[char], mut i: usize) -> usize {
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 2,
            '"' => return i + 1,
            _ => i += 1,
        }
    }
    i
}

/// Past a raw string whose `#`s or opening quote are at `i`.
fn skip_raw_string(chars: &[char], mut i: usize) -> usize {
    let mut hashes = 0;
    while chars.get(i) == Some(&'#') {
        hashes += 1;
        i += 1;
    }
    i += 1; // the opening quote
    while i < chars.len() {
        if chars[i] == '"' && (1..=hashes).all(|h| chars.get(i + h) == Some(&'#')) {
            return i + 1 + hashes;
        }
        i += 1;
    }
    i
}

/// Past a character literal or a lifetime whose quote is at `i`.
fn skip_quote(chars: &[char], i: usize) -> usize {
    match (chars.get(i + 1), chars.get(i + 2)) {
        (Some('\\'), _) => {
            let mut j = i + 2;
            while j < chars.len() && chars[j] != '\'' {
                j += 1;
            }
            j + 1
        }
        (Some(_), Some('\'')) => i + 3,
        // A lifetime: its name is skipped as a word would be.
        _ => {
            let mut j = i + 1;
            while j < chars.len() && (chars[j].is_alphanumeric() || chars[j] == '_') {
                j += 1;
            }
            j
        }
    }
}

/// The top-level modules a file's code names, given the file's module path (`["a", "b"]`
/// for `a/b.rs` and `a/b/mod.rs`) and the crate's top-level modules.
fn references(src: &str, module: &[String], tops: &BTreeSet<String>) -> BTreeSet<String> {
    let toks = tokens(src);
    let mut found = BTreeSet::new();
    // Inline modules opened (the brace depth inside each), beyond the file's own path.
    let mut inline: Vec<usize> = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    while i < toks.len() {
        if let Some(end) = cfg_test_module(&toks, i) {
            i = end;
            continue;
        }
        match &toks[i] {
            Token::Punct('{') => depth += 1,
            Token::Punct('}') => {
                depth = depth.saturating_sub(1);
                if inline.last() == Some(&(depth + 1)) {
                    inline.pop();
                }
            }
            Token::Ident(w) if w == "mod" => {
                if let (Some(Token::Ident(_)), Some(Token::Punct('{'))) =
                    (toks.get(i + 1), toks.get(i + 2))
                {
                    inline.push(depth + 1);
                }
            }
            Token::Ident(w) if w == "crate" && toks.get(i + 1) == Some(&Token::Path) => {
                first_names(&toks, i + 2, &mut found);
            }
            Token::Ident(w) if w == "super" && !after_path(&toks, i) => {
                let mut j = i;
                let mut ups = 0;
                while toks.get(j) == Some(&Token::Ident("super".into()))
                    && toks.get(j + 1) == Some(&Token::Path)
                {
                    ups += 1;
                    j += 2;
                }
                if ups > 0 && ups == module.len() + inline.len() {
                    first_names(&toks, j, &mut found);
                }
                i = j.max(i + 1);
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    found.retain(|m| tops.contains(m) && module.first() != Some(m));
    found
}

/// Whether the token at `i` continues a path (`a::super` is not a path's start).
fn after_path(toks: &[Token], i: usize) -> bool {
    i > 0 && toks[i - 1] == Token::Path
}

/// The first names after a path's root at `i`: one name, or each of a group's.
fn first_names(toks: &[Token], i: usize, found: &mut BTreeSet<String>) {
    match toks.get(i) {
        Some(Token::Ident(name)) => {
            found.insert(name.clone());
        }
        Some(Token::Punct('{')) => {
            let mut depth = 0;
            let mut at_start = true;
            for tok in &toks[i..] {
                match tok {
                    Token::Punct('{') => {
                        depth += 1;
                        at_start = depth == 1;
                        continue;
                    }
                    Token::Punct('}') => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    Token::Punct(',') if depth == 1 => {
                        at_start = true;
                        continue;
                    }
                    Token::Ident(name) if at_start && depth == 1 => {
                        found.insert(name.clone());
                    }
                    _ => {}
                }
                at_start = false;
            }
        }
        _ => {}
    }
}

/// When a `#[cfg(test)]` module (inline or a file of its own) starts at `i`: the index past
/// its end.
fn cfg_test_module(toks: &[Token], i: usize) -> Option<usize> {
    let attr = [
        Token::Punct('#'),
        Token::Punct('['),
        Token::Ident("cfg".into()),
        Token::Punct('('),
        Token::Ident("test".into()),
        Token::Punct(')'),
        Token::Punct(']'),
    ];
    if !toks[i..].starts_with(&attr) {
        return None;
    }
    let mut j = i + attr.len();
    if toks.get(j) == Some(&Token::Ident("pub".into())) {
        j += 1;
        if toks.get(j) == Some(&Token::Punct('(')) {
            while toks.get(j).is_some_and(|t| *t != Token::Punct(')')) {
                j += 1;
            }
            j += 1;
        }
    }
    if toks.get(j) != Some(&Token::Ident("mod".into())) {
        return None;
    }
    j += 2; // `mod` and its name
    match toks.get(j) {
        Some(Token::Punct(';')) => Some(j + 1),
        Some(Token::Punct('{')) => {
            let mut depth = 0;
            while j < toks.len() {
                match toks[j] {
                    Token::Punct('{') => depth += 1,
                    Token::Punct('}') => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(j + 1);
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            Some(j)
        }
        _ => None,
    }
}

/// The modules lib.rs declares (`pub mod m;`, `mod m;`).
fn top_modules(lib: &str) -> BTreeSet<String> {
    let toks = tokens(lib);
    toks.windows(3)
        .filter_map(|w| match w {
            [Token::Ident(m), Token::Ident(name), Token::Punct(';')] if m == "mod" => {
                Some(name.clone())
            }
            _ => None,
        })
        .collect()
}

/// A file's module path from its path relative to src/.
fn module_path(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The graph of harness/src: every top-level module, with its references to others.
fn harness_graph() -> (BTreeSet<String>, Graph) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let tops = top_modules(&std::fs::read_to_string(src.join("lib.rs")).unwrap());
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut graph = Graph::new();
    for file in files {
        let rel = file.strip_prefix(&src).unwrap().to_path_buf();
        let module = module_path(&rel);
        if !tops.contains(&module[0]) {
            continue; // lib.rs, main.rs, sandbox_main.rs
        }
        let text = std::fs::read_to_string(&file).unwrap();
        let edges = graph.entry(module[0].clone()).or_default();
        for to in references(&text, &module, &tops) {
            edges
                .entry(to)
                .or_default()
                .insert(rel.display().to_string());
        }
    }
    (tops, graph)
}

/// The circles of a graph: its strongly connected parts of more than one module (Tarjan).
fn circles(graph: &Graph) -> Vec<Vec<String>> {
    struct Walk<'g> {
        graph: &'g Graph,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        on_stack: BTreeSet<&'g str>,
        found: Vec<Vec<String>>,
    }
    impl<'g> Walk<'g> {
        fn visit(&mut self, v: &'g str) {
            let n = self.index.len();
            self.index.insert(v, n);
            self.low.insert(v, n);
            self.stack.push(v);
            self.on_stack.insert(v);
            for w in self.graph.get(v).into_iter().flat_map(|e| e.keys()) {
                let w = w.as_str();
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let low = self.low[v].min(self.low[w]);
                    self.low.insert(v, low);
                } else if self.on_stack.contains(w) {
                    let low = self.low[v].min(self.index[w]);
                    self.low.insert(v, low);
                }
            }
            if self.low[v] == self.index[v] {
                let mut part = Vec::new();
                loop {
                    let w = self.stack.pop().unwrap();
                    self.on_stack.remove(w);
                    part.push(w.to_string());
                    if w == v {
                        break;
                    }
                }
                if part.len() > 1 {
                    part.sort();
                    self.found.push(part);
                }
            }
        }
    }
    let mut walk = Walk {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for v in graph.keys() {
        if !walk.index.contains_key(v.as_str()) {
            walk.visit(v);
        }
    }
    walk.found.sort();
    walk.found
}

/// A circle's modules and the edges between them, with the files that make each.
fn describe(graph: &Graph, circle: &[String]) -> String {
    let mut text = format!("circle of {}: {}\n", circle.len(), circle.join(", "));
    for from in circle {
        for (to, files) in &graph[from] {
            if circle.contains(to) {
                let files: Vec<&str> = files.iter().map(String::as_str).collect();
                text += &format!("  {from} -> {to}   ({})\n", files.join(", "));
            }
        }
    }
    text
}

#[test]
fn no_circle_between_top_level_modules() {
    let (tops, graph) = harness_graph();
    // Not a vacuous graph: lib.rs was read and references were found.
    assert!(tops.len() > 20, "{tops:?}");
    assert!(graph["app"].contains_key("execute"), "{:?}", graph["app"]);
    let found = circles(&graph);
    let text: Vec<String> = found.iter().map(|c| describe(&graph, c)).collect();
    assert!(
        found.is_empty(),
        "top-level modules of harness/src import each other in a circle (import downward \
         only):\n{}",
        text.join("\n")
    );
}

#[test]
fn a_circle_in_a_small_graph_is_found() {
    let mut graph = Graph::new();
    for (from, to) in [("a", "b"), ("b", "c"), ("c", "a"), ("d", "a"), ("c", "e")] {
        graph
            .entry(from.into())
            .or_default()
            .entry(to.into())
            .or_default()
            .insert(format!("{from}.rs"));
    }
    assert_eq!(circles(&graph), vec![vec!["a", "b", "c"]]);
    let text = describe(&graph, &circles(&graph)[0]);
    assert!(text.contains("c -> a   (c.rs)"), "{text}");
    // Without the closing edge, no circle.
    graph.get_mut("c").unwrap().remove("a");
    assert!(circles(&graph).is_empty());
}

#[test]
fn references_are_read_from_code_only() {
    let tops: BTreeSet<String> = ["a", "b", "c", "d", "e", "f", "g", "h", "t", "x"]
        .map(String::from)
        .into();
    let src = r##"
        use crate::{a, b::{One, Two}, self as me};
        use std::fmt;
        // crate::x in a comment
        /* crate::x in /* a nested */ block comment */
        fn f<'l>(s: &'l str) -> char {
            let _ = "crate::x in a string";
            let _ = r#"crate::x in a raw "string""#;
            let _ = '"';
            crate::c::call();
            super::super::d::call();
            super::h::call();
            $crate::e::m!();
            'q'
        }
        pub(crate) struct S;
        mod inner {
            use super::super::super::f;
        }
        #[cfg(test)]
        mod tests {
            use crate::t;
        }
        fn g() { crate::g::call(); }
    "##;
    let module = ["x".to_string(), "y".to_string()];
    let found: Vec<String> = references(src, &module, &tops).into_iter().collect();
    assert_eq!(found, ["a", "b", "c", "d", "e", "f", "g"]);
}

#[test]
fn a_files_module_path_is_its_place_under_src() {
    assert_eq!(module_path(Path::new("a/b.rs")), ["a", "b"]);
    assert_eq!(module_path(Path::new("a/b/mod.rs")), ["a", "b"]);
    assert_eq!(module_path(Path::new("a.rs")), ["a"]);
}
