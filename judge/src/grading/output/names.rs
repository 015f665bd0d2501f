//! The names of the files a class's results have one per submission
//! (Gradescope's, `results/NAME.json`): made by the judge from the
//! submission folder's name, never that name as it is. Whatever a student
//! calls their folder, its file's name fits the file system (255 bytes,
//! with the temporary file written beside it), holds no character that a
//! shell or another system reads otherwise, and is no other student's.
//!
//! A name of at most [`KEPT`] bytes made of lowercase ASCII letters,
//! digits, `-`, `_` and `.` (not first) is kept: `ada` gets `ada.json`. Any
//! other is changed: its first [`KEPT`] characters, with ASCII letters of
//! either case, digits, `-`, `_` and `.` as they are and every other
//! character (and a leading `.`) written `_`, then `~` and the first 8 hex
//! digits of the SHA-256 of the whole name: `Ada Lovelace` gets
//! `Ada_Lovelace~76740216.json`. A name with an uppercase letter is changed
//! because a file system that ignores case takes `Ada` and `ada` for one
//! name. A kept name has no `~` and a changed one exactly one, so neither
//! can be the other; two names that still meet (the same text, or the same
//! kept part and hash) get `~2`, `~3`, … in the class's order.

use crate::files::sha256_hex;
use std::collections::HashSet;

/// The most characters of a submission's name its file's name keeps.
pub(crate) const KEPT: usize = 64;

/// The hex digits of the name's SHA-256 a changed name ends with.
const HASHED: usize = 8;

/// The stem of the file of the submission `name`, on its own (see the
/// module for the rules).
pub(crate) fn stem(name: &str) -> String {
    let kept = !name.is_empty()
        && name.len() <= KEPT
        && !name.starts_with('.')
        && name
            .bytes()
            .all(|b| matches!(b, b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.'));
    if kept {
        return name.to_string();
    }
    let readable: String = name
        .chars()
        .take(KEPT)
        .enumerate()
        .map(|(i, c)| match c {
            '.' if i == 0 => '_',
            'a'..='z' | 'A'..='Z' | '0'..='9' | '-' | '_' | '.' => c,
            _ => '_',
        })
        .collect();
    format!("{readable}~{}", &sha256_hex(name.as_bytes())[..HASHED])
}

/// The stems of the files of the submissions `names`, in the class's
/// order: each its [`stem`], or, when a name before it has taken that
/// (ignoring case), that with `~2`, `~3`, ….
pub(crate) fn stems<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut taken = HashSet::new();
    names
        .into_iter()
        .map(|name| {
            let first = stem(name);
            let mut chosen = first.clone();
            for n in 2.. {
                if taken.insert(chosen.to_lowercase()) {
                    break;
                }
                chosen = format!("{first}~{n}");
            }
            chosen
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The longest file name a file system takes, in bytes.
    const NAME_MAX: usize = 255;

    #[test]
    fn a_plain_name_is_kept() {
        for name in ["ada", "bob-2", "c.d_e", "0"] {
            assert_eq!(stem(name), name);
        }
    }

    #[test]
    fn every_name_is_bounded_with_room_for_a_temporary_suffix() {
        let names = [
            "a".repeat(251),
            "c".repeat(255),
            "é".repeat(127),
            "🦀".repeat(63),
        ];
        for name in &names {
            let file = format!("{}.json", stem(name));
            // `write_atomically`'s temporary file: `.FILE.PID.tmp`.
            let temporary = format!(".{file}.{}.tmp", u32::MAX);
            assert!(temporary.len() < NAME_MAX / 2, "{temporary}");
        }
    }

    #[test]
    fn characters_outside_the_safe_set_are_replaced() {
        let names = [
            "a b",
            "../up",
            ".hidden",
            "x/y\\z",
            "tab\there\nnewline",
            "`rm -rf ~`$(x);|&<>*?\"'",
            "Ada",
            "\u{202e}evil",
            "",
        ];
        for name in names {
            let stem = stem(name);
            let (readable, hash) = stem.split_once('~').expect("a changed name has a hash");
            let safe = |c: char| c.is_ascii_alphanumeric() || "-_.".contains(c);
            assert!(readable.chars().all(safe), "{name:?}: {stem}");
            assert!(!readable.starts_with('.'), "{name:?}: {stem}");
            assert!(
                hash.len() == HASHED && hash.chars().all(|c| c.is_ascii_hexdigit()),
                "{name:?}: {stem}"
            );
        }
    }

    #[test]
    fn names_that_look_alike_get_files_of_their_own() {
        let long = |last: char| format!("{}{last}", "s".repeat(100));
        let names = [
            "a b",
            "a_b",
            "a?b",
            "Ada",
            "ada",
            "ADA",
            "a_b~3f9c2e1a",
            &long('x'),
            &long('y'),
        ];
        let stems = stems(names);
        let folded: HashSet<String> = stems.iter().map(|s| s.to_lowercase()).collect();
        assert_eq!(folded.len(), names.len(), "{stems:?}");
        assert_eq!(stems[1], "a_b");
        assert_eq!(stems[4], "ada");
    }

    #[test]
    fn the_same_name_twice_is_told_apart_in_the_class_order() {
        let stems = stems(["x y", "x y", "x y"]);
        let first = stem("x y");
        assert_eq!(
            stems,
            [first.clone(), format!("{first}~2"), format!("{first}~3")]
        );
    }

    #[test]
    fn a_name_gets_the_same_file_in_every_run() {
        assert_eq!(stem("Ada Lovelace"), stem("Ada Lovelace"));
        assert_eq!(stem("Ada Lovelace"), "Ada_Lovelace~76740216");
        assert_eq!(stems(["b", "Ada Lovelace"])[1], stem("Ada Lovelace"));
    }
}
