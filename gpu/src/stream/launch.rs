//! Kernel launches: one method per kernel of the library.

use super::Stream;
use crate::decoder::Decoder;
use crate::elem::{AsView, Elem, Scalar, View};
use crate::error::{GpuError, Result};
use crate::kernels::Kernel;
use crate::remote::What;
use crate::trace::{CallSite, StreamId};
use std::time::Duration;

fn check(
    ok: bool,
    op: &'static str,
    site: CallSite,
    detail: impl FnOnce() -> String,
) -> Result<()> {
    if ok {
        Ok(())
    } else {
        Err(GpuError::Length {
            op,
            detail: detail(),
            site,
        })
    }
}

impl Stream {
    /// Queues `kernel`: returns as soon as it is queued. Allocates and
    /// formats nothing: the ranges are inline, the names static.
    fn launch(&self, kernel: Kernel, site: CallSite) -> Result<()> {
        if let Some(remote) = self.device.proxy() {
            return remote.call(site, remote_launch(self.id, kernel));
        }
        self.device.core().launch(self.id, &kernel, site)
    }

    /// A kernel that busy-waits on the GPU for `duration` (`%globaltimer`).
    /// Queue one ahead of other work to make the GPU busy: a "gate".
    #[track_caller]
    pub fn spin(&self, duration: Duration) -> Result<()> {
        self.launch(
            Kernel::Spin {
                ns: duration.as_nanos() as u64,
            },
            CallSite::caller(),
        )
    }

    /// Sets every element of `dst` to `value`.
    #[track_caller]
    pub fn fill<T: Elem>(&self, dst: impl AsView<T>, value: T) -> Result<()> {
        let dst = dst.view();
        self.launch(
            Kernel::Fill {
                dst: dst.raw(),
                value: Scalar::of(value),
            },
            CallSite::caller(),
        )
    }

    /// `out[0] = sum(src)`, in a fixed order (the same on both backends).
    #[track_caller]
    pub fn sum(&self, src: impl AsView<f32>, out: impl AsView<f32>) -> Result<()> {
        self.sum_inner(Duration::ZERO, src.view(), out.view(), CallSite::caller())
    }

    /// A slow reader: waits `delay` on the GPU, then `out[0] = sum(src)`.
    /// It reads `src` at the end, so it sees any write that lands meanwhile.
    #[track_caller]
    pub fn sum_after(
        &self,
        delay: Duration,
        src: impl AsView<f32>,
        out: impl AsView<f32>,
    ) -> Result<()> {
        self.sum_inner(delay, src.view(), out.view(), CallSite::caller())
    }

    fn sum_inner(
        &self,
        delay: Duration,
        src: View<f32>,
        out: View<f32>,
        site: CallSite,
    ) -> Result<()> {
        check(!out.is_empty(), "sum", site, || {
            "`out` needs at least one element".into()
        })?;
        let kernel = Kernel::Sum {
            src: src.raw(),
            out: out.raw(),
            pad_ns: delay.as_nanos() as u64,
        };
        self.launch(kernel, site)
    }

    /// `out[r]` = index of the largest element of row `r` of `src`
    /// (`rows × cols`, row-major); the lowest index wins ties.
    #[track_caller]
    pub fn argmax_rows(
        &self,
        src: impl AsView<f32>,
        rows: usize,
        cols: usize,
        out: impl AsView<i32>,
    ) -> Result<()> {
        let site = CallSite::caller();
        let (src, out) = (src.view(), out.view());
        check(
            rows.checked_mul(cols) == Some(src.len()),
            "argmax_rows",
            site,
            || {
                format!(
                    "`src` has {} elements, not rows × cols = {rows} × {cols}",
                    src.len()
                )
            },
        )?;
        check(out.len() >= rows, "argmax_rows", site, || {
            format!("`out` has {} elements for {rows} rows", out.len())
        })?;
        self.launch(
            Kernel::ArgmaxRows {
                src: src.raw(),
                rows,
                cols,
                out: out.raw(),
            },
            site,
        )
    }

    /// `flags[i] |= (src[i] == value)`: sticky done flags, computed on the GPU.
    #[track_caller]
    pub fn flag_eq(
        &self,
        src: impl AsView<i32>,
        value: i32,
        flags: impl AsView<i32>,
    ) -> Result<()> {
        let site = CallSite::caller();
        let (src, flags) = (src.view(), flags.view());
        check(src.len() == flags.len(), "flag_eq", site, || {
            format!(
                "`src` has {} elements and `flags` {}",
                src.len(),
                flags.len()
            )
        })?;
        self.launch(
            Kernel::FlagEq {
                src: src.raw(),
                value,
                flags: flags.raw(),
            },
            site,
        )
    }

    /// `out[0] += number of elements of src equal to value`: a counter that
    /// stays on the GPU (finished requests, generated tokens), read by the
    /// CPU only when it needs the number.
    #[track_caller]
    pub fn count_eq(&self, src: impl AsView<i32>, value: i32, out: impl AsView<i32>) -> Result<()> {
        let site = CallSite::caller();
        let (src, out) = (src.view(), out.view());
        check(!out.is_empty(), "count_eq", site, || {
            "`out` needs at least one element".into()
        })?;
        self.launch(
            Kernel::CountEq {
                src: src.raw(),
                value,
                out: out.raw(),
            },
            site,
        )
    }

    /// `y[i] = a * x[i] + b`: a tiny layer.
    #[track_caller]
    pub fn affine(&self, x: impl AsView<f32>, a: f32, b: f32, y: impl AsView<f32>) -> Result<()> {
        let site = CallSite::caller();
        let (x, y) = (x.view(), y.view());
        check(x.len() == y.len(), "affine", site, || {
            format!("`x` has {} elements and `y` {}", x.len(), y.len())
        })?;
        self.launch(
            Kernel::Affine {
                x: x.raw(),
                a,
                b,
                y: y.raw(),
            },
            site,
        )
    }

    /// One decoder step for a batch: for each request, the embedding of its
    /// last token, a matmul, and the argmax: the next token. Takes the
    /// decoder's step time on the GPU.
    #[track_caller]
    pub fn decode_step(
        &self,
        decoder: &Decoder,
        tokens_in: impl AsView<i32>,
        tokens_out: impl AsView<i32>,
    ) -> Result<()> {
        let site = CallSite::caller();
        let (tokens_in, tokens_out) = (tokens_in.view(), tokens_out.view());
        check(
            tokens_in.len() == tokens_out.len(),
            "decode_step",
            site,
            || {
                format!(
                    "`tokens_in` has {} elements and `tokens_out` {}",
                    tokens_in.len(),
                    tokens_out.len()
                )
            },
        )?;
        if let Some(remote) = self.device.proxy() {
            let decoder = decoder
                .remote_id(&self.device)
                .ok_or(GpuError::ForeignHandle {
                    op: "decode_step",
                    site,
                })?;
            let (stream, tokens_in, tokens_out) = (self.id, tokens_in.raw(), tokens_out.raw());
            let what = What::DecodeStep {
                stream,
                decoder,
                tokens_in,
                tokens_out,
            };
            return remote.call(site, what);
        }
        let kernel =
            decoder
                .kernel(tokens_in.raw(), tokens_out.raw())
                .ok_or(GpuError::ForeignHandle {
                    op: "decode_step",
                    site,
                })?;
        self.launch(kernel, site)
    }
}

/// The call that launches `kernel` on `stream` of a device of the judge's,
/// through the public method that made it (a decoder step has its own, as
/// it names the decoder).
fn remote_launch(stream: StreamId, kernel: Kernel) -> What {
    match kernel {
        Kernel::Spin { ns } => What::Spin { stream, ns },
        Kernel::Fill { dst, value } => What::Fill { stream, dst, value },
        Kernel::Sum { src, out, pad_ns } => What::Sum {
            stream,
            delay_ns: pad_ns,
            src,
            out,
        },
        Kernel::ArgmaxRows {
            src,
            rows,
            cols,
            out,
        } => What::ArgmaxRows {
            stream,
            src,
            rows,
            cols,
            out,
        },
        Kernel::FlagEq { src, value, flags } => What::FlagEq {
            stream,
            src,
            value,
            flags,
        },
        Kernel::CountEq { src, value, out } => What::CountEq {
            stream,
            src,
            value,
            out,
        },
        Kernel::Affine { x, a, b, y } => What::Affine { stream, x, a, b, y },
        Kernel::DecodeStep { .. } => unreachable!("a decoder step is sent by `decode_step`"),
    }
}
