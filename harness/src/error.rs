//! The harness's own errors, each with the exit code it ends the process with
//! ([`crate::exit`]). A player's failure is never one of these: it is a
//! [`crate::verdict::Verdict`]. These are for what the user gave (a usage error), for what the
//! harness or the machine could not do (a fault), and for an interrupted command.
//!
//! There is deliberately no blanket conversion from any displayable error: each place that
//! turns a lower-level error into one of these says which kind it is.

use std::fmt;

/// What stops a command.
#[derive(Debug)]
pub enum Error {
    /// A mistake in what the user gave (arguments, files, players): exit 2, nothing was run.
    Usage(String),
    /// The harness or the machine failed (a signal handler, a file it must write): exit 1.
    Fault(String),
    /// SIGINT or SIGTERM arrived before the command could finish: exit 130.
    Interrupted(String),
}

/// A command's result.
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// A usage error with this message.
    pub(crate) fn usage(message: impl Into<String>) -> Error {
        Error::Usage(message.into())
    }

    /// A fault of the harness or the machine with this message.
    pub fn fault(message: impl Into<String>) -> Error {
        Error::Fault(message.into())
    }

    /// The process exit code this error ends a command with.
    pub(crate) fn exit_code(&self) -> u8 {
        match self {
            Error::Usage(_) => crate::exit::USAGE,
            Error::Fault(_) => crate::exit::HARNESS_ERROR,
            Error::Interrupted(_) => crate::exit::INTERRUPTED,
        }
    }

    /// The message, without its kind.
    pub fn message(&self) -> &str {
        match self {
            Error::Usage(m) | Error::Fault(m) | Error::Interrupted(m) => m,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Interrupted(m) => write!(f, "interrupted: {m}"),
            Error::Usage(m) | Error::Fault(m) => write!(f, "error: {m}"),
        }
    }
}

impl std::error::Error for Error {}

/// Turns a `Result<T, impl Display>` into a usage or a fault error with context.
pub(crate) trait Classify<T> {
    /// A mistake of the user's: exit 2.
    fn usage(self) -> Result<T>;
    /// A fault of the harness or the machine: exit 1.
    fn fault(self) -> Result<T>;
}

impl<T, E: fmt::Display> Classify<T> for std::result::Result<T, E> {
    fn usage(self) -> Result<T> {
        self.map_err(|e| Error::Usage(e.to_string()))
    }

    fn fault(self) -> Result<T> {
        self.map_err(|e| Error::Fault(e.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_has_its_documented_exit_code() {
        assert_eq!(Error::usage("x").exit_code(), 2);
        assert_eq!(Error::fault("x").exit_code(), 1);
        assert_eq!(Error::Interrupted("x".into()).exit_code(), 130);
    }

    #[test]
    fn a_lower_error_becomes_the_kind_the_caller_names() {
        let r: std::result::Result<(), String> = Err("no such file".into());
        assert!(matches!(r.clone().usage(), Err(Error::Usage(m)) if m == "no such file"));
        assert!(matches!(r.fault(), Err(Error::Fault(m)) if m == "no such file"));
    }
}
