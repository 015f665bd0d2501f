api! {
    types {
        /// Where the host side of a copy lives.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Memory {
            /// Ordinary memory (a `Vec`).
            Pageable,
            /// Page-locked memory (a `PinnedBuffer`).
            Pinned,
        }
        /// Which way a copy goes.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Direction {
            /// From the host to the device.
            HostToDevice,
            /// From the device to the host.
            DeviceToHost,
        }
        /// What a call is.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Op {
            /// A kernel launch on the call's stream.
            Launch,
            /// A captured graph launched on the call's stream.
            GraphLaunch,
            /// A copy between the host and the device on the call's stream.
            Copy {
                /// Which way.
                direction: Direction,
                /// The host side's memory.
                memory: Memory,
                /// How many bytes.
                bytes: u64,
            },
            /// `Event::record` on the call's stream.
            EventRecord,
            /// `Stream::wait_event`.
            StreamWaitEvent,
            /// `Event::query` of the call's event.
            EventQuery,
            /// `Event::synchronize` of the call's event.
            EventSynchronize,
            /// `Stream::synchronize` of the call's stream.
            StreamSynchronize,
            /// `Device::synchronize`.
            DeviceSynchronize,
            /// `Device::free_segment`.
            FreeSegment,
        }
        /// What is queued ahead of a call, when it is made.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub struct Ahead {
            /// The call's stream has work queued that has not finished.
            pub stream_busy: bool,
            /// The call's event was recorded behind work that has not finished.
            pub event_pending: bool,
            /// Some stream of the device has work queued that has not finished.
            pub device_busy: bool,
            /// Pageable host-to-device copies holding one of the staging slots.
            pub staging_slots_in_use: u32,
        }
        /// A call of the judge's program, as the judge describes it.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub struct Call {
            /// What the call is.
            pub op: Op,
            /// What is queued ahead of it.
            pub ahead: Ahead,
        }
        /// The driver's staging buffers for pageable host-to-device copies.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub struct Staging {
            /// Copies of at most this many bytes travel in the command stream.
            pub inline_bytes: u64,
            /// The size of a staging slot.
            pub slot_bytes: u64,
            /// How many staging slots there are.
            pub slots: u32,
        }
        /// Whether the CPU waits in a call, and for what.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Wait {
            /// The call returns without waiting for the GPU.
            Nothing,
            /// The CPU waits for the work queued on the call's stream.
            Stream,
            /// The CPU waits for the work recorded before the call's event.
            Event,
            /// The CPU waits for every stream of the device.
            Device,
            /// The CPU waits for one of the driver's staging slots to drain.
            StagingSlot,
        }
    }
    fns {
        /// The learner's `predict`, asked in the agent.
        pub fn predict(call: &Call, staging: &Staging) -> Wait;
    }
}
