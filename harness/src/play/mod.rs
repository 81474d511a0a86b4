//! placeholder
use crate::app::UsageError;
pub fn main(_args: &crate::cli::PlayArgs) -> Result<u8, UsageError> {
    Ok(0)
}
