//! The mistakes of whoever runs the judge: an exercise that is not in the
//! manifest, a hint level that is not one, an exercise folder without its
//! crate. They are errors with what to do, which `main` maps to exit code 2
//! (bad usage), as `--help` documents; anything else that stops the judge
//! is the judge's or the machine's (exit 3).

/// A mistake of the judge's user, in words that say what to do.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(crate) struct Usage(pub(crate) String);

/// Whether `err`, or an error it wraps, is a [`Usage`].
pub(crate) fn is_usage(err: &anyhow::Error) -> bool {
    err.chain().any(|e| e.is::<Usage>())
}

#[cfg(test)]
mod tests {
    use super::*;
    use anyhow::Context;

    #[test]
    fn a_usage_error_is_found_under_the_context_added_to_it() {
        let err: anyhow::Result<()> = Err(Usage("no such exercise".into()).into());
        let err = err.context("while running").unwrap_err();
        assert!(is_usage(&err));
        assert!(!is_usage(&anyhow::anyhow!("the disk is full")));
    }
}
