//! The CUDA backend's CPU clock: nanoseconds since the device opened, read
//! twice for every traced call (the trace's CPU start and end).
//!
//! `Instant::now` costs 30–45 ns on the H200's host, so the two readings
//! were about 2% of a 4 µs launch. Where the kernel keeps its own time with
//! the CPU's time-stamp counter (its `current_clocksource` is `tsc`: it has
//! found the counter invariant and in step across cores), this clock reads
//! the counter instead (`rdtsc`, 16–23 ns there) and scales it from an
//! *anchor*, a pair of readings of `Instant` and of the counter taken
//! together. A new anchor is taken once the last one is 100 µs of counter
//! old, so every reading is extrapolated over at most 100 µs, and the scale
//! (nanoseconds per tick) is measured from the first anchor to the latest,
//! over at least 10 ms before it is trusted: off by a few parts per million,
//! a fraction of a nanosecond over one window. Until then every reading
//! takes an anchor (reads `Instant`). Readings never go backwards.
//!
//! Each new anchor is also a check: should the extrapolation disagree with
//! `Instant` by more than 1 µs (a counter that jumped, a scale gone wrong),
//! the clock reads `Instant` from then on. Elsewhere (another clocksource,
//! another architecture) it reads `Instant` always.

use std::time::Instant;

/// A new anchor is taken once the last one is this old (ns of counter).
const WINDOW_NS: f64 = 100_000.0;

/// The scale is trusted once the anchors span this long (ns).
const CALIBRATE_NS: u64 = 10_000_000;

/// The most an extrapolated reading may differ from `Instant` (ns).
const TOLERANCE_NS: u64 = 1_000;

/// An anchor whose two counter readings lie further apart than this is not
/// taken (ticks: 0.3–0.5 µs at 2–3 GHz, where the pair takes about 50 ns;
/// the thread was interrupted between them), so that an anchor's two
/// readings are never more than a quarter of [`TOLERANCE_NS`] apart.
const PAIR_TICKS: u64 = 1_000;

/// The CPU clock of one device.
#[derive(Debug)]
pub(super) struct CpuClock {
    /// Nanoseconds count from here.
    origin: Instant,
    /// The counter, where it can be used.
    counter: Option<Counter>,
}

impl CpuClock {
    /// A clock starting now, on the counter where the kernel uses it.
    pub(super) fn new() -> Self {
        let origin = Instant::now();
        let counter = tsc::usable().then(|| Counter::new(origin));
        Self { origin, counter }
    }

    /// The instant `now_ns` counts from.
    pub(super) fn origin(&self) -> Instant {
        self.origin
    }

    /// Nanoseconds since the clock started.
    #[inline]
    pub(super) fn now_ns(&mut self) -> u64 {
        if let Some(counter) = &mut self.counter {
            match counter.read(self.origin) {
                Some(ns) => return ns,
                None => self.counter = None,
            }
        }
        ns_since(self.origin)
    }

    /// Whether the clock reads the time-stamp counter now.
    #[cfg(test)]
    fn on_counter(&self) -> bool {
        self.counter.is_some()
    }
}

/// Nanoseconds since `origin`, in `u64` arithmetic (584 years fit).
#[inline]
pub(super) fn ns_since(origin: Instant) -> u64 {
    let elapsed = origin.elapsed();
    elapsed.as_secs() * 1_000_000_000 + u64::from(elapsed.subsec_nanos())
}

/// A reading of `Instant` (ns since the origin) and of the counter, together.
#[derive(Clone, Copy, Debug)]
struct Anchor {
    ns: u64,
    tick: u64,
}

impl Anchor {
    /// Reads both: the counter before and after `Instant`, and their middle;
    /// `None` when the two counter readings lie too far apart.
    fn take(origin: Instant) -> Option<Self> {
        let before = tsc::read();
        let ns = ns_since(origin);
        let after = tsc::read();
        let gap = after.checked_sub(before)?;
        (gap <= PAIR_TICKS).then_some(Self {
            ns,
            tick: before + gap / 2,
        })
    }
}

/// The time-stamp counter, scaled from the latest anchor.
#[derive(Debug)]
struct Counter {
    /// The first anchor: the scale is measured from it.
    first: Option<Anchor>,
    /// The latest anchor: readings are extrapolated from it.
    latest: Option<Anchor>,
    /// Nanoseconds per tick, once the anchors span [`CALIBRATE_NS`].
    scale: Option<f64>,
    /// Ticks in [`WINDOW_NS`], at that scale.
    window_ticks: u64,
    /// The last reading returned.
    last_ns: u64,
}

impl Counter {
    fn new(origin: Instant) -> Self {
        let first = Anchor::take(origin);
        Self {
            first,
            latest: first,
            scale: None,
            window_ticks: 0,
            last_ns: 0,
        }
    }

    /// Nanoseconds since `origin`, or `None` when the counter disagreed
    /// with `Instant` and must not be used any more.
    #[inline]
    fn read(&mut self, origin: Instant) -> Option<u64> {
        let tick = tsc::read();
        let ns = match (self.latest, self.scale) {
            (Some(latest), Some(scale)) if tick.wrapping_sub(latest.tick) < self.window_ticks => {
                latest.ns + ((tick - latest.tick) as f64 * scale) as u64
            }
            _ => self.anchor(origin)?,
        };
        let ns = ns.max(self.last_ns);
        self.last_ns = ns;
        Some(ns)
    }

    /// Takes a new anchor and returns its time: checks the extrapolation
    /// against it, and measures the scale again from the first anchor.
    fn anchor(&mut self, origin: Instant) -> Option<u64> {
        let Some(now) = Anchor::take(origin) else {
            return Some(ns_since(origin));
        };
        if let (Some(latest), Some(scale)) = (self.latest, self.scale) {
            // Signed: on another core the counter may read a few ticks behind.
            let ticks = now.tick.wrapping_sub(latest.tick) as i64;
            let predicted = latest.ns as f64 + ticks as f64 * scale;
            if (predicted - now.ns as f64).abs() > TOLERANCE_NS as f64 {
                return None;
            }
        }
        let first = *self.first.get_or_insert(now);
        self.latest = Some(now);
        if now.ns - first.ns >= CALIBRATE_NS && now.tick > first.tick {
            let scale = (now.ns - first.ns) as f64 / (now.tick - first.tick) as f64;
            self.scale = Some(scale);
            self.window_ticks = (WINDOW_NS / scale) as u64;
        }
        Some(now.ns)
    }
}

/// The time-stamp counter of x86-64.
#[cfg(target_arch = "x86_64")]
mod tsc {
    /// Whether the kernel keeps time with the counter (Linux).
    pub(super) fn usable() -> bool {
        std::fs::read_to_string("/sys/devices/system/clocksource/clocksource0/current_clocksource")
            .is_ok_and(|source| source.trim() == "tsc")
    }

    /// The counter now.
    #[inline]
    pub(super) fn read() -> u64 {
        // SAFETY: `rdtsc` exists on every x86-64 CPU; it reads a register
        // and touches no memory.
        unsafe { std::arch::x86_64::_rdtsc() }
    }
}

/// No counter elsewhere: the clock reads `Instant`.
#[cfg(not(target_arch = "x86_64"))]
mod tsc {
    pub(super) fn usable() -> bool {
        false
    }

    pub(super) fn read() -> u64 {
        unreachable!("the counter is read only where it is usable")
    }
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;
    use std::time::Duration;

    /// A clock on the counter, where the kernel keeps time with it (as on
    /// the CI machines and the H200's host); `None` elsewhere.
    fn on_counter() -> Option<CpuClock> {
        if !tsc::usable() {
            eprintln!(
                "the clocksource is not `tsc`: the counter is not used here, nothing to test"
            );
            return None;
        }
        let origin = Instant::now();
        Some(CpuClock {
            origin,
            counter: Some(Counter::new(origin)),
        })
    }

    /// Reads until the scale is measured (10 ms of anchors).
    fn calibrated() -> Option<CpuClock> {
        let mut clock = on_counter()?;
        let deadline = Instant::now() + Duration::from_millis(50);
        while clock.counter.as_ref().is_some_and(|c| c.scale.is_none()) && Instant::now() < deadline
        {
            clock.now_ns();
            std::thread::sleep(Duration::from_millis(1));
        }
        Some(clock)
    }

    #[test]
    fn readings_never_go_backwards() {
        let Some(mut clock) = calibrated() else {
            return;
        };
        let mut last = 0;
        for _ in 0..200_000 {
            let ns = clock.now_ns();
            assert!(ns >= last, "{ns} after {last}");
            last = ns;
        }
        assert!(clock.on_counter(), "a steady counter stays in use");
    }

    #[test]
    fn readings_lie_between_instants_read_around_them() {
        let Some(mut clock) = calibrated() else {
            return;
        };
        assert!(
            clock.counter.as_ref().is_some_and(|c| c.scale.is_some()),
            "not calibrated in 50 ms"
        );
        for _ in 0..2_000 {
            let before = ns_since(clock.origin());
            let ns = clock.now_ns();
            let after = ns_since(clock.origin());
            // One re-anchoring window's worth of slack either side.
            assert!(
                ns + TOLERANCE_NS >= before && ns <= after + TOLERANCE_NS,
                "{ns} not within [{before}, {after}]"
            );
            std::thread::sleep(Duration::from_micros(30));
        }
    }

    #[test]
    fn a_scale_gone_wrong_is_caught_at_the_next_anchor() {
        let Some(mut clock) = calibrated() else {
            return;
        };
        let counter = clock.counter.as_mut().expect("on the counter");
        counter.scale = counter.scale.map(|s| s * 1.05);
        // The next anchor that is taken (an interrupted one is skipped, and
        // the H200's host skipped one) finds the extrapolation 5% off.
        for _ in 0..100 {
            std::thread::sleep(Duration::from_micros(200));
            let ns = clock.now_ns();
            assert!(ns.abs_diff(ns_since(clock.origin())) < 1_000_000);
            if !clock.on_counter() {
                return;
            }
        }
        panic!("a 5% wrong scale went unnoticed over 100 anchors");
    }

    #[test]
    fn the_first_readings_are_instants_until_the_scale_is_measured() {
        let Some(mut clock) = on_counter() else {
            return;
        };
        let before = ns_since(clock.origin());
        let ns = clock.now_ns();
        let after = ns_since(clock.origin());
        assert!(
            before <= ns && ns <= after,
            "{ns} not within [{before}, {after}]"
        );
        assert!(clock.counter.as_ref().is_some_and(|c| c.scale.is_none()));
    }
}
