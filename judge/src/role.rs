//! Whose crate a harness checks: the learner's exercise, the solution, a
//! known-wrong variant or a graded submission.
//!
//! The role names the harness (`harness-101-variant-no_merge`) and appears
//! in `judge build`'s index as text (`variant-no_merge`); everywhere else it
//! is this type.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// Whose crate a harness checks.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Role {
    /// The crate in `exercises/ID-SLUG/`: the learner's, or the untouched starter.
    Exercise,
    /// The reference solution in `solutions/ID-SLUG/`.
    Solution,
    /// A known-wrong variant of the solution, by its name.
    Variant(String),
    /// A student's crate, in grade mode.
    Submission,
}

impl Role {
    /// The harness name of this role for exercise `id`: `harness-ID-ROLE`,
    /// with every character but ASCII letters and digits written as `-`.
    pub(crate) fn harness_name(&self, id: u32) -> String {
        self.binary_name("harness", id)
    }

    /// The name of a binary of `kind` (`harness`, `agent`) of this role for
    /// exercise `id`: `KIND-ID-ROLE`, written as [`Role::harness_name`] is.
    pub(crate) fn binary_name(&self, kind: &str, id: u32) -> String {
        let role: String = self
            .to_string()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        format!("{kind}-{id}-{role}")
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Exercise => f.write_str("exercise"),
            Self::Solution => f.write_str("solution"),
            Self::Variant(name) => write!(f, "variant-{name}"),
            Self::Submission => f.write_str("submission"),
        }
    }
}

impl std::str::FromStr for Role {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        match text {
            "exercise" => Ok(Self::Exercise),
            "solution" => Ok(Self::Solution),
            "submission" => Ok(Self::Submission),
            _ => match text.strip_prefix("variant-") {
                Some(name) if !name.is_empty() => Ok(Self::Variant(name.into())),
                _ => Err(format!(
                    "unknown role `{text}`: expected `exercise`, `solution`, `submission` or `variant-NAME`"
                )),
            },
        }
    }
}

impl Serialize for Role {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Role {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_role_reads_back_what_it_writes() {
        let roles = [
            Role::Exercise,
            Role::Solution,
            Role::Variant("no_merge".into()),
            Role::Submission,
        ];
        for role in roles {
            let json = serde_json::to_string(&role).unwrap();
            assert_eq!(serde_json::from_str::<Role>(&json).unwrap(), role);
        }
        assert_eq!(
            Role::Variant("no_merge".into()).to_string(),
            "variant-no_merge"
        );
    }

    #[test]
    fn an_unknown_role_is_an_error_that_lists_the_known_ones() {
        for text in ["\"teacher\"", "\"variant-\"", "\"Solution\""] {
            let err = serde_json::from_str::<Role>(text).unwrap_err().to_string();
            assert!(err.contains("expected `exercise`, `solution`"), "{err}");
        }
    }

    #[test]
    fn harness_names_keep_only_letters_and_digits() {
        assert_eq!(
            Role::Variant("no_merge".into()).harness_name(101),
            "harness-101-variant-no-merge"
        );
        assert_eq!(Role::Submission.harness_name(7), "harness-7-submission");
    }
}
