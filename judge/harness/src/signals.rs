//! What the signal that ended a process means, for a person: one table for
//! the judge's report of a harness and the checker's of a learner's process.

/// ` (NAME: what it means)` for the signals a sandboxed process dies of,
/// empty for the others.
pub fn meaning(signal: i32) -> &'static str {
    match signal {
        6 => " (SIGABRT: an abort)",
        9 => " (SIGKILL)",
        11 => " (SIGSEGV: an invalid memory access)",
        24 => " (SIGXCPU: past the sandbox's CPU-time limit)",
        25 => {
            " (SIGXFSZ: a file past the sandbox's file-size limit, or its files together past its disk limit)"
        }
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_limits_signals_say_which_limit() {
        assert!(meaning(25).contains("disk limit"));
        assert!(meaning(24).contains("CPU-time"));
        assert_eq!(meaning(15), "");
    }
}
