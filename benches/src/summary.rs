//! A few samples summed up as median, minimum and maximum, and durations
//! written for people.

/// The median, the minimum and the maximum of some samples.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Summary {
    /// The middle sample (the mean of the two middle ones for an even count).
    pub median: f64,
    /// The smallest sample.
    pub min: f64,
    /// The largest sample.
    pub max: f64,
}

impl Summary {
    /// Sums up `samples`; all zero when there are none.
    pub fn of(mut samples: Vec<f64>) -> Self {
        if samples.is_empty() {
            return Self {
                median: 0.0,
                min: 0.0,
                max: 0.0,
            };
        }
        samples.sort_by(f64::total_cmp);
        let n = samples.len();
        let median = if n % 2 == 1 {
            samples[n / 2]
        } else {
            (samples[n / 2 - 1] + samples[n / 2]) / 2.0
        };
        Self {
            median,
            min: samples[0],
            max: samples[n - 1],
        }
    }
}

/// `ns` nanoseconds as `38.2 ns`, `291 µs` or `4.95 ms`.
pub fn duration_text(ns: f64) -> String {
    let (value, unit) = match ns {
        ns if ns >= 1e6 => (ns / 1e6, "ms"),
        ns if ns >= 1e3 => (ns / 1e3, "µs"),
        ns => (ns, "ns"),
    };
    if value >= 100.0 {
        format!("{value:.0} {unit}")
    } else if value >= 10.0 {
        format!("{value:.1} {unit}")
    } else {
        format!("{value:.2} {unit}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_median_is_the_middle() {
        let s = Summary::of(vec![5.0, 1.0, 3.0]);
        assert_eq!((s.median, s.min, s.max), (3.0, 1.0, 5.0));
        assert_eq!(Summary::of(vec![4.0, 1.0, 2.0, 3.0]).median, 2.5);
        assert_eq!(Summary::of(Vec::new()).median, 0.0);
    }

    #[test]
    fn durations_read_naturally() {
        assert_eq!(duration_text(38.24), "38.2 ns");
        assert_eq!(duration_text(291_400.0), "291 µs");
        assert_eq!(duration_text(4_946_000.0), "4.95 ms");
        assert_eq!(duration_text(7.5), "7.50 ns");
    }
}
