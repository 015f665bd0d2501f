//! The texts the front end keeps for every call (a trace entry's name, what
//! a race report calls an access), kept as they are given and spelled out only
//! when a trace or a report is read: no allocation and no formatting per call.

use std::fmt;
use std::rc::Rc;

/// A text kept for a call, spelled out on demand ([`fmt::Display`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Label {
    /// Fixed text: a kernel's name, "cuMemFreeAsync", "a copy into pinned memory".
    Static(&'static str),
    /// A kernel, as a race report names it: "kernel `fill_f32`".
    Kernel(&'static str),
    /// Text made once and shared by every call that uses it: a graph's name
    /// ("graph (64 nodes)"), a node of its merged accesses.
    Shared(Rc<str>),
}

impl From<&'static str> for Label {
    fn from(text: &'static str) -> Self {
        Self::Static(text)
    }
}

impl From<String> for Label {
    fn from(text: String) -> Self {
        Self::Shared(text.into())
    }
}

impl fmt::Display for Label {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Static(text) => f.write_str(text),
            Self::Kernel(name) => write!(f, "kernel `{name}`"),
            Self::Shared(text) => f.write_str(text),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_spell_out_as_the_strings_they_replace() {
        assert_eq!(Label::from("memset 0").to_string(), "memset 0");
        assert_eq!(Label::Kernel("sum_f32").to_string(), "kernel `sum_f32`");
        let graph = Label::from(format!("graph ({} nodes)", 64));
        assert_eq!(graph.to_string(), "graph (64 nodes)");
    }
}
