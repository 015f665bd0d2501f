//! A declared object driven by the check ([`crate::api`]'s `drivers`): the
//! learner's object lives in the agent over a driver of the check's, which
//! stays in the checker. Every call the learner's object makes on its
//! driver comes back as a callback and runs on the check's driver; the
//! driver's events stay here too, and travel as handles.

use serde::de::DeserializeOwned;
use std::collections::HashMap;

/// The check's driver of one learner's object, and the events it made for
/// the object, by the handles the agent holds.
#[derive(Debug)]
pub struct Driven<D, E> {
    /// The check's driver.
    pub driver: D,
    events: HashMap<u64, E>,
    next: u64,
}

impl<D, E> Driven<D, E> {
    /// `driver`, with no events yet.
    pub fn new(driver: D) -> Self {
        Self {
            driver,
            events: HashMap::new(),
            next: 0,
        }
    }

    /// Keeps `event` for the learner's object: its handle.
    pub fn keep(&mut self, event: E) -> u64 {
        self.next += 1;
        self.events.insert(self.next, event);
        self.next
    }

    /// The driver and the events, apart: a callback lends both.
    pub fn parts(&mut self) -> (&mut D, &Events<E>) {
        (&mut self.driver, &self.events)
    }
}

/// The events of a [`Driven`], by handle.
pub type Events<E> = HashMap<u64, E>;

/// An argument of a driver's method as the checker takes it from the
/// agent: a value as itself, an event (`&Self::Event`) as the handle of
/// one this driver made; `None` for a handle it never made (the learner's
/// process sent it).
pub trait DriverArg<'a, E>: Sized {
    /// The form that travels.
    type Wire: DeserializeOwned;
    /// The argument, or `None`.
    fn take(wire: Self::Wire, events: &'a Events<E>) -> Option<Self>;
}

impl<'a, E> DriverArg<'a, E> for &'a E {
    type Wire = u64;
    fn take(handle: u64, events: &'a Events<E>) -> Option<&'a E> {
        events.get(&handle)
    }
}

/// Values a driver's method takes as themselves.
macro_rules! driver_args_as_themselves {
    ($($t:ty),* $(,)?) => {$(
        impl<'a, E> DriverArg<'a, E> for $t {
            type Wire = $t;
            fn take(wire: $t, _: &'a Events<E>) -> Option<$t> {
                Some(wire)
            }
        }
    )*};
}

driver_args_as_themselves!(
    bool, u8, u16, u32, u64, usize, i8, i16, i32, i64, isize, f32, f64
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_travels_as_a_handle_and_an_unknown_one_is_none() {
        let mut driven = Driven::new(());
        let handle = driven.keep("recorded");
        let (_, events) = driven.parts();
        assert_eq!(
            <&&str as DriverArg<_>>::take(handle, events),
            Some(&"recorded")
        );
        assert_eq!(<&&str as DriverArg<_>>::take(handle + 1, events), None);
        assert_eq!(<usize as DriverArg<&str>>::take(7, events), Some(7));
    }
}
