//! Which file an I/O error was about: the one way the harness's file code puts a path in
//! front of an error's message (`"{path}: {error}"`). A leaf: it touches nothing but
//! `std::io`, so every layer may use it.

use std::fmt::Display;
use std::io;
use std::path::Path;

/// `e`, of the same kind, its message prefixed with `path`.
pub(crate) fn io_err(path: &Path, e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

/// Any error about `path` (a CSV writer's, say) as an I/O error of kind `Other`, its
/// message prefixed with `path`.
pub(crate) fn other_err(path: &Path, e: impl Display) -> io::Error {
    io::Error::other(format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn io_err_keeps_the_kind_and_names_the_path() {
        let e = io_err(Path::new("/a/b"), io::Error::from(io::ErrorKind::NotFound));
        assert_eq!(e.kind(), io::ErrorKind::NotFound);
        let plain = io::Error::from(io::ErrorKind::NotFound).to_string();
        assert_eq!(e.to_string(), format!("/a/b: {plain}"));
    }

    #[test]
    fn other_err_is_of_kind_other_and_names_the_path() {
        let e = other_err(Path::new("x.csv"), "bad record");
        assert_eq!(e.kind(), io::ErrorKind::Other);
        assert_eq!(e.to_string(), "x.csv: bad record");
    }
}
