//! The learner's side: a device that lives in the judge's process. Every
//! call sends a [`Call`] on the link and waits for the answer; nothing the
//! device records (its trace, its race reports, its CPU clock) is kept here.

use super::call::Description;
use super::call::{Call, What};
use super::link::{Frame, Link};
use crate::error::{GpuError, Result};
use crate::trace::CallSite;
use serde::de::DeserializeOwned;
use std::rc::Rc;

/// The exit code of a learner's process whose link to the judge broke: the
/// judge went away (or stopped it), so there is no one left to answer.
pub const LINK_LOST: i32 = 70;

/// A device of the judge's, as the learner's process holds it.
#[derive(Debug)]
pub(crate) struct Proxy {
    link: Rc<Link>,
    handle: u32,
    description: Description,
}

impl Proxy {
    /// The device `handle` on the other end of `link`, described by the judge.
    pub(crate) fn open(link: Rc<Link>, handle: u32) -> Self {
        let description = exchange(&link, handle, CallSite::internal("open"), What::Describe)
            .unwrap_or_else(|e| {
                lost(&format!(
                    "the judge could not describe device {handle}: {e}"
                ))
            });
        Self {
            link,
            handle,
            description,
        }
    }

    /// What the judge said the device is.
    pub(crate) fn description(&self) -> &Description {
        &self.description
    }

    /// The device's handle on the judge's side.
    pub(crate) fn handle(&self) -> u32 {
        self.handle
    }

    /// Whether two proxies are the same device of the same judge.
    pub(crate) fn same(&self, other: &Proxy) -> bool {
        Rc::ptr_eq(&self.link, &other.link) && self.handle == other.handle
    }

    /// Makes `what` at `site` on the judge's device and returns its answer.
    /// A call that only queues work or frees ([`What::posted`]) is posted:
    /// it returns once the judge has made the call before it, and its own
    /// error is returned by the next call, as CUDA returns an asynchronous
    /// error; every other call waits for its answer.
    pub(crate) fn call<T: DeserializeOwned>(&self, site: CallSite, what: What) -> Result<T> {
        if what.posted() {
            self.post(site, what, true)?;
            return postcard::from_bytes::<T>(&[])
                .map_err(|e| lost(&format!("a posted call's answer is not `()`: {e}")));
        }
        if let Some(e) = self.settle() {
            return Err(e);
        }
        exchange(&self.link, self.handle, site, what)
    }

    /// A call whose answer carries nothing to report (a drop): errors are
    /// the judge's to trace, not the learner's to see.
    pub(crate) fn forget(&self, site: CallSite, what: What) {
        match what.posted() {
            true => {
                let _ = self.post(site, what, false);
            }
            false => {
                let _: Result<()> = self.call(site, what);
            }
        }
    }

    /// Posts `what`, then returns the error of a call posted before, if one
    /// failed.
    fn post(&self, site: CallSite, what: What, report: bool) -> Result<()> {
        let call = Call {
            device: self.handle,
            site,
            what,
        };
        if let Err(e) = self.link.post(&Frame::Gpu(call), report) {
            lost(&format!("cannot post a call to the judge: {e}"));
        }
        self.link.take_failed().map_or(Ok(()), Err)
    }

    /// Reads a posted call's answer, if one is due; the error of a posted
    /// call that failed, once.
    fn settle(&self) -> Option<GpuError> {
        if let Err(e) = self.link.settle() {
            lost(&format!("the judge's answer to a posted call: {e}"));
        }
        self.link.take_failed()
    }
}

/// Sends one call and reads its answer. Nothing else can arrive meanwhile:
/// the judge runs no learner code while it makes a call of the device.
fn exchange<T: DeserializeOwned>(
    link: &Link,
    device: u32,
    site: CallSite,
    what: What,
) -> Result<T> {
    let call = Call { device, site, what };
    if let Err(e) = link.send(&Frame::Gpu(call)) {
        lost(&format!("cannot send a call to the judge: {e}"));
    }
    match link.recv() {
        Ok(Frame::GpuReply(bytes)) => postcard::from_bytes::<Result<T, GpuError>>(&bytes)
            .unwrap_or_else(|e| lost(&format!("the judge's answer does not decode: {e}"))),
        Ok(other) => lost(&format!(
            "the judge answered a device call with {}",
            match other {
                Frame::Gpu(_) => "a device call",
                Frame::GpuReply(_) => "an answer",
                Frame::Harness(_) => "a harness message",
            }
        )),
        Err(e) => lost(&format!("the link to the judge closed: {e}")),
    }
}

/// Ends the learner's process: without its link there is nobody to answer
/// a device call, and a call cannot return without an answer.
fn lost(why: &str) -> ! {
    eprintln!("gpu: {why}; stopping");
    std::process::exit(LINK_LOST)
}
