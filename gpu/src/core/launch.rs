//! A kernel launch outside a capture: the steps of the choke point
//! (`Core::execute`) for the one shape of call that is most of a program's
//! calls, taken without building its [`Op`].
//!
//! An `Op` is a few hundred bytes (its race effects inline), and the choke
//! point reads it back field by field through admission, the trace and the
//! race checker. A launch outside a capture needs only a few of those
//! steps: it never blocks and never ends a capture, so its admission is the
//! check of its views, its trace entry is its kernel's name, stream, bytes
//! and site, and its one race effect is its access on its stream. Taken
//! directly, they cost the CPU less of every launch (measured with
//! `launch_overhead` on the H200, chapter 1's launch table). A launch
//! during a capture, where the capture's rules and its nodes come in, builds
//! its `Op` and goes through the choke point like every other call. In
//! debug builds (every test) the whole admission of the `Op` runs as well,
//! and must agree.

use super::{Core, NodeAccess, Op, Race};
use crate::error::Result;
use crate::kernels::Kernel;
use crate::label::Label;
use crate::race::HOST_BASE;
use crate::trace::{CallSite, OpKind, StreamId};

impl Core {
    /// Queues `kernel` on `stream`, launched at `site`: checked, traced and
    /// told to the race checker exactly as the choke point would.
    pub(crate) fn launch(
        &mut self,
        stream: StreamId,
        kernel: &Kernel,
        site: CallSite,
    ) -> Result<()> {
        if self.capture.is_some() {
            let op = launch_op(stream, kernel, site);
            return self.run(&op, |exec| Ok(((), exec.launch(stream, kernel)?)));
        }
        let ranges = kernel.accesses();
        let admitted = self.check_ranges(&ranges, site);
        debug_assert_eq!(
            admitted.is_ok(),
            self.admit_in_full(&launch_op(stream, kernel, site), super::Mode::Refusable)
                .is_ok(),
            "the admission of a launch of `{}` disagrees with the whole one",
            kernel.name()
        );
        admitted?;
        let trace = self.checks.trace;
        let start = if trace { self.exec.now_ns() } else { 0 };
        let span = self.exec.launch(stream, kernel)?;
        if trace {
            let end = self.exec.now_ns();
            let bytes = ranges.iter().map(|r| r.bytes).sum();
            self.entries
                .push_launch(kernel.name(), stream, bytes, site, (start, end), span);
        }
        if self.checks.races && ranges.any_bytes() {
            let what = Label::Kernel(kernel.name());
            self.race.on_stream_op(stream, &ranges, what, site);
        }
        Ok(())
    }

    /// The views of a launch lie in live allocations (`Core::check_views`
    /// for its one access).
    #[inline]
    fn check_ranges(&self, ranges: &[crate::race::Range], site: CallSite) -> Result<()> {
        for r in ranges {
            if r.addr < HOST_BASE && r.bytes > 0 {
                self.allocations.check(
                    super::op::static_name(OpKind::Launch),
                    r.addr,
                    r.bytes,
                    site,
                )?;
            }
        }
        Ok(())
    }
}

/// The [`Op`] of a launch of `kernel` on `stream`, as the choke point takes it.
fn launch_op(stream: StreamId, kernel: &Kernel, site: CallSite) -> Op {
    let (name, ranges) = (kernel.name(), kernel.accesses());
    let mut op = Op::new(OpKind::Launch, name, site);
    op.stream = Some(stream);
    op.bytes = ranges.iter().map(|r| r.bytes).sum();
    op.add_race(Race::Access(NodeAccess::new(ranges, Label::Kernel(name))));
    op
}
