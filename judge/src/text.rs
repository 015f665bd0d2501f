//! Text the judge shows to students and writes to results files: without
//! terminal colours, and with paths into the judge's scratch copies written
//! as the student's own `exercises/` paths.

/// `text` with each path into a copy of the crate `folder`
/// (`/scratch/ada-1f2e/101-slug/src/lib.rs:4:7`) written from `exercises/`
/// (`exercises/101-slug/src/lib.rs:4:7`), whichever machine built it: the
/// student knows their crate, not the judge's scratch folder.
pub(crate) fn relative(text: &str, folder: &str) -> String {
    let marker = format!("/{folder}/src/");
    let stop = |c: char| c.is_whitespace() || "\"'`(".contains(c);
    let (mut relative, mut rest) = (String::with_capacity(text.len()), text);
    while let Some(at) = rest.find(&marker) {
        let before = &rest[..at];
        let start = before.char_indices().rev().find(|&(_, c)| stop(c));
        relative.push_str(&before[..start.map_or(0, |(i, c)| i + c.len_utf8())]);
        relative.push_str("exercises");
        relative.push_str(&marker);
        rest = &rest[at + marker.len()..];
    }
    relative.push_str(rest);
    relative
}

/// The most of one string of a check's outcome kept (an expected or actual
/// value, a detail, a panic message), like the run's output: a student's
/// code chooses them, and a results file holds every one.
pub(crate) const MESSAGE_LIMIT: usize = 4 << 10;

/// `text` without ANSI escape sequences, other control characters (but
/// newlines and tabs) or the characters that reorder text (right-to-left
/// overrides and isolates, which make a line read otherwise than it is):
/// the one cleaning of every string a student's code or the compiler wrote,
/// before any format shows it.
pub(crate) fn plain(text: &str) -> String {
    anstream::adapter::strip_str(text).to_string().replace(
        |c: char| (c.is_control() && c != '\n' && c != '\t') || reorders(c),
        "",
    )
}

/// Whether `c` changes the direction text is shown in (Unicode's
/// bidirectional formatting characters).
fn reorders(c: char) -> bool {
    matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// `text` cut to at most `limit` bytes (at a character's boundary), saying so.
pub(crate) fn capped(mut text: String, limit: usize) -> String {
    if text.len() <= limit {
        return text;
    }
    let cut = (0..=limit)
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0);
    text.truncate(cut);
    text.push_str(&format!(" [cut at {limit} bytes]"));
    text
}

/// A string of a check's outcome as the judge keeps it: [`plain`], and at
/// most [`MESSAGE_LIMIT`] bytes.
pub(crate) fn clean(text: &str) -> String {
    capped(plain(text), MESSAGE_LIMIT)
}

/// `outcome` with every string in it [`clean`]: what the judge keeps of an
/// outcome it read, whoever wrote it.
pub(crate) fn clean_outcome(outcome: judge_harness::Outcome) -> judge_harness::Outcome {
    use judge_harness::Outcome;
    match outcome {
        Outcome::Failed {
            expected,
            actual,
            site,
            detail,
        } => Outcome::Failed {
            expected: clean(&expected),
            actual: clean(&actual),
            site,
            detail: detail.as_deref().map(clean),
        },
        Outcome::Panicked { message, location } => Outcome::Panicked {
            message: clean(&message),
            location,
        },
        Outcome::Crashed { how } => Outcome::Crashed { how: clean(&how) },
        // The log is the instructor's (the judge printed it on its own
        // standard error when it read it): no result keeps it.
        Outcome::JudgeFailed { message, log: _ } => Outcome::JudgeFailed {
            message: clean(&message),
            log: String::new(),
        },
        other @ (Outcome::Passed | Outcome::TimedOut { .. } | Outcome::NotRun) => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_judges_log_is_kept_out_of_every_result() {
        let read = judge_harness::Outcome::JudgeFailed {
            message: "the judge's checker ended".into(),
            log: "at gpu/src/virt/memory.rs:58\nstack backtrace: ...".into(),
        };
        let kept = clean_outcome(read);
        assert_eq!(
            kept,
            judge_harness::Outcome::JudgeFailed {
                message: "the judge's checker ended".into(),
                log: String::new(),
            }
        );
        let json = serde_json::to_string(&kept).unwrap();
        assert!(!json.contains("log"), "{json}");
    }

    #[test]
    fn paths_into_scratch_copies_become_the_students_own() {
        let log = " --> /t/judge/grade/ada-1f/101-x/src/lib.rs:4:7\n at `/other/101-x/src/a.rs` 101-x/src/";
        assert_eq!(
            relative(log, "101-x"),
            " --> exercises/101-x/src/lib.rs:4:7\n at `exercises/101-x/src/a.rs` 101-x/src/"
        );
    }

    #[test]
    fn text_that_reorders_itself_is_shown_as_written() {
        // "access granted" written right to left over "denied".
        let forged = "denied\u{202E}detnarg ssecca\u{202C} \u{2067}x\u{2069}\u{200F}";
        assert_eq!(plain(forged), "denieddetnarg ssecca x");
    }

    #[test]
    fn an_outcomes_strings_are_cleaned_and_capped() {
        use judge_harness::Outcome;
        let huge = "\u{1b}[31mA".repeat(2 * MESSAGE_LIMIT);
        let cleaned = clean_outcome(Outcome::Failed {
            expected: "5".into(),
            actual: huge,
            site: None,
            detail: Some("\u{202E}x\u{7}".into()),
        });
        let Outcome::Failed { actual, detail, .. } = cleaned else {
            panic!("still a failure")
        };
        assert!(actual.starts_with("AAAA") && !actual.contains('\u{1b}'));
        assert!(
            actual.ends_with(&format!("[cut at {MESSAGE_LIMIT} bytes]")),
            "{actual}"
        );
        assert!(actual.len() < MESSAGE_LIMIT + 32);
        assert_eq!(detail.as_deref(), Some("x"));
        let panicked = clean_outcome(Outcome::Panicked {
            message: "\u{1b}]0;title\u{7}boom\u{1b}[0m".into(),
            location: None,
        });
        assert_eq!(
            panicked,
            Outcome::Panicked {
                message: "boom".into(),
                location: None
            }
        );
    }

    #[test]
    fn plain_text_has_no_escapes_or_control_characters() {
        assert_eq!(
            plain("\u{1b}[1m\u{1b}[38;5;9merror\u{1b}[0m: x\r\n\ty\u{7}"),
            "error: x\n\ty"
        );
    }
}
