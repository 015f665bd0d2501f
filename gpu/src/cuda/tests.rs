//! Tests of the CUDA backend.
//!
//! Without a GPU: the probe fails cleanly, `open` says why, and the launch
//! plans have the argument types and geometry of the CUDA signatures. With a
//! GPU (ignored by default: run with `--ignored`), smoke tests drive every
//! [`Exec`] call once.
//!
//! The file is a little over 400 lines because it is one list: a launch-plan
//! test per kernel and a smoke test per `Exec` call, read side by side with
//! `launch.rs` and the trait.

use super::launch::{Arg, Args, BLOCK, Plan, plan};
use super::{open, probe, setup};
use crate::elem::{ElemKind, RawView, Scalar};
use crate::error::GpuError;
use crate::exec::{Copy, Exec, Span};
use crate::kernels::{CUDA_KERNELS, Kernel};
use crate::trace::StreamId;
use std::sync::{Mutex, MutexGuard, PoisonError};

/// Serializes the tests that use the GPU. Devices of one process share
/// device 0's primary context, so one test's `cuMemFree` or `cuCtxSynchronize`
/// waits for another's kernels, and a capture in one thread makes
/// `cuCtxSynchronize` fail in every other.
fn gpu_lock() -> MutexGuard<'static, ()> {
    static GPU: Mutex<()> = Mutex::new(());
    GPU.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The `sum_f32` scratch slot the plans are made for.
const SLOT: u64 = 0x9000;

/// A view of `len` elements of `elem` at `addr`.
fn view(addr: u64, len: usize, elem: ElemKind) -> RawView {
    RawView { addr, len, elem }
}

/// Bytes read back from the device, as `f32`s.
fn floats(bytes: &[u8]) -> Vec<f32> {
    let word = |c: &[u8]| f32::from_ne_bytes([c[0], c[1], c[2], c[3]]);
    bytes.chunks_exact(4).map(word).collect()
}

#[test]
fn probe_and_open_agree_and_never_panic() {
    let _gpu = gpu_lock();
    match probe() {
        Ok(()) => assert!(open(false).is_ok(), "probe found a device but open failed"),
        Err(reason) => {
            assert!(reason.contains("driver"), "reason: {reason}");
            match open(false) {
                Err(GpuError::NoCudaDevice { reason }) => {
                    assert!(reason.contains("driver"), "reason: {reason}")
                }
                Err(other) => panic!("expected NoCudaDevice, got {other:?}"),
                Ok(_) => panic!("open succeeded where the probe failed"),
            }
        }
    }
}

#[test]
fn the_libraries_agree_with_the_probe_and_say_where_they_are() {
    let libraries = super::cuda_libraries();
    if libraries.driver == super::CudaLibrary::Missing {
        assert!(probe().unwrap_err().contains("libcuda.so"));
    }
    let maps = "7f00-7f10 r-xp 00000000 08:01 42   /usr/lib/x86_64-linux-gnu/libcudart.so.13\n\
                7f10-7f20 r-xp 00000000 08:01 43   /usr/lib/x86_64-linux-gnu/libcuda.so.580.82.07\n\
                7f20-7f30 rw-p 00000000 00:00 0    [heap]\n";
    let found = setup::mapped_file(maps, "libcuda.so");
    assert_eq!(
        found.as_deref(),
        Some(std::path::Path::new(
            "/usr/lib/x86_64-linux-gnu/libcuda.so.580.82.07"
        ))
    );
    assert_eq!(setup::mapped_file(maps, "libnvrtc.so"), None);
}

#[test]
fn nvrtc_has_a_version_where_it_loads() {
    let loads = super::cuda_libraries().nvrtc != super::CudaLibrary::Missing;
    let version = super::nvrtc_version();
    assert_eq!(version.is_some(), loads, "nvrtc version {version:?}");
    if let Some(version) = version {
        let parts: Vec<&str> = version.split('.').collect();
        assert!(
            parts.len() == 2 && parts.iter().all(|p| p.parse::<u32>().is_ok()),
            "not `major.minor`: {version}"
        );
    }
}

#[test]
#[ignore = "needs a CUDA device: run with --ignored on a GPU machine"]
fn a_cuda_measurement_header_names_the_driver_and_nvrtc() {
    let _gpu = gpu_lock();
    let device = crate::Device::open(crate::Backend::Cuda).unwrap();
    let header = crate::MeasurementHeader::new(&device, "x", "0123abcd", "2026-12-01");
    assert!(header.device.ends_with("(cuda backend)"), "{header}");
    let nvrtc = header.nvrtc.as_deref().expect("an nvrtc line");
    assert_eq!(Some(nvrtc), super::nvrtc_version().as_deref());
    assert!(header.driver.is_some(), "{header}");
    let text = header.to_string();
    assert!(text.contains(&format!("\nnvrtc:   {nvrtc}\n")), "{text}");
}

#[test]
fn arch_follows_the_compute_capability() {
    assert_eq!(setup::arch((9, 0)), Some("compute_90"));
    assert_eq!(setup::arch((8, 0)), Some("compute_80"));
    assert_eq!(setup::arch((12, 0)), Some("compute_120"));
    assert_eq!(setup::arch((6, 1)), None);
    assert_eq!(setup::arch((99, 0)), None);
}

#[test]
fn plans_follow_the_cuda_signatures() {
    use Arg::{F32, I32, U32, U64};
    let f = |addr, len| view(addr, len, ElemKind::F32);
    let i = |addr, len| view(addr, len, ElemKind::I32);
    // The kernel's index is its position among the loaded kernels.
    let index = |name| CUDA_KERNELS.iter().position(|n| *n == name).unwrap();
    let one = |name, args: Vec<Arg>| {
        Some(Plan {
            name,
            index: index(name),
            args: Args::from_slice(&args),
            grid: 1,
            block: 1,
        })
    };
    let with = |name, args: Vec<Arg>, grid| {
        Some(Plan {
            name,
            index: index(name),
            args: Args::from_slice(&args),
            grid,
            block: BLOCK,
        })
    };

    assert_eq!(
        plan(&Kernel::Spin { ns: 7 }, SLOT).unwrap(),
        one("spin", vec![U64(7)])
    );
    let fill = Kernel::Fill {
        dst: f(0x100, 257),
        value: Scalar::F32(1.5),
    };
    assert_eq!(
        plan(&fill, SLOT).unwrap(),
        with("fill_f32", vec![U64(0x100), F32(1.5), U64(257)], 2)
    );
    let fill = Kernel::Fill {
        dst: i(0x100, 256),
        value: Scalar::I32(-3),
    };
    assert_eq!(
        plan(&fill, SLOT).unwrap(),
        with("fill_i32", vec![U64(0x100), I32(-3), U64(256)], 1)
    );
    let fill = Kernel::Fill {
        dst: view(0x100, 1, ElemKind::U32),
        value: Scalar::U32(9),
    };
    assert_eq!(
        plan(&fill, SLOT).unwrap(),
        with("fill_u32", vec![U64(0x100), U32(9), U64(1)], 1)
    );

    let sum = Kernel::Sum {
        src: f(0x10, 5000),
        out: f(0x20, 1),
        pad_ns: 3,
    };
    let args = [0x10, 5000, 0x20, 3, 4096, SLOT].map(U64).to_vec();
    assert_eq!(plan(&sum, SLOT).unwrap(), with("sum_f32", args, 2));

    let argmax = Kernel::ArgmaxRows {
        src: f(0x10, 600),
        rows: 300,
        cols: 2,
        out: i(0x20, 300),
    };
    let args = vec![U64(0x10), U64(300), U64(2), U64(0x20)];
    assert_eq!(
        plan(&argmax, SLOT).unwrap(),
        with("argmax_rows_f32", args, 2)
    );

    let flag = Kernel::FlagEq {
        src: i(0x10, 513),
        value: 4,
        flags: i(0x20, 513),
    };
    let args = vec![U64(0x10), I32(4), U64(0x20), U64(513)];
    assert_eq!(plan(&flag, SLOT).unwrap(), with("flag_eq_i32", args, 3));

    let count = Kernel::CountEq {
        src: i(0x10, 257),
        value: -2,
        out: i(0x20, 1),
    };
    let args = vec![U64(0x10), I32(-2), U64(0x20), U64(257)];
    assert_eq!(plan(&count, SLOT).unwrap(), with("count_eq_i32", args, 2));

    let affine = Kernel::Affine {
        x: f(0x10, 10),
        a: 2.0,
        b: -1.0,
        y: f(0x20, 10),
    };
    let args = vec![U64(0x10), F32(2.0), F32(-1.0), U64(0x20), U64(10)];
    assert_eq!(plan(&affine, SLOT).unwrap(), with("affine_f32", args, 1));

    let decode = decode_step(3);
    let args = [0x10, 0x20, 0x30, 0x40, 3, 8, 16, 5].map(U64).to_vec();
    assert_eq!(plan(&decode, SLOT).unwrap(), with("decode_step", args, 3));
}

/// A decoder step over `batch` rows (hidden 8, vocab 16, pad 5 ns).
fn decode_step(batch: usize) -> Kernel {
    Kernel::DecodeStep {
        tokens_in: view(0x10, batch, ElemKind::I32),
        embedding: view(0x20, 16 * 8, ElemKind::F32),
        weight: view(0x30, 8 * 16, ElemKind::F32),
        tokens_out: view(0x40, batch, ElemKind::I32),
        batch,
        hidden: 8,
        vocab: 16,
        pad_ns: 5,
    }
}

#[test]
fn empty_grids_are_not_launched() {
    let f = |len| view(0x100, len, ElemKind::F32);
    let empty = [
        Kernel::Fill {
            dst: f(0),
            value: Scalar::F32(0.0),
        },
        Kernel::ArgmaxRows {
            src: f(0),
            rows: 0,
            cols: 4,
            out: view(0, 0, ElemKind::I32),
        },
        Kernel::FlagEq {
            src: view(0, 0, ElemKind::I32),
            value: 1,
            flags: view(0, 0, ElemKind::I32),
        },
        Kernel::CountEq {
            src: view(0, 0, ElemKind::I32),
            value: 1,
            out: view(0x100, 1, ElemKind::I32),
        },
        Kernel::Affine {
            x: f(0),
            a: 1.0,
            b: 0.0,
            y: f(0),
        },
        decode_step(0),
    ];
    for kernel in &empty {
        assert_eq!(plan(kernel, SLOT).unwrap(), None, "{kernel:?}");
    }
    // `sum` always runs at least one block: the sum of nothing is 0.
    let sum = |len| Kernel::Sum {
        src: f(len),
        out: f(1),
        pad_ns: 0,
    };
    let geometry = |len| {
        let launch = plan(&sum(len), SLOT).unwrap().expect("a launch");
        (launch.grid, launch.args.as_slice()[4])
    };
    // One tile of 4096 elements per block up to 128 blocks, then longer
    // chunks (whole tiles) in at most 128 blocks.
    assert_eq!(geometry(0), (1, Arg::U64(4096)));
    assert_eq!(geometry(4096), (1, Arg::U64(4096)));
    assert_eq!(geometry(4097), (2, Arg::U64(4096)));
    assert_eq!(geometry(128 * 4096), (128, Arg::U64(4096)));
    assert_eq!(geometry(128 * 4096 + 1), (65, Arg::U64(8192)));
    assert_eq!(geometry(4 << 20), (128, Arg::U64(4096 * 8)));
    assert_eq!(geometry(100_000_000), (128, Arg::U64(4096 * 191)));
}

#[test]
fn launch_args_have_the_c_sizes() {
    // Every argument is pushed as its Rust value: these sizes are what the
    // driver copies into the parameter buffer.
    assert_eq!(size_of::<u64>(), size_of::<std::ffi::c_ulonglong>());
    assert_eq!(size_of::<i32>(), size_of::<std::ffi::c_int>());
    assert_eq!(size_of::<u32>(), size_of::<std::ffi::c_uint>());
    assert_eq!(size_of::<f32>(), size_of::<std::ffi::c_float>());
}

#[test]
#[ignore = "needs a CUDA device: run with --ignored on a GPU machine"]
fn gpu_smoke() {
    let _gpu = gpu_lock();
    let mut gpu = open(true).expect("open");
    let info = gpu.info();
    assert!(
        info.total_memory > 0 && info.compute_capability.0 > 0,
        "{info:?}"
    );
    let s = gpu.create_stream().unwrap();
    assert_eq!(s, StreamId(1));
    let n = 1000;
    let x = gpu.malloc_async(s, 4 * n).unwrap();
    let y = gpu.malloc_async(s, 4 * n).unwrap();
    gpu.memset_zero(s, x, 4 * n).unwrap();
    let fill = Kernel::Fill {
        dst: view(x, n, ElemKind::F32),
        value: Scalar::F32(1.5),
    };
    let span = gpu.launch(s, &fill).unwrap();
    let affine = Kernel::Affine {
        x: view(x, n, ElemKind::F32),
        a: 2.0,
        b: 1.0,
        y: view(y, n, ElemKind::F32),
    };
    gpu.launch(s, &affine).unwrap();
    let mut out = vec![0u8; 4 * n];
    gpu.copy(
        s,
        Copy::DeviceToPageable {
            src: y,
            dst: &mut out,
        },
    )
    .unwrap();
    let values: Vec<f32> = floats(&out);
    assert!(values.iter().all(|&v| v == 4.0), "{:?}", &values[..4]);
    let Span::Pending(token) = span else {
        panic!("timed launch gave {span:?}")
    };
    let gpu_span = gpu.resolve(token).expect("resolved");
    assert!(gpu_span.start_ns <= gpu_span.end_ns && gpu_span.end_ns <= gpu.now_ns());
    gpu.free_async(s, x).unwrap();
    gpu.free_async(s, y).unwrap();
    gpu.sync_stream(s).unwrap();
}

#[test]
#[ignore = "needs a CUDA device: run with --ignored on a GPU machine"]
fn gpu_spin_is_asynchronous_and_timed() {
    let _gpu = gpu_lock();
    let mut gpu = open(true).expect("open");
    let s = gpu.create_stream().unwrap();
    let (e0, e1) = (gpu.create_event().unwrap(), gpu.create_event().unwrap());
    gpu.record_event(e0, s).unwrap();
    let before = gpu.now_ns();
    let span = gpu.launch(s, &Kernel::Spin { ns: 50_000_000 }).unwrap();
    let submitted = gpu.now_ns();
    gpu.record_event(e1, s).unwrap();
    assert!(
        submitted - before < 10_000_000,
        "launch took {} ns",
        submitted - before
    );
    assert!(!gpu.query_stream(s).unwrap());
    assert!(!gpu.query_event(e1).unwrap());
    let ms = gpu.elapsed_ms(e0, e1).unwrap();
    assert!((49.0..80.0).contains(&ms), "{ms} ms");
    assert!(gpu.query_stream(s).unwrap() && gpu.query_event(e1).unwrap());
    let Span::Pending(token) = span else {
        panic!("{span:?}")
    };
    let t = gpu.resolve(token).unwrap();
    let dur = t.end_ns - t.start_ns;
    assert!((49_000_000..80_000_000).contains(&dur), "{t:?}");
    assert!(
        t.start_ns + 2_000_000 >= before && t.start_ns <= submitted + 5_000_000,
        "{t:?} {before} {submitted}"
    );
    gpu.sync_device().unwrap();
    assert!(gpu.query_stream(s).unwrap());
}

#[test]
#[ignore = "needs a CUDA device: run with --ignored on a GPU machine"]
fn gpu_pinned_segments_and_graphs() {
    let _gpu = gpu_lock();
    let mut gpu = open(false).expect("open");
    let s = gpu.create_stream().unwrap();
    let n = 256;
    let host = gpu.alloc_pinned(4 * n).unwrap();
    let mut zeros = vec![1u8; 4 * n];
    gpu.read_pinned(host, 0, &mut zeros);
    assert!(zeros.iter().all(|&b| b == 0));
    let data: Vec<f32> = (0..n).map(|i| i as f32).collect();
    gpu.write_pinned(host, 0, bytemuck::cast_slice(&data));
    let a = gpu.malloc_segment(4 * n).unwrap();
    let b = gpu.malloc_async(s, 4 * n).unwrap();
    let copy = Copy::PinnedToDevice {
        src: host,
        offset: 0,
        bytes: 4 * n,
        dst: a,
    };
    assert_eq!(gpu.copy(s, copy).unwrap(), Span::None);
    gpu.copy(
        s,
        Copy::DeviceToDevice {
            src: a,
            dst: b,
            bytes: 4 * n,
        },
    )
    .unwrap();
    // A graph: y = 2x + 1 twice into b, then copy b back to pinned.
    gpu.begin_capture(s).unwrap();
    let affine = Kernel::Affine {
        x: view(a, n, ElemKind::F32),
        a: 2.0,
        b: 1.0,
        y: view(b, n, ElemKind::F32),
    };
    assert_eq!(gpu.launch(s, &affine).unwrap(), Span::None);
    let empty = Kernel::Fill {
        dst: view(b, 0, ElemKind::F32),
        value: Scalar::F32(0.0),
    };
    assert_eq!(gpu.launch(s, &empty).unwrap(), Span::None);
    gpu.copy(
        s,
        Copy::DeviceToPinned {
            src: b,
            dst: host,
            offset: 0,
            bytes: 4 * n,
        },
    )
    .unwrap();
    let graph = gpu.end_capture(s).unwrap();
    assert_eq!(gpu.graph_nodes(graph), 2);
    gpu.launch_graph(graph, s).unwrap();
    gpu.sync_stream(s).unwrap();
    let mut back = vec![0u8; 4 * n];
    gpu.read_pinned(host, 0, &mut back);
    let back: Vec<f32> = floats(&back);
    assert!(
        back.iter()
            .enumerate()
            .all(|(i, &v)| v == 2.0 * i as f32 + 1.0),
        "{:?}",
        &back[..4]
    );
    // An aborted capture leaves the stream usable.
    gpu.begin_capture(s).unwrap();
    gpu.launch(s, &affine).unwrap();
    gpu.abort_capture(s);
    gpu.launch(s, &Kernel::Spin { ns: 1000 }).unwrap();
    gpu.sync_stream(s).unwrap();
    gpu.free_async(s, b).unwrap();
    gpu.free_segment(a).unwrap();
    gpu.free_pinned(host).unwrap();
    gpu.host_work(1000);
}

#[test]
#[ignore = "needs a CUDA device: run with --ignored on a GPU machine"]
fn gpu_a_launch_binds_the_context_when_none_is_current() {
    let _gpu = gpu_lock();
    let mut gpu = open(false).expect("open");
    let s = gpu.create_stream().unwrap();
    let n = 256;
    let x = gpu.malloc_async(s, 4 * n).unwrap();
    // SAFETY: unbinding leaves no context current on this thread; every
    // later call of the backend binds it again (the launch by retrying).
    unsafe { cudarc::driver::result::ctx::set_current(std::ptr::null_mut()) }.unwrap();
    let fill = Kernel::Fill {
        dst: view(x, n, ElemKind::F32),
        value: Scalar::F32(3.0),
    };
    gpu.launch(s, &fill).unwrap();
    let mut out = vec![0u8; 4 * n];
    let copy = Copy::DeviceToPageable {
        src: x,
        dst: &mut out,
    };
    gpu.copy(s, copy).unwrap();
    assert!(floats(&out).iter().all(|&v| v == 3.0));
    gpu.free_async(s, x).unwrap();
}
