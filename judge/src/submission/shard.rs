//! `--shard I/N`: one machine's share of a class.
//!
//! The class's submissions are sorted by name; shard `I/N` takes those at
//! positions I, I+N, I+2N, ... (1-based). Each position `p` belongs to
//! exactly one shard, `((p - 1) mod N) + 1`, so shards `1/N` to `N/N`, run on
//! N machines, grade every submission exactly once, and no machine needs to
//! know what the others do: the sorted list alone decides.

use std::fmt;
use std::str::FromStr;

/// Shard `index` of `count` (1-based, `1 <= index <= count`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Shard {
    /// Which shard, from 1.
    pub(crate) index: usize,
    /// How many shards in all.
    pub(crate) count: usize,
}

impl Shard {
    /// This shard's share of `items`, which are in their sorted order.
    pub(crate) fn select<T>(self, items: Vec<T>) -> Vec<T> {
        items
            .into_iter()
            .enumerate()
            .filter(|(position, _)| position % self.count == self.index - 1)
            .map(|(_, item)| item)
            .collect()
    }
}

impl FromStr for Shard {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let parsed = text.split_once('/').and_then(|(i, n)| {
            Some((
                i.trim().parse::<usize>().ok()?,
                n.trim().parse::<usize>().ok()?,
            ))
        });
        let Some((index, count)) = parsed else {
            return Err(format!(
                "shard `{text}` is not `I/N`: write two whole numbers, like `2/4` for the second of four shards"
            ));
        };
        if index == 0 || index > count {
            return Err(format!(
                "shard `{text}` does not exist: `I` counts from 1 to `N` (the shards of 4 are `1/4` to `4/4`)"
            ));
        }
        Ok(Self { index, count })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_good_shards_and_explains_bad_ones() {
        assert_eq!("2/4".parse(), Ok(Shard { index: 2, count: 4 }));
        assert_eq!("1/1".parse::<Shard>().unwrap().to_string(), "1/1");
        for bad in ["3/2", "0/4", "1/0", "0/0"] {
            assert!(
                bad.parse::<Shard>().unwrap_err().contains("does not exist"),
                "{bad}"
            );
        }
        for bad in ["", "2", "a/b", "2/4/6", "-1/4", "1.5/4"] {
            assert!(
                bad.parse::<Shard>().unwrap_err().contains("is not `I/N`"),
                "{bad}"
            );
        }
    }

    #[test]
    fn the_shards_of_n_cover_every_item_exactly_once() {
        let items: Vec<u32> = (0..7).collect();
        for count in 1..=8 {
            let mut seen: Vec<u32> = (1..=count)
                .flat_map(|index| Shard { index, count }.select(items.clone()))
                .collect();
            seen.sort();
            assert_eq!(seen, items, "{count} shards");
        }
        assert_eq!(Shard { index: 2, count: 3 }.select(items), [1, 4]);
    }
}
