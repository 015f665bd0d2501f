api! {
    types {
        /// A stream, as the allocator knows it.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct StreamId(pub u32);
        /// The two pools.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum Pool {
            /// Rounded requests up to 1 MiB, packed into 2 MiB segments.
            Small,
            /// Everything larger.
            Large,
        }
        /// Where a block is in its life.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum BlockState {
            /// Handed out by `malloc` and not freed yet.
            Allocated,
            /// Freed, but another stream recorded with `record_stream` may still use it.
            PendingFree,
            /// Cached: free for the next `malloc` of its pool and stream.
            Free,
        }
        /// One block of a segment, in a snapshot.
        #[derive(Clone, Debug, PartialEq, Eq)]
        pub struct BlockInfo {
            /// Its first byte.
            pub addr: u64,
            /// Its size in bytes.
            pub size: usize,
            /// Allocated, pending free, or free.
            pub state: BlockState,
        }
        /// One segment, in a snapshot.
        #[derive(Clone, Debug, PartialEq, Eq)]
        pub struct SegmentInfo {
            /// Its first byte.
            pub base: u64,
            /// Its size in bytes.
            pub size: usize,
            /// The stream whose `malloc` created it.
            pub stream: StreamId,
            /// The pool it serves.
            pub pool: Pool,
            /// Its blocks, by address.
            pub blocks: Vec<BlockInfo>,
        }
        /// Counters and gauges of one allocator (`CachingAllocator::stats`).
        #[derive(Clone, Debug, Default, PartialEq, Eq)]
        pub struct Stats {
            /// Bytes in allocated blocks.
            pub allocated_bytes: usize,
            /// Bytes in segments held from the driver.
            pub reserved_bytes: usize,
            /// Bytes in allocated or pending-free blocks.
            pub active_bytes: usize,
            /// The largest `allocated_bytes` so far.
            pub peak_allocated_bytes: usize,
            /// The largest `reserved_bytes` so far.
            pub peak_reserved_bytes: usize,
            /// Free blocks inside segments that are split.
            pub inactive_split: usize,
            /// Bytes in those blocks.
            pub inactive_split_bytes: usize,
            /// Times `malloc` released the cache and asked the driver again.
            pub num_alloc_retries: usize,
            /// Times `malloc` failed with `OutOfMemory`.
            pub num_ooms: usize,
            /// Segments obtained from the driver.
            pub num_device_alloc: usize,
            /// Segments returned to the driver.
            pub num_device_free: usize,
        }
        /// What went wrong.
        #[derive(Clone, Debug, PartialEq, Eq, Hash)]
        pub enum AllocError {
            /// No cached block fit, and the driver refused a new segment even after
            /// the allocator released its cache.
            OutOfMemory {
                /// The request, rounded up to a multiple of 512 bytes.
                requested: usize,
                /// Bytes in allocated blocks.
                allocated: usize,
                /// Bytes in segments held from the driver.
                reserved: usize,
            },
            /// `free` got a block this allocator does not hold as allocated.
            NotAllocated {
                /// The block's address.
                addr: u64,
            },
        }
    }
    drivers {
        /// What the allocator needs from a device.
        pub trait Driver {
            /// A marker in a stream's queue of work.
            type Event;
            /// A segment of `bytes` bytes, or `None` when the device is out of memory.
            fn alloc_segment(&mut self, bytes: usize) -> Option<u64>;
            /// Gives back the segment at `addr` of `bytes` bytes.
            fn free_segment(&mut self, addr: u64, bytes: usize);
            /// An event after the work queued on `stream` so far.
            fn record_event(&mut self, stream: StreamId) -> Self::Event;
            /// Whether the work before `event` has completed; never blocks.
            fn event_done(&mut self, event: &Self::Event) -> bool;
            /// Blocks the CPU until the work before `event` has completed.
            fn wait_event(&mut self, event: &Self::Event);
        }
    }
    impls {
        impl AllocError {
            /// The learner's message for the error (its `Display`, which the checks read).
            #[allow(clippy::inherent_to_string_shadow_display)]
            pub fn to_string(&self) -> String;
        }
    }
    objects {
        /// The learner's caching allocator, which lives in the agent, over a
        /// driver that stays here.
        pub struct CachingAllocator<D: Driver> {
            /// The learner's `CachingAllocator::new`, over `driver`.
            pub fn new(driver: D) -> Self;
            /// The learner's `malloc`.
            pub fn malloc(&mut self, size: usize, stream: StreamId) -> Result<Block, AllocError>;
            /// The learner's `free`.
            pub fn free(&mut self, block: Block) -> Result<(), AllocError>;
            /// The learner's `record_stream`.
            pub fn record_stream(&mut self, block: &Block, stream: StreamId);
            /// The learner's `empty_cache`.
            pub fn empty_cache(&mut self);
            /// The learner's `memory_allocated`.
            pub fn memory_allocated(&self) -> usize;
            /// The learner's `memory_reserved`.
            pub fn memory_reserved(&self) -> usize;
            /// The learner's `stats`.
            pub fn stats(&self) -> Stats;
            /// The learner's `snapshot`.
            pub fn snapshot(&self) -> Vec<SegmentInfo>;
        }
    }
}
