//! The table of [`super`]: which code each measurement file measures, and
//! which files are not measured again yet. A flat list of alike entries,
//! one per file of the measurements folder, kept apart from the checks that
//! read it.

/// The code every measurement of the Rust programs runs on: the `gpu` crate
/// but the parts that no run on a GPU executes (the virtual GPU, the devices
/// of another process, the drawing of traces as SVG and Chrome JSON, the
/// stand-in for a build without CUDA). Git pathspecs: `:!` excludes.
pub const RUNTIME: &[&str] = &[
    "gpu/src",
    ":!gpu/src/virt",
    ":!gpu/src/virt.rs",
    // `gpu::measure`, which only `calibrate` runs (its `launches` module,
    // which `launch_overhead` runs too, stays).
    ":!gpu/src/measure.rs",
    ":!gpu/src/remote",
    ":!gpu/src/remote.rs",
    ":!gpu/src/no_remote.rs",
    ":!gpu/src/no_cuda.rs",
    ":!gpu/src/trace/svg.rs",
    ":!gpu/src/trace/svg",
    ":!gpu/src/trace/chrome.rs",
    ":!gpu/src/trace/chrome",
    // Ranges (`Device::range`), which no measuring program opens.
    ":!gpu/src/profile.rs",
    ":!gpu/src/profile",
];

/// A commit that changed files of [`RUNTIME`] without changing what any
/// measuring program runs, and why: the files it measured stay fresh
/// across it. Each is a reviewed exception, to be read with `git show`:
/// a change of a path a measurement runs is otherwise a reason to measure
/// again, whatever it changed.
#[derive(Clone, Copy, Debug)]
pub struct Unmeasured {
    /// The commit's full hash.
    pub commit: &'static str,
    /// What it changed in the runtime's files, and why no measurement runs it.
    pub why: &'static str,
}

/// The commits that changed [`RUNTIME`]'s files without changing what a
/// measurement runs.
pub const UNMEASURED: &[Unmeasured] = &[Unmeasured {
    commit: "cc3541296454428d3fac0f351821c31dead15678",
    why: "ranges (`Device::range`): `Core` and `Trace` gain a list of ranges, which the trace's \
          read copies and its clear empties, and `lib.rs` declares the module; no call's \
          path reads or writes the list, and no measuring program opens a range",
}];

/// What every measurement of `workbook-benches` prints with: its header and
/// its number formats.
const BENCHES: &[&str] = &[
    "benches/src/header.rs",
    "benches/src/date.rs",
    "benches/src/summary.rs",
];

/// One measurement file and the code that produced it.
#[derive(Clone, Copy, Debug)]
pub struct Measured {
    /// The file's name in the measurements folder.
    pub file: &'static str,
    /// The program and the code it runs, as git pathspecs relative to the
    /// repository.
    pub code: &'static [&'static str],
    /// Whether the code includes [`RUNTIME`] (the Rust programs) and the
    /// benches' shared modules (`workbook-benches`' examples).
    pub on: On,
}

/// What a measuring program runs on, besides its own [`Measured::code`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum On {
    /// An example of `workbook-benches`: [`RUNTIME`] and the benches' header
    /// and number formats.
    Benches,
    /// An example of `gpu`: [`RUNTIME`] and the examples' shared header.
    Gpu,
    /// A PyTorch script: nothing of the workspace but its own code.
    Python,
}

impl Measured {
    /// Every pathspec of the code the file measures.
    pub fn pathspecs(&self) -> Vec<&'static str> {
        let mut specs = self.code.to_vec();
        match self.on {
            On::Benches => specs.extend(RUNTIME.iter().chain(BENCHES)),
            On::Gpu => specs.extend(RUNTIME.iter().chain(&["gpu/examples/support"])),
            On::Python => specs.push("benches/python/common.py"),
        }
        specs
    }
}

/// A file measured by an example of `workbook-benches`.
const fn benches(file: &'static str, code: &'static [&'static str]) -> Measured {
    Measured {
        file,
        code,
        on: On::Benches,
    }
}

/// A file measured by an example of `gpu`.
const fn gpu(file: &'static str, code: &'static [&'static str]) -> Measured {
    Measured {
        file,
        code,
        on: On::Gpu,
    }
}

/// A file measured by a PyTorch script.
const fn python(file: &'static str, code: &'static [&'static str]) -> Measured {
    Measured {
        file,
        code,
        on: On::Python,
    }
}

/// Every measurement file of the book and the code that produced it.
pub const MEASURED: &[Measured] = &[
    benches(
        "alloc.txt",
        &[
            "benches/examples/alloc.rs",
            "benches/src/allocator.rs",
            "benches/src/driver.rs",
            "solutions/101-caching-allocator/src",
        ],
    ),
    benches(
        "cpu_gpu_enqueue.txt",
        &[
            "benches/examples/cpu_gpu_enqueue.rs",
            "benches/src/cpu_gpu.rs",
        ],
    ),
    benches(
        "cpu_gpu_launch_bound.txt",
        &[
            "benches/examples/cpu_gpu_launch_bound.rs",
            "benches/src/cpu_gpu.rs",
        ],
    ),
    benches(
        "cpu_gpu_matmul.txt",
        &[
            "benches/examples/cpu_gpu_matmul.rs",
            "benches/src/cpu_gpu.rs",
        ],
    ),
    benches(
        "cpu_gpu_timing.txt",
        &[
            "benches/examples/cpu_gpu_timing.rs",
            "benches/src/cpu_gpu.rs",
        ],
    ),
    benches(
        "graphs_replay.txt",
        &[
            "benches/examples/graphs_replay.rs",
            "benches/src/graphs.rs",
            "benches/src/graphs",
            "solutions/103-graph-static-buffers/src",
        ],
    ),
    benches(
        "hidden_syncs_implicit.txt",
        &[
            "benches/examples/hidden_syncs_implicit.rs",
            "benches/src/hidden_syncs.rs",
        ],
    ),
    benches(
        "hidden_syncs_loop.txt",
        &[
            "benches/examples/hidden_syncs_loop.rs",
            "benches/src/sync_loop.rs",
        ],
    ),
    benches(
        "launch_overhead.txt",
        &[
            "benches/examples/launch_overhead.rs",
            "benches/src/launch_overhead.rs",
        ],
    ),
    benches(
        "sampling_overlap.txt",
        &[
            "benches/examples/sampling_overlap.rs",
            "benches/src/sampling.rs",
            "solutions/102-overlap-sampler/src",
        ],
    ),
    benches(
        "sampling_where.txt",
        &[
            "benches/examples/sampling_where.rs",
            "benches/src/sampling.rs",
            "solutions/102-overlap-sampler/src",
        ],
    ),
    benches(
        "profile_step.txt",
        &[
            "benches/examples/profile_step.rs",
            "benches/src/profile_step.rs",
            "gpu/src/profile.rs",
            "gpu/src/profile",
        ],
    ),
    benches("startup.txt", &["benches/examples/startup.rs"]),
    benches(
        "streams_copy_overlap.txt",
        &[
            "benches/examples/streams_copy_overlap.rs",
            "benches/src/streams.rs",
            "benches/src/streams",
        ],
    ),
    benches(
        "streams_order.txt",
        &[
            "benches/examples/streams_order.rs",
            "benches/src/streams.rs",
            "benches/src/streams",
        ],
    ),
    benches(
        "streams_primitives.txt",
        &[
            "benches/examples/streams_primitives.rs",
            "benches/src/streams.rs",
            "benches/src/streams",
        ],
    ),
    // The calibration prints the built-in table beside what it measures.
    gpu(
        "gpu-calibrate.txt",
        &[
            "gpu/examples/calibrate.rs",
            "gpu/calibration/h200.json",
            "gpu/src/measure.rs",
        ],
    ),
    gpu("gpu-staging.txt", &["gpu/examples/staging.rs"]),
    gpu("gpu-tour.txt", &["gpu/examples/tour.rs"]),
    python("torch_alloc_pair.txt", &["benches/python/alloc_pair.py"]),
    python(
        "torch_cpu_gpu_timing.txt",
        &["benches/python/cpu_gpu_timing.py"],
    ),
    python(
        "torch_graphs_replay.txt",
        &["benches/python/graphs_replay.py"],
    ),
    python(
        "torch_hidden_syncs.txt",
        &["benches/python/hidden_syncs.py"],
    ),
    python(
        "torch_record_stream.txt",
        &["benches/python/record_stream.py"],
    ),
    python(
        "torch_sampling_overlap.txt",
        &["benches/python/sampling_overlap.py"],
    ),
    python(
        "torch_streams_copy_overlap.txt",
        &["benches/python/streams_copy_overlap.py"],
    ),
    python(
        "torch_cpu_wait.txt",
        &["benches/python/cpu_wait.py", "benches/python/cudart.py"],
    ),
    python(
        "torch_event_timing.txt",
        &["benches/python/event_timing.py"],
    ),
    python(
        "torch_graph_memory.txt",
        &["benches/python/graph_memory.py"],
    ),
    python(
        "torch_graph_update.txt",
        &["benches/python/graph_update.py", "benches/python/cudart.py"],
    ),
    python(
        "torch_host_func.txt",
        &["benches/python/host_func.py", "benches/python/cudart.py"],
    ),
    python(
        "torch_mallocasync_threshold.txt",
        &[
            "benches/python/mallocasync_threshold.py",
            "benches/python/cudart.py",
        ],
    ),
    python(
        "torch_profile_step.txt",
        &["benches/python/profile_step.py"],
    ),
    python(
        "torch_priorities.txt",
        &["benches/python/priorities.py", "benches/python/cudart.py"],
    ),
];

/// The measurement files written before the header had a `commit:` line,
/// which [`check`](super::check) skips until they are measured again (`benches/remeasure`
/// on the H200 for the Rust programs). This list must become empty: measure
/// the files again, commit them, and take their names off; [`check`](super::check) fails
/// on a name here whose file has a `commit:` line.
pub const NOT_YET_REMEASURED: &[&str] = &[];
