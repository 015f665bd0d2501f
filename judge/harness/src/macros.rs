//! The macros a suite writes: [`check!`](crate::check!) for its table of
//! checks and [`snapshot!`](crate::snapshot!) for a snapshot assertion; and
//! the one a bridge's `lib.rs` writes: [`bridge!`](crate::bridge!).

/// A [`Check`](crate::Check) named after its function: the last segment of
/// the path, so that the name the judge prints, the variants' `fails:` lines
/// and the function cannot drift apart.
///
/// ```
/// # mod pools {
/// #     pub fn rounds_requests_to_512(_: &judge_harness::Ctx) -> Result<(), judge_harness::Failure> { Ok(()) }
/// # }
/// const CHECKS: &[judge_harness::Check] = &[judge_harness::check!(
///     pools::rounds_requests_to_512,
///     "every request rounds up to a multiple of 512 bytes, at least 512",
///     "allocator.md#rounding-and-pools",
///     4,
/// )];
/// assert_eq!(CHECKS[0].name, "rounds_requests_to_512");
/// ```
///
/// A check that the untouched starter passes names, after its points, the
/// checks that must pass too for it to earn them (`requires = [a, b]`).
#[macro_export]
macro_rules! check {
    ($($path:ident)::+, $title:expr, $section:expr, $points:expr, requires = [$($req:ident),+ $(,)?] $(,)?) => {
        $crate::check!($($path)::+, $title, $section, $points).requiring(&[$(stringify!($req)),+])
    };
    ($($path:ident)::+, $title:expr, $section:expr, $points:expr $(,)?) => {
        $crate::Check::new(
            $crate::__last_segment!($($path)::+),
            $title,
            $section,
            $points,
            $($path)::+,
        )
    };
}

/// The last segment of a path, as a string literal ([`check!`](crate::check!)
/// uses it).
#[doc(hidden)]
#[macro_export]
macro_rules! __last_segment {
    ($last:ident) => {
        stringify!($last)
    };
    ($first:ident :: $($rest:ident)::+) => {
        $crate::__last_segment!($($rest)::+)
    };
}

/// Asserts that `value` (text) is the suite's snapshot `name`
/// (`SNAPSHOTS/NAME.snap`, an insta snapshot the judge owns); evaluates to
/// `Result<(), Failure>`, whose failure says it expected `expected` and
/// points at insta's diff. See [`Ctx::snapshot`](crate::Ctx::snapshot).
///
/// ```no_run
/// # fn check(ctx: &judge_harness::Ctx) -> Result<(), judge_harness::Failure> {
/// let layout = "segment 0x0 2097152 bytes\n".to_string();
/// judge_harness::snapshot!(ctx, "layout", layout, "the layout after the script")?;
/// # Ok(())
/// # }
/// ```
#[macro_export]
macro_rules! snapshot {
    ($ctx:expr, $name:expr, $value:expr, $expected:expr $(,)?) => {
        $ctx.snapshot($name, $expected, || {
            $crate::insta::assert_snapshot!($name, $value)
        })
    };
}

/// A bridge crate's two ends from its API, declared once in `api.rs`
/// ([`crate::api`]): the checker's end ([`checker_api!`](crate::checker_api!))
/// here, and for the bridge's tests (`tests.rs`, which sees this crate as
/// `super`) the agent's end ([`agent_api!`](crate::agent_api!)) as `serve`,
/// with this crate as `bridge`, as the judge compiles it into an agent with
/// the learner's crate. A bridge whose agent needs code of its own (a
/// conversion of a type that travels otherwise than as itself) puts it in
/// `serve.rs`, around the declaration, and names it (`agent:`): the judge
/// then compiles that file into the agent instead.
///
/// ```text
/// judge_harness::bridge!(api: "api.rs", tests: "tests.rs");
/// judge_harness::bridge!(api: "api.rs", agent: "serve.rs", tests: "tests.rs");
/// ```
#[macro_export]
macro_rules! bridge {
    (api: $api:literal, $(agent: $agent:literal,)? tests: $tests:literal $(,)?) => {
        #[cfg(test)]
        extern crate self as bridge;
        $crate::__bridge_agent!($api $(, $agent)?);
        use $crate::checker_api as api;
        include!($api);

        /// The bridge against the reference solution, with the agent in a thread.
        #[cfg(test)]
        mod tests {
            use super::*;
            include!($tests);
        }
    };
}

/// The agent's end of a bridge, for its tests ([`bridge!`](crate::bridge!)).
#[doc(hidden)]
#[macro_export]
macro_rules! __bridge_agent {
    ($api:literal) => {
        /// The agent's end, as the judge generates it for an agent.
        #[cfg(test)]
        mod serve {
            use $crate::agent_api as api;
            include!($api);
        }
    };
    ($api:literal, $agent:literal) => {
        #[cfg(test)]
        #[path = $agent]
        mod serve;
    };
}
