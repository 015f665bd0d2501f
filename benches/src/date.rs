//! Today's date, for the benchmark's report.

/// Today in UTC, as `YYYY-MM-DD`.
pub fn today() -> String {
    date(jiff::Timestamp::now())
}

/// The UTC date of `at`, as `YYYY-MM-DD`.
fn date(at: jiff::Timestamp) -> String {
    at.strftime("%Y-%m-%d").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_days() {
        let day = |days: i64| date(jiff::Timestamp::from_second(days * 86_400).unwrap());
        assert_eq!(day(0), "1970-01-01");
        assert_eq!(day(59), "1970-03-01");
        assert_eq!(day(11_016), "2000-02-29");
        assert_eq!(day(20_786), "2026-11-29");
        assert_eq!(day(-1), "1969-12-31");
    }
}
