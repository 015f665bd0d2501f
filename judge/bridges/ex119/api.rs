api! {
    types {
        /// A call in which the CPU waited for the GPU.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub struct Wait {
            /// The call's `seq` in the trace.
            pub seq: u64,
            /// What made the CPU wait.
            pub kind: WaitKind,
        }
        /// What made the CPU wait, from what the call is.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum WaitKind {
            /// An explicit synchronize: of a stream, an event or the device.
            Synchronize,
            /// Reading the time between two events.
            ElapsedTime,
            /// A copy into pageable host memory.
            PageableDownload,
            /// A copy from pageable host memory the driver could not stage at once.
            PageableUpload,
            /// A raw free: `cuMemFree` or `cuMemFreeHost`.
            RawFree,
        }
    }
    fns {
        /// The learner's `waits`, asked in the agent about the judge's trace.
        pub fn waits(trace: &Trace) -> Vec<Wait>;
    }
}
