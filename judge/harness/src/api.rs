//! An exercise's API declared once, both ends of its calls generated from
//! the declaration.
//!
//! A bridge (`judge/bridges/exID`) holds its exercise's API in `api.rs`, a
//! single `api! { … }` of the exercise's types, free functions and objects,
//! written as the learner's crate declares them ([`prelude`]'s names need
//! no import). Its `lib.rs` is [`bridge!`](crate::bridge!): the declaration under
//! [`checker_api!`](crate::checker_api!), the checker's end (the types,
//! with serde, and functions and objects that call the learner's in the
//! agent), and under [`agent_api!`](crate::agent_api!), the agent's end,
//! which the judge compiles into the agent: its `serve` function makes each
//! call with the learner's crate (`learner`), and converts the exercise's
//! types between the learner's crate and the bridge. The bridge keeps by
//! hand only what is particular to it (a callback the checks hand the
//! learner, a `Display`, a `serve.rs` around the declaration where a value
//! travels otherwise than as itself).
//!
//! ```text
//! api! {
//!     types {
//!         /// How the server runs.
//!         #[derive(Clone, Debug)]
//!         pub struct Config { pub batch: usize, pub eos: i32 }
//!     }
//!     fns {
//!         /// The smallest bucket that holds `rows`.
//!         pub fn bucket_for(rows: usize) -> Option<usize>;
//!     }
//!     objects {
//!         /// The learner's server, which lives in the agent.
//!         pub struct Server<'d> {
//!             /// The learner's `Server::new`.
//!             pub fn new(decoder: &Decoder, stream: &Stream, config: Config) -> Result<Self>;
//!             /// The learner's `Server::step`.
//!             pub fn step(&mut self, tokens: &[i32]) -> Result<()>;
//!             /// The learner's `Server::finish`.
//!             pub fn finish(self) -> Result<Report>;
//!         }
//!     }
//! }
//! ```
//!
//! What a declaration may hold, each as the learner's crate declares it:
//!
//! * `types`: structs and enums of values (the bridge's copy derives serde;
//!   the agent converts the learner's field by field), and a struct that
//!   borrows the judge's objects (`Streams<'s>` of `&'s Stream`), which
//!   travels as its fields;
//! * `fns`: free functions, whose last argument may be a closure of the
//!   check's (`#[callback] step: FnMut(on: &Stream, k: usize) ->
//!   Result<()>`), which the learner's code calls back across the link;
//! * `impls`: methods of a declared type (`impl Profile { fn bound(&self)
//!   -> Bound; }`), called on a copy of the value in the agent;
//! * `drivers`: one trait of the check's (`trait Driver { type Event; fn
//!   alloc_segment(&mut self, bytes: usize) -> Option<u64>; … }`), which an
//!   object may be generic over (`struct CachingAllocator<D: Driver>`, its
//!   constructor taking the driver first): the check's driver stays in the
//!   checker ([`Driven`]), the learner's object gets one in the agent whose
//!   every method calls it back, and the driver's events travel as handles
//!   (`&Self::Event` an argument, `-> Self::Event` an answer);
//! * `objects`: the learner's objects, which live in the agent by handle:
//!   constructors (`-> Self`, `-> Result<Self>`, `-> Result<Self, E>`),
//!   methods that borrow them (`&self`, `&mut self`) or take them
//!   (`self`). An object may be an answer (`-> Result<Block>`: kept in the
//!   agent, its handle travels) and an argument (`block: &mut Block`,
//!   `block: Block`: taken out of the agent's table for the call, put back
//!   when only borrowed). A constructor's arguments that the object may
//!   borrow live as long as the agent.
//!
//! A call travels as its name (`bucket_for`, `Server::step`), the handle
//! of its object in the agent (0 for a free function) and its arguments,
//! each in its wire form ([`Wire`]): a stream, a decoder or a pinned buffer
//! of the judge's as the handle the agent makes a proxy of, everything else
//! as its value. An object's method is answered `None` when the object is
//! gone (an earlier call of it panicked), and the check ends saying so.
//!
//! A value that travels otherwise than as itself gets its [`Wire`] in
//! `lib.rs` and its agent's conversion in the bridge's own `serve.rs`
//! (`agent: "serve.rs"` in [`bridge!`](crate::bridge!); exercise 103's
//! `Model`; exercise 101's `Block`, a handle with what it reported).
//! (Just over 400 lines: the checker's macro and the values it carries.)

use gpu::remote::{DecoderRef, PinnedRef, StreamRef, host};
use gpu::{Decoder, Elem, PinnedBuffer, Stream};
use serde::Serialize;

pub use crate::api_driven::{Driven, DriverArg, Events};
#[doc(hidden)]
pub use gpu;
#[doc(hidden)]
pub use serde;

/// What a declaration names without importing it, on both ends (a
/// bridge's own type of the same name comes first).
pub mod prelude {
    pub use gpu::{Decoder, GpuError, PinnedBuffer, Result, Stream, Trace, View};
    pub use std::time::Duration;
}

/// A value as the checker sends it to the agent: a handle of the judge's
/// stream, decoder or pinned buffer, or the value itself.
pub trait Wire {
    /// The form that travels.
    type Out<'a>: Serialize
    where
        Self: 'a;
    /// This value in that form.
    fn wire(&self) -> Self::Out<'_>;
}

/// Values that travel as themselves.
macro_rules! travel_as_themselves {
    ($($t:ty),* $(,)?) => {
        $(impl Wire for $t {
            type Out<'a> = &'a $t;
            fn wire(&self) -> &$t {
                self
            }
        })*
    };
}

travel_as_themselves!(
    bool,
    u8,
    u16,
    u32,
    u64,
    usize,
    i8,
    i16,
    i32,
    i64,
    isize,
    f32,
    f64,
    String,
    std::time::Duration,
    gpu::GpuError,
    gpu::Trace,
);

impl<T: Elem + Serialize> Wire for gpu::View<T> {
    type Out<'a> = &'a Self;
    fn wire(&self) -> &Self {
        self
    }
}

impl Wire for Stream {
    type Out<'a> = StreamRef;
    fn wire(&self) -> StreamRef {
        host::export_stream(self)
    }
}

impl Wire for Decoder {
    type Out<'a> = DecoderRef;
    fn wire(&self) -> DecoderRef {
        host::export_decoder(self)
    }
}

impl<T: Elem> Wire for PinnedBuffer<T> {
    type Out<'a> = PinnedRef;
    fn wire(&self) -> PinnedRef {
        host::export_pinned(self)
    }
}

impl<T: Wire + ?Sized> Wire for &T {
    type Out<'a>
        = T::Out<'a>
    where
        Self: 'a;
    fn wire(&self) -> Self::Out<'_> {
        (**self).wire()
    }
}

impl<T: Wire + ?Sized> Wire for &mut T {
    type Out<'a>
        = T::Out<'a>
    where
        Self: 'a;
    fn wire(&self) -> Self::Out<'_> {
        (**self).wire()
    }
}

impl<T: Wire> Wire for [T] {
    type Out<'a>
        = Vec<T::Out<'a>>
    where
        Self: 'a;
    fn wire(&self) -> Self::Out<'_> {
        self.iter().map(Wire::wire).collect()
    }
}

impl<T: Wire> Wire for Vec<T> {
    type Out<'a>
        = Vec<T::Out<'a>>
    where
        Self: 'a;
    fn wire(&self) -> Self::Out<'_> {
        self.iter().map(Wire::wire).collect()
    }
}

impl<T: Wire> Wire for Option<T> {
    type Out<'a>
        = Option<T::Out<'a>>
    where
        Self: 'a;
    fn wire(&self) -> Self::Out<'_> {
        self.as_ref().map(Wire::wire)
    }
}

/// A callback's argument as the checker takes it from the agent: what it
/// holds while the check's closure runs (a stream of the judge's, found by
/// its handle; a value), and the argument lent from that.
pub trait Receive<'a>: Sized {
    /// The form that travels.
    type Wire: serde::de::DeserializeOwned;
    /// What the checker holds while the closure runs.
    type Owned: 'a;
    /// That, or `None` when the handle is not one the judge handed over.
    fn receive(wire: Self::Wire) -> Option<Self::Owned>;
    /// The argument.
    fn pass(owned: &'a Self::Owned) -> Self;
}

impl<'a> Receive<'a> for &'a Stream {
    type Wire = StreamRef;
    type Owned = Stream;
    fn receive(wire: StreamRef) -> Option<Stream> {
        host::stream(wire)
    }
    fn pass(owned: &'a Stream) -> &'a Stream {
        owned
    }
}

impl Receive<'_> for usize {
    type Wire = usize;
    type Owned = usize;
    fn receive(wire: usize) -> Option<usize> {
        Some(wire)
    }
    fn pass(owned: &usize) -> usize {
        *owned
    }
}

/// A callback's argument as the agent sends it to the checker: `None` for
/// a stream that is not a proxy of the judge's.
pub trait Lend {
    /// The form that travels.
    type Wire: Serialize;
    /// This value in that form.
    fn lend(&self) -> Option<Self::Wire>;
}

impl Lend for Stream {
    type Wire = StreamRef;
    fn lend(&self) -> Option<StreamRef> {
        gpu::remote::agent::stream_ref(self)
    }
}

impl<T: Lend + ?Sized> Lend for &T {
    type Wire = T::Wire;
    fn lend(&self) -> Option<T::Wire> {
        (**self).lend()
    }
}

impl Lend for usize {
    type Wire = usize;
    fn lend(&self) -> Option<usize> {
        Some(*self)
    }
}

/// A callback's answer when one of its arguments is a handle of a device
/// the judge did not give: the callback's error.
pub trait Foreign {
    /// That error, for the callback `op`.
    fn foreign(op: &'static str) -> Self;
}

impl<T> Foreign for gpu::Result<T> {
    fn foreign(op: &'static str) -> Self {
        Err(gpu::GpuError::ForeignHandle {
            op,
            site: gpu::CallSite::internal("a stream of a device the judge did not give"),
        })
    }
}

/// The request of a call: its name, its object's handle, its arguments.
#[doc(hidden)]
pub fn request(name: &str, handle: u64, args: &impl Serialize) -> Vec<u8> {
    let mut bytes = postcard::to_stdvec(&(name, handle)).expect("a call's name serializes");
    bytes.extend(postcard::to_stdvec(args).expect("a call's arguments serialize"));
    bytes
}

/// A request as the agent reads it: the call's name, its object's handle,
/// and the bytes of its arguments (the checker is the judge's, so a
/// request that does not decode is the judge's bug: a panic).
#[doc(hidden)]
pub fn read_request(bytes: &[u8]) -> (String, u64, &[u8]) {
    let ((name, handle), args) = postcard::take_from_bytes::<(String, u64)>(bytes)
        .unwrap_or_else(|e| panic!("the judge's checker sent a call this agent cannot read ({e}); rebuild the agent with the course's judge"));
    (name, handle, args)
}

/// A call's arguments, read in the agent.
#[doc(hidden)]
pub fn read_args<T: serde::de::DeserializeOwned>(name: &str, bytes: &[u8]) -> T {
    postcard::from_bytes(bytes).unwrap_or_else(|e| {
        panic!("the judge's checker sent `{name}` with arguments this agent cannot read ({e}); rebuild the agent with the course's judge")
    })
}

/// The answer of an object's method, or the end of the check when the
/// object is gone.
#[doc(hidden)]
pub fn present<T>(object: &str, answer: Option<T>) -> T {
    answer.unwrap_or_else(|| {
        panic!(
            "the learner's `{object}` is gone: an earlier call of it panicked in the learner's code"
        )
    })
}

/// The learner's object the checker handed back by its handle, or the end
/// of the call: the object is gone (an earlier call of it panicked, or a
/// call took it).
#[doc(hidden)]
pub fn taken<T>(object: &str, taken: Option<T>) -> T {
    taken.unwrap_or_else(|| {
        panic!(
            "the learner's `{object}` is gone: an earlier call of it panicked in the learner's code, or a call took it"
        )
    })
}

/// A call no declaration of this bridge names: the checker and the agent
/// were built from different bridges.
#[doc(hidden)]
pub fn unknown(name: &str) -> ! {
    panic!(
        "the judge's checker called `{name}`, which this agent does not serve; rebuild the agent with the course's judge"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_reads_back_as_its_name_handle_and_arguments() {
        let bytes = request("Server::step", 7, &(vec![1_i32, 2], 3_usize));
        let (name, handle, args) = read_request(&bytes);
        assert_eq!((name.as_str(), handle), ("Server::step", 7));
        let (tokens, n): (Vec<i32>, usize) = read_args(&name, args);
        assert_eq!((tokens, n), (vec![1, 2], 3));
    }

    #[test]
    fn a_gone_object_ends_the_check_naming_it() {
        assert_eq!(present("Server", Some(3)), 3);
        let panic = std::panic::catch_unwind(|| present::<()>("Server", None)).unwrap_err();
        let message = panic.downcast_ref::<String>().unwrap();
        assert!(message.contains("`Server` is gone"), "{message}");
    }

    #[test]
    fn a_callback_with_a_foreign_stream_answers_the_callbacks_error() {
        let answer: gpu::Result<()> = Foreign::foreign("step");
        assert!(matches!(
            answer,
            Err(gpu::GpuError::ForeignHandle { op: "step", .. })
        ));
        assert_eq!(Lend::lend(&3_usize), Some(3));
    }

    #[test]
    fn values_travel_as_themselves_and_slices_as_lists() {
        let wire = postcard::to_stdvec(&Wire::wire(&[1_u64, 2][..])).unwrap();
        assert_eq!(postcard::from_bytes::<Vec<u64>>(&wire).unwrap(), [1, 2]);
        let some = postcard::to_stdvec(&Wire::wire(&Some(5_usize))).unwrap();
        assert_eq!(
            postcard::from_bytes::<Option<usize>>(&some).unwrap(),
            Some(5)
        );
    }
}
