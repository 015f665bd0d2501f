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

/// `text` without ANSI escape sequences or other control characters (but
/// newlines and tabs), as the compiler's colored messages need for a file.
pub(crate) fn plain(text: &str) -> String {
    anstream::adapter::strip_str(text)
        .to_string()
        .replace(|c: char| c.is_control() && c != '\n' && c != '\t', "")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_into_scratch_copies_become_the_students_own() {
        let log = " --> /t/judge/grade/ada-1f/101-x/src/lib.rs:4:7\n at `/other/101-x/src/a.rs` 101-x/src/";
        assert_eq!(
            relative(log, "101-x"),
            " --> exercises/101-x/src/lib.rs:4:7\n at `exercises/101-x/src/a.rs` 101-x/src/"
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
