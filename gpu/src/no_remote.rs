//! What stands in for [`crate::remote`] on wasm32, where there is no other
//! process to hold a device: the calls (the front end builds one on its
//! remote path) and a proxy that cannot exist, so that path is never taken.

#[path = "remote/call.rs"]
#[expect(
    unreachable_pub,
    reason = "the call that travels is public where a process receives it"
)]
#[allow(
    dead_code,
    reason = "only the call's parts are used where no call travels"
)]
mod call;

pub(crate) use call::{Description, What};

use crate::error::Result;
use crate::trace::CallSite;

/// A device in another process: none can exist on wasm32.
#[derive(Debug)]
pub(crate) enum Proxy {}

impl Proxy {
    pub(crate) fn description(&self) -> &Description {
        match *self {}
    }

    pub(crate) fn same(&self, _: &Proxy) -> bool {
        match *self {}
    }

    pub(crate) fn call<T>(&self, _: CallSite, _: What) -> Result<T> {
        match *self {}
    }

    pub(crate) fn forget(&self, _: CallSite, _: What) {
        match *self {}
    }
}

/// The panic of a call that reads or changes the device's record from a
/// learner's process (there is none on wasm32).
pub(crate) fn judges_only(call: &str) -> ! {
    unreachable!("`{call}` on a device of another process, which wasm32 has none of")
}
