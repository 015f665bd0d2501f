//! The known mistakes of each function, each as the answers it gives and
//! its cause in words, and the diagnosis: the mistake that agrees with the
//! most of the learner's answers over the judge's table, provided it
//! explains at least one wrong answer.

use super::rules::{
    LARGE_BUFFER, MIN_BLOCK, MIN_LARGE_ALLOC, ROUND_LARGE, SMALL_BUFFER, SMALL_SIZE, pool_for,
    round_size, segment_size,
};
use rounding_and_pools::Pool;

/// A plausible wrong rule: its cause in words, and the answer it gives.
pub(crate) struct Mistake<T> {
    /// What the learner did and why it is wrong, naming the rule.
    pub(crate) cause: &'static str,
    /// The answer that rule gives for a size.
    pub(crate) answer: fn(usize) -> T,
}

/// The mistake among `mistakes` that best explains `answers` (each a size,
/// the learner's answer and the rule's), if one explains any wrong answer;
/// when several explain them equally well (a threshold slip and a `max`
/// give the same answers), all of them, for the learner to tell apart.
pub(crate) fn diagnose<T: PartialEq + Copy>(
    mistakes: &[Mistake<T>],
    answers: &[(usize, T, T)],
) -> Option<String> {
    let mut best: Vec<&'static str> = Vec::new();
    let mut top = 0;
    for mistake in mistakes {
        let agrees = |&&(size, said, _): &&(usize, T, T)| (mistake.answer)(size) == said;
        let explains = answers.iter().filter(|a| a.1 != a.2).any(|a| agrees(&a));
        let score = answers.iter().filter(agrees).count();
        if !explains || score < top {
            continue;
        }
        if score > top {
            (top, best) = (score, Vec::new());
        }
        if !best.contains(&mistake.cause) {
            best.push(mistake.cause);
        }
    }
    match best.as_slice() {
        [] => None,
        [one] => Some(one.to_string()),
        several => Some(format!(
            "one of {} mistakes that give exactly these answers, which the answers alone cannot tell apart (look for each in your code): {}",
            several.len(),
            several
                .iter()
                .enumerate()
                .map(|(i, cause)| format!("({}) {cause}", i + 1))
                .collect::<Vec<_>>()
                .join(" ")
        )),
    }
}

/// The mistakes of `round_size`.
pub(crate) const ROUNDING: &[Mistake<usize>] = &[
    Mistake {
        cause: "`malloc(0)` is left at 0 bytes: a request is at least 512 bytes, so take `size.max(1)` before rounding up",
        answer: |s| if s == 0 { 0 } else { round_size(s) },
    },
    Mistake {
        cause: "the request is rounded up to a power of two, as a buddy allocator would; the caching allocator rounds to a multiple of 512 bytes, so 1025 bytes is 1536, not 2048",
        answer: |s| s.max(MIN_BLOCK).next_power_of_two(),
    },
    Mistake {
        cause: "the request is rounded down, so the block is smaller than the request; round up (`div_ceil`)",
        answer: |s| (s / MIN_BLOCK * MIN_BLOCK).max(MIN_BLOCK),
    },
    Mistake {
        cause: "the request is rounded down, so the block is smaller than the request (and 511 bytes become 0); round up (`div_ceil`), to at least 512",
        answer: |s| s / MIN_BLOCK * MIN_BLOCK,
    },
    Mistake {
        cause: "a request that is already a multiple of 512 gets one block more (`size / 512 + 1` blocks): 512 bytes must stay 512, so round up with `div_ceil`",
        answer: |s| (s / MIN_BLOCK + 1) * MIN_BLOCK,
    },
    Mistake {
        cause: "the round-up by a mask clears the wrong bits: `& !MIN_BLOCK` clears only the 512 bit, so the low nine bits stay (1000 becomes 1511) and 512 can drop out; the mask of the low bits is `!(MIN_BLOCK - 1)`, or round with `div_ceil(MIN_BLOCK) * MIN_BLOCK`",
        answer: |s| (s.max(1) + MIN_BLOCK - 1) & !MIN_BLOCK,
    },
    Mistake {
        cause: "the round-up by a mask forgets the `- 1` of the mask, or adds `MIN_BLOCK` where it adds `MIN_BLOCK - 1`: a mask rounds up as `(size + MIN_BLOCK - 1) & !(MIN_BLOCK - 1)`, or round with `div_ceil(MIN_BLOCK) * MIN_BLOCK`",
        answer: |s| (s.max(1) + MIN_BLOCK) & !(MIN_BLOCK - 1),
    },
    Mistake {
        cause: "the request is not rounded at all; every block is a multiple of 512 bytes, so that sizes repeat and blocks stay aligned",
        answer: |s| s,
    },
    Mistake {
        cause: "the request is rounded to a multiple of 1024 bytes, not of 512 (`MIN_BLOCK`)",
        answer: |s| s.max(1).next_multiple_of(1024),
    },
    Mistake {
        cause: "the request is rounded to a multiple of 256 bytes, not of 512 (`MIN_BLOCK`)",
        answer: |s| s.max(1).next_multiple_of(256).max(MIN_BLOCK),
    },
    Mistake {
        cause: "a large request is rounded to a multiple of 2 MiB: that is the rule for the size of its own segment (`ROUND_LARGE`), not for the block, which is always rounded to 512 bytes",
        answer: |s| {
            let r = round_size(s);
            if r > SMALL_SIZE {
                r.next_multiple_of(ROUND_LARGE)
            } else {
                r
            }
        },
    },
];

/// The mistakes of `pool_for`.
pub(crate) const POOLS: &[Mistake<Pool>] = &[
    Mistake {
        cause: "exactly 1 MiB is put in the large pool (`<` where the rule says `<=`): the small pool takes rounded requests up to and including `SMALL_SIZE`",
        answer: |r| {
            if r < SMALL_SIZE {
                Pool::Small
            } else {
                Pool::Large
            }
        },
    },
    Mistake {
        cause: "the small pool ends one block past 1 MiB: a rounded 1 MiB + 512 is already large; compare with `SMALL_SIZE` itself",
        answer: |r| {
            if r <= SMALL_SIZE + MIN_BLOCK {
                Pool::Small
            } else {
                Pool::Large
            }
        },
    },
    Mistake {
        cause: "the pools are split at 2 MiB, the size of a small segment (`SMALL_BUFFER`); the small pool takes requests up to `SMALL_SIZE`, 1 MiB",
        answer: |r| {
            if r <= SMALL_BUFFER {
                Pool::Small
            } else {
                Pool::Large
            }
        },
    },
    Mistake {
        cause: "the pools are split below 2 MiB, the size of a small segment (`SMALL_BUFFER`); the small pool takes requests up to `SMALL_SIZE`, 1 MiB",
        answer: |r| {
            if r < SMALL_BUFFER {
                Pool::Small
            } else {
                Pool::Large
            }
        },
    },
    Mistake {
        cause: "the pools are split at 10 MiB (`MIN_LARGE_ALLOC`), the boundary of the segment rule; the pool's boundary is `SMALL_SIZE`, 1 MiB",
        answer: |r| {
            if r < MIN_LARGE_ALLOC {
                Pool::Small
            } else {
                Pool::Large
            }
        },
    },
    Mistake {
        cause: "the pools are swapped: small requests (up to 1 MiB) go to `Pool::Small`",
        answer: |r| match pool_for(r) {
            Pool::Small => Pool::Large,
            Pool::Large => Pool::Small,
        },
    },
    Mistake {
        cause: "every request goes to one pool; the two pools keep small and large blocks apart, split at `SMALL_SIZE`, 1 MiB",
        answer: |_| Pool::Small,
    },
    Mistake {
        cause: "every request goes to one pool; the two pools keep small and large blocks apart, split at `SMALL_SIZE`, 1 MiB",
        answer: |_| Pool::Large,
    },
];

/// `rule` for large requests, the judge's rule for small ones.
fn large(r: usize, rule: fn(usize) -> usize) -> usize {
    if r <= SMALL_SIZE {
        SMALL_BUFFER
    } else {
        rule(r)
    }
}

/// `rule` for requests of their own segment, the judge's rule below.
fn own(r: usize, rule: fn(usize) -> usize) -> usize {
    if r < MIN_LARGE_ALLOC {
        segment_size(r)
    } else {
        rule(r)
    }
}

/// The mistakes of `segment_size`.
pub(crate) const SEGMENTS: &[Mistake<usize>] = &[
    Mistake {
        cause: "a small-pool segment is 1 MiB (`SMALL_SIZE`, the largest small request); it is `SMALL_BUFFER`, 2 MiB, so that small blocks share it",
        answer: |r| {
            if r <= SMALL_SIZE {
                SMALL_SIZE
            } else {
                segment_size(r)
            }
        },
    },
    Mistake {
        cause: "a request of exactly 1 MiB is given a large segment (`<` where the rule says `<=`): it belongs to the small pool, whose segments are 2 MiB",
        answer: |r| {
            if r == SMALL_SIZE {
                LARGE_BUFFER
            } else {
                segment_size(r)
            }
        },
    },
    Mistake {
        cause: "a request of exactly 10 MiB is given the shared 20 MiB segment (`<=` where the rule says `<`): from `MIN_LARGE_ALLOC` on, a request gets a segment of its own, rounded up to 2 MiB",
        answer: |r| {
            if r == MIN_LARGE_ALLOC {
                LARGE_BUFFER
            } else {
                segment_size(r)
            }
        },
    },
    Mistake {
        cause: "a segment of its own is exactly the request, not rounded up to a multiple of 2 MiB (`ROUND_LARGE`)",
        answer: |r| own(r, |r| r),
    },
    Mistake {
        cause: "a segment of its own is rounded down to a multiple of 2 MiB, so it is smaller than the request; round up (`next_multiple_of`)",
        answer: |r| own(r, |r| r / ROUND_LARGE * ROUND_LARGE),
    },
    Mistake {
        cause: "a segment of its own gets 2 MiB more when the request is already a multiple of 2 MiB; round up with `next_multiple_of(ROUND_LARGE)`",
        answer: |r| own(r, |r| (r / ROUND_LARGE + 1) * ROUND_LARGE),
    },
    Mistake {
        cause: "a segment of its own is rounded up to a power of two; it is rounded up to a multiple of 2 MiB (`ROUND_LARGE`), so 12 MiB + 512 opens 14 MiB, not 16",
        answer: |r| own(r, usize::next_power_of_two),
    },
    Mistake {
        cause: "a segment of its own is rounded up to a multiple of 20 MiB (`LARGE_BUFFER`, the shared segment's size); it is rounded up to a multiple of 2 MiB (`ROUND_LARGE`), so 12 MiB + 512 opens 14 MiB, and 20 MiB + 512 opens 22 MiB, not 40",
        answer: |r| own(r, |r| r.next_multiple_of(LARGE_BUFFER)),
    },
    Mistake {
        cause: "every large request gets the shared 20 MiB segment, even one that does not fit in it; from `MIN_LARGE_ALLOC` (10 MiB) on, a request gets a segment of its own, rounded up to 2 MiB",
        answer: |r| large(r, |_| LARGE_BUFFER),
    },
    Mistake {
        cause: "every large request gets a segment of its own; below `MIN_LARGE_ALLOC` (10 MiB) several share one 20 MiB segment (`LARGE_BUFFER`)",
        answer: |r| large(r, |r| r.next_multiple_of(ROUND_LARGE)),
    },
    Mistake {
        cause: "the shared segment is used up to 20 MiB (`LARGE_BUFFER`); a request gets a segment of its own from `MIN_LARGE_ALLOC`, 10 MiB",
        answer: |r| {
            large(r, |r| {
                if r < LARGE_BUFFER {
                    LARGE_BUFFER
                } else {
                    r.next_multiple_of(ROUND_LARGE)
                }
            })
        },
    },
    Mistake {
        cause: "a segment of its own is never smaller than 20 MiB (a `.max(LARGE_BUFFER)` on the rounded request), so requests from 10 MiB to 20 MiB open 20 MiB; from `MIN_LARGE_ALLOC` (10 MiB) on, a segment is the request rounded up to a multiple of 2 MiB, whatever its size",
        answer: |r| large(r, |r| r.next_multiple_of(ROUND_LARGE).max(LARGE_BUFFER)),
    },
    Mistake {
        cause: "the request's pool is not looked at: every segment follows the large pool's rule; a small-pool segment is always 2 MiB (`SMALL_BUFFER`)",
        answer: |r| {
            if r < MIN_LARGE_ALLOC {
                LARGE_BUFFER
            } else {
                r.next_multiple_of(ROUND_LARGE)
            }
        },
    },
];
