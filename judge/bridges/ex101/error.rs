//! Why a `malloc` or a `free` failed, as it travels from the agent (the
//! error's values are declared in `api.rs`).
//!
//! The error's message is the learner's work (the checks read it): the
//! agent sends its `Display` with the error, and the bridge keeps it, by
//! the error's value, for this error's `Display` here.

use crate::AllocError;
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;

/// An error as it travels: its value, and the learner's message for it.
#[derive(Debug, Serialize, Deserialize)]
pub struct Told {
    /// The error.
    pub error: AllocError,
    /// Its `Display`, in the learner's crate.
    pub message: String,
}

thread_local! {
    /// The learner's message for each error value the agent returned.
    static MESSAGES: RefCell<HashMap<AllocError, String>> = RefCell::new(HashMap::new());
}

impl From<Told> for AllocError {
    fn from(told: Told) -> Self {
        MESSAGES.with(|m| m.borrow_mut().insert(told.error.clone(), told.message));
        told.error
    }
}

impl fmt::Display for AllocError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match MESSAGES.with(|m| m.borrow().get(self).cloned()) {
            Some(message) => f.write_str(&message),
            None => write!(
                f,
                "{self:?} (an error the learner's allocator never returned)"
            ),
        }
    }
}

impl std::error::Error for AllocError {}
