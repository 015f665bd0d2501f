//! The verbs: one module per verb, each thin. A verb opens the course, turns
//! its command-line arguments into the data layer's types, calls the data
//! layer and shows what comes back (reports, events) on the terminal; the
//! work itself is in the data modules below, which never import a verb.

pub(crate) mod build;
pub(crate) mod doctor;
pub(crate) mod grade;
pub(crate) mod hint;
pub(crate) mod list;
pub(crate) mod reset;
pub(crate) mod run;
pub(crate) mod sandbox;
pub(crate) mod verify;
pub(crate) mod watch;
