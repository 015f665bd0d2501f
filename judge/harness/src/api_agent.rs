//! The agent's end of a declared API ([`crate::api`]):
//! [`agent_api!`](crate::agent_api!) turns the declaration into the
//! agent's `serve` function, which reads each call, makes it with the
//! learner's crate (`learner`) and answers, and into the conversions of
//! the exercise's types between the learner's crate and the bridge
//! (`bridge`).
//!
//! The conversions are traits of the agent's own (the learner's types and
//! the bridge's are both foreign to it): [`__agent_prelude!`](crate::__agent_prelude!)
//! declares them with their impls for the values every API shares.
//!
//! The file is longer than most (about 730 lines): it is one macro and the
//! helpers it expands to, which are exported together and read in order;
//! each helper is a few rules.

/// The agent's end of an exercise's API, from its declaration (the
/// bridge's `api.rs`; [`crate::api`] says what it holds): a
/// `pub(crate) fn serve(&Agent, &[u8]) -> Vec<u8>` for the agent's `main`.
#[macro_export]
macro_rules! agent_api {
    (
        $(types { $($types:tt)* })?
        $(drivers { $($drivers:tt)* })?
        $(fns { $($fns:tt)* })?
        $(impls { $($impls:tt)* })?
        $(objects { $($objects:tt)* })?
    ) => {
        #[allow(unused_imports)]
        use $crate::api::prelude::*;
        $crate::__agent_prelude!();
        $($crate::__agent_types! { $($types)* })?
        $($crate::__agent_drivers! { $($drivers)* })?
        $($crate::__agent_object_types! { $($objects)* })?

        /// Makes one call of the checker's with the learner's crate.
        pub(crate) fn serve(agent: &$crate::agent::Agent, request: &[u8]) -> Vec<u8> {
            #[allow(unused_imports)]
            use learner::*;
            let (name, handle, args) = $crate::api::read_request(request);
            let link = agent.link();
            let _ = (handle, link);
            $($crate::__agent_fns! { (agent, link, name, args) $($fns)* })?
            $($crate::__agent_impls! { (link, name, args) $($impls)* })?
            $($crate::__agent_objects! { (agent, link, name, handle, args) $($objects)* })?
            $crate::api::unknown(&name)
        }
    };
}

/// The agent's conversions: `AgentValue` (a value from its wire form, with the
/// link for proxies of the judge's objects), `AgentTake` (an argument as the
/// learner's function takes it: by value, by reference, as a slice) and
/// `AgentGive` (an answer in its wire form).
#[doc(hidden)]
#[macro_export]
macro_rules! __agent_prelude {
    () => {
        // The bridge, whose types the answers take (a declaration with
        // none still names it, so that its tests' `extern crate self as
        // bridge` is used).
        #[allow(unused_imports)]
        use bridge as _;

        /// A value from its wire form.
        trait AgentValue: Sized {
            /// The wire form.
            type Wire: $crate::api::serde::de::DeserializeOwned;
            /// The value.
            fn import(wire: Self::Wire, link: &::std::rc::Rc<$crate::api::gpu::remote::Link>) -> Self;
        }

        /// An argument as the learner's function takes it.
        trait AgentTake<'a>: Sized {
            /// The wire form.
            type Wire: $crate::api::serde::de::DeserializeOwned;
            /// What the call holds while it runs.
            type Owned: 'a;
            /// What the call holds, from the wire form.
            fn import(wire: Self::Wire, link: &::std::rc::Rc<$crate::api::gpu::remote::Link>) -> Self::Owned;
            /// The argument.
            fn pass(owned: &'a mut Self::Owned) -> Self;
            /// What the call held, after it: a learner's object it
            /// borrowed goes back to the agent's table.
            fn restore(owned: Self::Owned) {
                let _ = owned;
            }
        }

        $crate::__agent_by_value!(
            [] (), [] bool, [] u8, [] u16, [] u32, [] u64, [] usize, [] i8, [] i16, [] i32,
            [] i64, [] isize, [] f32, [] f64, [] String, [] ::std::time::Duration,
            [] $crate::api::gpu::GpuError, [] $crate::api::gpu::Stream, [] $crate::api::gpu::Decoder,
            [T: $crate::api::gpu::Elem] $crate::api::gpu::View<T>, [T: $crate::api::gpu::Elem] $crate::api::gpu::PinnedBuffer<T>,
            [T: AgentValue] Vec<T>, [T: AgentValue] Option<T>,
        );

        impl<'a, T: AgentValue + 'a> AgentTake<'a> for &'a T {
            type Wire = T::Wire;
            type Owned = T;
            fn import(wire: T::Wire, link: &::std::rc::Rc<$crate::api::gpu::remote::Link>) -> T {
                T::import(wire, link)
            }
            fn pass(owned: &'a mut T) -> &'a T {
                owned
            }
        }

        impl<'a, T: AgentValue + 'a> AgentTake<'a> for &'a mut T {
            type Wire = T::Wire;
            type Owned = T;
            fn import(wire: T::Wire, link: &::std::rc::Rc<$crate::api::gpu::remote::Link>) -> T {
                T::import(wire, link)
            }
            fn pass(owned: &'a mut T) -> &'a mut T {
                owned
            }
        }

        impl<'a, T: AgentValue + 'a> AgentTake<'a> for &'a [T] {
            type Wire = Vec<T::Wire>;
            type Owned = Vec<T>;
            fn import(wire: Vec<T::Wire>, link: &::std::rc::Rc<$crate::api::gpu::remote::Link>) -> Vec<T> {
                wire.into_iter().map(|w| T::import(w, link)).collect()
            }
            fn pass(owned: &'a mut Vec<T>) -> &'a [T] {
                owned
            }
        }

        /// An argument of a driver's method as the agent sends it to the
        /// check's driver: an event as its handle, a value as its answer's
        /// wire form.
        trait AgentDriverArg {
            /// The form that travels.
            type Wire: $crate::api::serde::Serialize;
            /// This argument in that form.
            fn wire(&self) -> Self::Wire;
        }

        impl<T: AgentGive + Clone> AgentDriverArg for T {
            type Wire = T::Wire;
            fn wire(&self) -> T::Wire {
                self.clone().give()
            }
        }

        impl AgentDriverArg for &u64 {
            type Wire = u64;
            fn wire(&self) -> u64 {
                **self
            }
        }

        /// An answer in its wire form.
        trait AgentGive {
            /// The wire form.
            type Wire: $crate::api::serde::Serialize;
            /// The answer in it.
            fn give(self) -> Self::Wire;
        }

        $crate::__agent_as_themselves!(
            (), bool, u8, u16, u32, u64, usize, i8, i16, i32, i64, isize, f32, f64,
            String, ::std::time::Duration, $crate::api::gpu::GpuError, $crate::api::gpu::Trace,
        );

        impl<T: $crate::api::gpu::Elem> AgentValue for $crate::api::gpu::View<T>
        where
            $crate::api::gpu::View<T>: $crate::api::serde::de::DeserializeOwned,
        {
            type Wire = Self;
            fn import(wire: Self, _: &::std::rc::Rc<$crate::api::gpu::remote::Link>) -> Self {
                wire
            }
        }

        impl<T: $crate::api::gpu::Elem> AgentGive for $crate::api::gpu::View<T>
        where
            $crate::api::gpu::View<T>: $crate::api::serde::Serialize,
        {
            type Wire = Self;
            fn give(self) -> Self {
                self
            }
        }

        impl AgentValue for $crate::api::gpu::Stream {
            type Wire = $crate::api::gpu::remote::StreamRef;
            fn import(wire: Self::Wire, link: &::std::rc::Rc<$crate::api::gpu::remote::Link>) -> Self {
                $crate::api::gpu::remote::agent::stream(link, wire)
            }
        }

        impl AgentValue for $crate::api::gpu::Decoder {
            type Wire = $crate::api::gpu::remote::DecoderRef;
            fn import(wire: Self::Wire, link: &::std::rc::Rc<$crate::api::gpu::remote::Link>) -> Self {
                $crate::api::gpu::remote::agent::decoder(link, wire)
            }
        }

        impl<T: $crate::api::gpu::Elem> AgentValue for $crate::api::gpu::PinnedBuffer<T> {
            type Wire = $crate::api::gpu::remote::PinnedRef;
            fn import(wire: Self::Wire, link: &::std::rc::Rc<$crate::api::gpu::remote::Link>) -> Self {
                $crate::api::gpu::remote::agent::pinned(link, wire).unwrap_or_else(|| {
                    panic!(
                        "the judge's checker handed over a pinned buffer of another element type than `{}`; rebuild the agent with the course's judge",
                        ::std::any::type_name::<T>()
                    )
                })
            }
        }

        impl<T: AgentValue> AgentValue for Vec<T> {
            type Wire = Vec<T::Wire>;
            fn import(wire: Self::Wire, link: &::std::rc::Rc<$crate::api::gpu::remote::Link>) -> Self {
                wire.into_iter().map(|w| T::import(w, link)).collect()
            }
        }

        impl<T: AgentValue> AgentValue for Option<T> {
            type Wire = Option<T::Wire>;
            fn import(wire: Self::Wire, link: &::std::rc::Rc<$crate::api::gpu::remote::Link>) -> Self {
                wire.map(|w| T::import(w, link))
            }
        }

        impl<T: AgentGive> AgentGive for Vec<T> {
            type Wire = Vec<T::Wire>;
            fn give(self) -> Self::Wire {
                self.into_iter().map(AgentGive::give).collect()
            }
        }

        impl<T: AgentGive> AgentGive for Option<T> {
            type Wire = Option<T::Wire>;
            fn give(self) -> Self::Wire {
                self.map(AgentGive::give)
            }
        }

        impl<T: AgentGive, E: AgentGive> AgentGive for Result<T, E> {
            type Wire = Result<T::Wire, E::Wire>;
            fn give(self) -> Self::Wire {
                self.map(AgentGive::give).map_err(AgentGive::give)
            }
        }

        impl<A: AgentGive, B: AgentGive> AgentGive for (A, B) {
            type Wire = (A::Wire, B::Wire);
            fn give(self) -> Self::Wire {
                (self.0.give(), self.1.give())
            }
        }
    };
}

/// Arguments the learner's function takes by value: `AgentTake` for each type,
/// as it is `AgentValue` (a blanket impl would overlap with the references').
#[doc(hidden)]
#[macro_export]
macro_rules! __agent_by_value {
    ($([$($bound:tt)*] $t:ty),* $(,)?) => {$(
        impl<'a, $($bound)*> AgentTake<'a> for $t where $t: AgentValue + 'a {
            type Wire = <$t as AgentValue>::Wire;
            type Owned = Option<$t>;
            fn import(wire: Self::Wire, link: &::std::rc::Rc<$crate::api::gpu::remote::Link>) -> Option<$t> {
                Some(<$t as AgentValue>::import(wire, link))
            }
            fn pass(owned: &'a mut Option<$t>) -> $t {
                owned.take().expect("each argument is passed once")
            }
        }
    )*};
}

/// Values whose wire form is themselves, both ways.
#[doc(hidden)]
#[macro_export]
macro_rules! __agent_as_themselves {
    ($($t:ty),* $(,)?) => {$(
        impl AgentValue for $t {
            type Wire = $t;
            fn import(wire: $t, _: &::std::rc::Rc<$crate::api::gpu::remote::Link>) -> $t {
                wire
            }
        }
        impl AgentGive for $t {
            type Wire = $t;
            fn give(self) -> $t {
                self
            }
        }
    )*};
}

/// The conversions of the exercise's types, field by field, between the
/// learner's crate and the bridge.
#[doc(hidden)]
#[macro_export]
macro_rules! __agent_types {
    () => {};
    ($(#[$m:meta])* $v:vis struct $name:ident($fv:vis $ft:ty); $($rest:tt)*) => {
        impl AgentValue for learner::$name {
            type Wire = bridge::$name;
            fn import(wire: bridge::$name, link: &::std::rc::Rc<$crate::api::gpu::remote::Link>) -> Self {
                learner::$name(AgentValue::import(wire.0, link))
            }
        }
        impl AgentGive for learner::$name {
            type Wire = bridge::$name;
            fn give(self) -> bridge::$name {
                bridge::$name(AgentGive::give(self.0))
            }
        }
        $crate::__agent_by_value!([] learner::$name);
        $crate::__agent_types! { $($rest)* }
    };
    // A type that borrows the judge's objects: the learner's holds the
    // proxies the call holds, field by field.
    (
        $(#[$m:meta])* $v:vis struct $name:ident<$lt:lifetime> {
            $($(#[$fm:meta])* $fv:vis $field:ident: $ft:ty),* $(,)?
        }
        $($rest:tt)*
    ) => {
        impl<$lt> AgentTake<$lt> for learner::$name<$lt> {
            type Wire = ($(<$ft as AgentTake<$lt>>::Wire,)*);
            type Owned = ($(<$ft as AgentTake<$lt>>::Owned,)*);
            fn import(
                wire: Self::Wire,
                link: &::std::rc::Rc<$crate::api::gpu::remote::Link>,
            ) -> Self::Owned {
                let ($($field,)*) = wire;
                ($(<$ft as AgentTake<$lt>>::import($field, link),)*)
            }
            fn pass(owned: &$lt mut Self::Owned) -> Self {
                let ($($field,)*) = owned;
                learner::$name { $($field: <$ft as AgentTake<$lt>>::pass($field)),* }
            }
        }
        $crate::__agent_types! { $($rest)* }
    };
    (
        $(#[$m:meta])* $v:vis struct $name:ident {
            $($(#[$fm:meta])* $fv:vis $field:ident: $ft:ty),* $(,)?
        }
        $($rest:tt)*
    ) => {
        impl AgentValue for learner::$name {
            type Wire = bridge::$name;
            fn import(wire: bridge::$name, link: &::std::rc::Rc<$crate::api::gpu::remote::Link>) -> Self {
                let _ = link;
                learner::$name { $($field: AgentValue::import(wire.$field, link)),* }
            }
        }
        impl AgentGive for learner::$name {
            type Wire = bridge::$name;
            fn give(self) -> bridge::$name {
                bridge::$name { $($field: AgentGive::give(self.$field)),* }
            }
        }
        $crate::__agent_by_value!([] learner::$name);
        $crate::__agent_types! { $($rest)* }
    };
    (
        $(#[$m:meta])* $v:vis enum $name:ident {
            $(
                $(#[$vm:meta])* $variant:ident
                $(( $tuple:ty ))?
                $({ $($(#[$fm:meta])* $field:ident: $ft:ty),* $(,)? })?
            ),* $(,)?
        }
        $($rest:tt)*
    ) => {
        impl AgentValue for learner::$name {
            type Wire = bridge::$name;
            #[allow(non_snake_case)]
            fn import(wire: bridge::$name, link: &::std::rc::Rc<$crate::api::gpu::remote::Link>) -> Self {
                let _ = link;
                match wire {$(
                    bridge::$name::$variant $({ 0: $crate::__bind!(__0, $tuple) })? $({ $($field),* })? =>
                        learner::$name::$variant
                            $({ 0: <$tuple as AgentValue>::import(__0, link) })?
                            $({ $($field: AgentValue::import($field, link)),* })?,
                )*}
            }
        }
        impl AgentGive for learner::$name {
            type Wire = bridge::$name;
            #[allow(non_snake_case)]
            fn give(self) -> bridge::$name {
                match self {$(
                    learner::$name::$variant $({ 0: $crate::__bind!(__0, $tuple) })? $({ $($field),* })? =>
                        bridge::$name::$variant
                            $({ 0: <$tuple as AgentGive>::give(__0) })?
                            $({ $($field: AgentGive::give($field)),* })?,
                )*}
            }
        }
        $crate::__agent_by_value!([] learner::$name);
        $crate::__agent_types! { $($rest)* }
    };
}

/// The binding `name` in a pattern: lets a repetition over a tuple
/// variant's type bind its field.
#[doc(hidden)]
#[macro_export]
macro_rules! __bind {
    ($name:ident, $t:ty) => {
        $name
    };
}

/// The agent's free functions: each call made with the learner's, with a
/// closure that calls the check's back when the declaration has one.
#[doc(hidden)]
#[macro_export]
macro_rules! __agent_fns {
    (($agent:ident, $link:ident, $name:ident, $args:ident) $(
        $(#[$m:meta])*
        $v:vis fn $f:ident(
            $($arg:ident: $t:ty),*
            $(, #[callback] $cb:ident: FnMut($($cn:ident: $ct:ty),* $(,)?) -> $cr:ty)?
            $(,)?
        ) $(-> $ret:ty)?;
    )*) => {$(
        if $name == stringify!($f) {
            let ($($arg,)*): ($(<$t as AgentTake<'_>>::Wire,)*) = $crate::api::read_args(&$name, $args);
            $(let mut $arg = <$t as AgentTake<'_>>::import($arg, $link);)*
            let answer = learner::$f(
                $(<$t as AgentTake<'_>>::pass(&mut $arg),)*
                $(&mut |$($cn: $ct),*| {
                    match ($($crate::api::Lend::lend(&$cn),)*) {
                        ($(::std::option::Option::Some($cn),)*) => $agent.callback(&($($cn,)*)),
                        #[allow(unreachable_patterns)]
                        _ => $crate::api::Foreign::foreign(stringify!($cb)),
                    }
                })?
            );
            $(<$t as AgentTake<'_>>::restore($arg);)*
            return $crate::agent::answer(&AgentGive::give(answer));
        }
    )*};
}

/// The agent's methods of the exercise's types: each called on the value
/// the checker sent.
#[doc(hidden)]
#[macro_export]
macro_rules! __agent_impls {
    (($link:ident, $name:ident, $args:ident) $(
        impl $ty:ident {$(
            $(#[$m:meta])*
            $v:vis fn $f:ident(&self $(, $arg:ident: $t:ty)* $(,)?) $(-> $ret:ty)?;
        )*}
    )*) => {$($(
        if $name == concat!(stringify!($ty), "::", stringify!($f)) {
            let (this, $($arg,)*): (<$ty as AgentTake<'_>>::Wire, $(<$t as AgentTake<'_>>::Wire,)*) =
                $crate::api::read_args(&$name, $args);
            let mut this = <$ty as AgentTake<'_>>::import(this, $link);
            $(let mut $arg = <$t as AgentTake<'_>>::import($arg, $link);)*
            let this = <$ty as AgentTake<'_>>::pass(&mut this);
            let answer = this.$f($(<$t as AgentTake<'_>>::pass(&mut $arg)),*);
            return $crate::agent::answer(&AgentGive::give(answer));
        }
    )*)*};
}

/// The agent's end of the exercise's driver: `__RemoteDriver`, the driver
/// of every learner's object generic over it, whose every method calls the
/// check's driver back, and whose events are the handles of the check's.
#[doc(hidden)]
#[macro_export]
macro_rules! __agent_drivers {
    (
        $(#[$m:meta])* $v:vis trait $tr:ident {
            $(#[$em:meta])* type Event;
            $(
                $(#[$fm:meta])*
                fn $f:ident(&mut self $(, $arg:ident: $t:ty)* $(,)?) $(-> $ret:ty)?;
            )*
        }
    ) => {
        /// The check's driver, in the agent: each call goes back to it.
        #[derive(Debug)]
        pub(crate) struct __RemoteDriver;

        const _: () = {
            #[allow(unused_imports)]
            use learner::*;

            impl learner::$tr for __RemoteDriver {
                type Event = u64;
                $(
                    fn $f(&mut self $(, $arg: $t)*) $(-> $ret)? {
                        let request = (stringify!($f), ($(AgentDriverArg::wire(&$arg),)*));
                        $crate::__agent_driver_answer!(request $(, $ret)?)
                    }
                )*
            }
        };
    };
}

/// The check's driver's answer to a callback, as the learner's value (it
/// is `None` only for an event the driver never made, and this agent sends
/// only the handles it was given).
#[doc(hidden)]
#[macro_export]
macro_rules! __agent_driver_answer {
    ($request:ident) => {{
        let answer: Option<()> = $crate::agent::call_back(&$request);
        answer.expect("the check's driver knows every event it made")
    }};
    ($request:ident, $ret:ty) => {{
        let answer: Option<<$ret as AgentValue>::Wire> = $crate::agent::call_back(&$request);
        let answer = answer.expect("the check's driver knows every event it made");
        <$ret as AgentValue>::import(answer, $crate::agent::current().link())
    }};
}

/// The agent's objects: each kept by handle between calls.
#[doc(hidden)]
#[macro_export]
macro_rules! __agent_objects {
    (($agent:ident, $link:ident, $name:ident, $handle:ident, $args:ident)) => {};
    // An object generic over the exercise's driver: the learner's, over
    // `__RemoteDriver`.
    (
        ($agent:ident, $link:ident, $name:ident, $handle:ident, $args:ident)
        $(#[$m:meta])*
        $v:vis struct $obj:ident<$g:ident: $tr:ident> { $($methods:tt)* }
        $($rest:tt)*
    ) => {
        $crate::__agent_methods! {
            ($agent, $link, $name, $handle, $args) $obj [$obj @driven]; $($methods)*
        }
        if $name == concat!(stringify!($obj), "::drop") {
            ::std::mem::drop($agent.take::<$crate::__kept!($obj @driven)>($handle));
            return $crate::agent::answer(&());
        }
        $crate::__agent_objects! { ($agent, $link, $name, $handle, $args) $($rest)* }
    };
    (
        ($agent:ident, $link:ident, $name:ident, $handle:ident, $args:ident)
        $(#[$m:meta])*
        $v:vis struct $obj:ident $(<$lt:lifetime>)? { $($methods:tt)* }
        $($rest:tt)*
    ) => {
        $crate::__agent_methods! {
            ($agent, $link, $name, $handle, $args) $obj [$obj $(<$lt>)?]; $($methods)*
        }
        if $name == concat!(stringify!($obj), "::drop") {
            ::std::mem::drop($agent.take::<$crate::__kept!($obj $(<$lt>)?)>($handle));
            return $crate::agent::answer(&());
        }
        $crate::__agent_objects! { ($agent, $link, $name, $handle, $args) $($rest)* }
    };
}

/// The conversions of each object of the declaration.
#[doc(hidden)]
#[macro_export]
macro_rules! __agent_object_types {
    () => {};
    (
        $(#[$m:meta])*
        $v:vis struct $obj:ident<$g:ident: $tr:ident> { $($methods:tt)* }
        $($rest:tt)*
    ) => {
        $crate::__agent_object_conversions!($crate::__kept!($obj @driven), stringify!($obj));
        $crate::__agent_object_types! { $($rest)* }
    };
    (
        $(#[$m:meta])*
        $v:vis struct $obj:ident $(<$lt:lifetime>)? { $($methods:tt)* }
        $($rest:tt)*
    ) => {
        $crate::__agent_object_conversions!($crate::__kept!($obj $(<$lt>)?), stringify!($obj));
        $crate::__agent_object_types! { $($rest)* }
    };
}

/// A learner's object as an answer (kept, its handle travels) and as an
/// argument (taken out of the agent's table by its handle; put back after
/// the call when it was only borrowed).
#[doc(hidden)]
#[macro_export]
macro_rules! __agent_object_conversions {
    ($kept:ty, $obj:expr) => {
        impl AgentGive for $kept {
            type Wire = u64;
            fn give(self) -> u64 {
                $crate::agent::current().keep(self)
            }
        }
        impl<'a> AgentTake<'a> for $kept {
            type Wire = u64;
            type Owned = ::std::option::Option<$kept>;
            fn import(
                handle: u64,
                _: &::std::rc::Rc<$crate::api::gpu::remote::Link>,
            ) -> Self::Owned {
                ::std::option::Option::Some($crate::api::taken(
                    $obj,
                    $crate::agent::current().take(handle),
                ))
            }
            fn pass(owned: &'a mut Self::Owned) -> Self {
                owned.take().expect("each argument is passed once")
            }
        }
        impl<'a> AgentTake<'a> for &'a mut $kept {
            type Wire = u64;
            type Owned = (u64, $kept);
            fn import(
                handle: u64,
                _: &::std::rc::Rc<$crate::api::gpu::remote::Link>,
            ) -> Self::Owned {
                (
                    handle,
                    $crate::api::taken($obj, $crate::agent::current().take(handle)),
                )
            }
            fn pass(owned: &'a mut Self::Owned) -> Self {
                &mut owned.1
            }
            fn restore((handle, object): Self::Owned) {
                $crate::agent::current().put_back(handle, object);
            }
        }
    };
}

/// The type an object is kept as in the agent: the learner's, its borrows
/// as long as the agent.
#[doc(hidden)]
#[macro_export]
macro_rules! __kept {
    ($obj:ident) => { learner::$obj };
    ($obj:ident <$lt:lifetime>) => { learner::$obj<'static> };
    ($obj:ident @driven) => { learner::$obj<__RemoteDriver> };
}

/// An object's constructors and methods, in the agent.
#[doc(hidden)]
#[macro_export]
macro_rules! __agent_methods {
    (($agent:ident, $link:ident, $name:ident, $handle:ident, $args:ident) $obj:ident [$($kept:tt)*];) => {};
    // A constructor of an object generic over the driver: the driver is
    // the check's, and the rest travel.
    (
        ($agent:ident, $link:ident, $name:ident, $handle:ident, $args:ident) $obj:ident [$o:ident @driven];
        $(#[$m:meta])* $v:vis fn $f:ident($driver:ident: $d:ident $(, $arg:ident: $t:ty)* $(,)?) -> Self;
        $($rest:tt)*
    ) => {
        if $name == concat!(stringify!($obj), "::", stringify!($f)) {
            let ($($arg,)*): ($(<$t as AgentTake<'static>>::Wire,)*) = $crate::api::read_args(&$name, $args);
            $(let $arg: &'static mut _ = ::std::boxed::Box::leak(::std::boxed::Box::new(<$t as AgentTake<'static>>::import($arg, $link)));)*
            let made = learner::$obj::$f(__RemoteDriver $(, <$t as AgentTake<'static>>::pass($arg))*);
            return $crate::agent::answer(&$agent.keep(made));
        }
        $crate::__agent_methods! { ($agent, $link, $name, $handle, $args) $obj [$o @driven]; $($rest)* }
    };
    // A constructor: its arguments live as long as the agent, so that the
    // object may borrow them.
    (
        ($agent:ident, $link:ident, $name:ident, $handle:ident, $args:ident) $obj:ident [$($kept:tt)*];
        $(#[$m:meta])* $v:vis fn $f:ident($($arg:ident: $t:ty),* $(,)?) -> $($ret:ident)::+ $(<Self $(, $e:ty)?>)?;
        $($rest:tt)*
    ) => {
        if $name == concat!(stringify!($obj), "::", stringify!($f)) {
            let ($($arg,)*): ($(<$t as AgentTake<'static>>::Wire,)*) = $crate::api::read_args(&$name, $args);
            $(let $arg: &'static mut _ = ::std::boxed::Box::leak(::std::boxed::Box::new(<$t as AgentTake<'static>>::import($arg, $link)));)*
            let made = learner::$obj::$f($(<$t as AgentTake<'static>>::pass($arg)),*);
            return $crate::agent::answer(&$crate::__keep!($agent, made; $($ret)::+ $(<Self $(, $e)?>)?));
        }
        $crate::__agent_methods! { ($agent, $link, $name, $handle, $args) $obj [$($kept)*]; $($rest)* }
    };
    // A method that borrows the object, shared or not.
    (
        ($agent:ident, $link:ident, $name:ident, $handle:ident, $args:ident) $obj:ident [$($kept:tt)*];
        $(#[$m:meta])* $v:vis fn $f:ident(&$(mut)? self $(, $arg:ident: $t:ty)* $(,)?) $(-> $ret:ty)?;
        $($rest:tt)*
    ) => {
        if $name == concat!(stringify!($obj), "::", stringify!($f)) {
            let ($($arg,)*): ($(<$t as AgentTake<'_>>::Wire,)*) = $crate::api::read_args(&$name, $args);
            $(let mut $arg = <$t as AgentTake<'_>>::import($arg, $link);)*
            let answer = $agent.with::<$crate::__kept!($($kept)*), _>($handle, |object| {
                object.$f($(<$t as AgentTake<'_>>::pass(&mut $arg)),*)
            });
            $(<$t as AgentTake<'_>>::restore($arg);)*
            return $crate::agent::answer(&AgentGive::give(answer));
        }
        $crate::__agent_methods! { ($agent, $link, $name, $handle, $args) $obj [$($kept)*]; $($rest)* }
    };
    // A method that takes the object.
    (
        ($agent:ident, $link:ident, $name:ident, $handle:ident, $args:ident) $obj:ident [$($kept:tt)*];
        $(#[$m:meta])* $v:vis fn $f:ident(self $(, $arg:ident: $t:ty)* $(,)?) $(-> $ret:ty)?;
        $($rest:tt)*
    ) => {
        if $name == concat!(stringify!($obj), "::", stringify!($f)) {
            let ($($arg,)*): ($(<$t as AgentTake<'_>>::Wire,)*) = $crate::api::read_args(&$name, $args);
            $(let mut $arg = <$t as AgentTake<'_>>::import($arg, $link);)*
            let answer = $agent
                .take::<$crate::__kept!($($kept)*)>($handle)
                .map(|object| object.$f($(<$t as AgentTake<'_>>::pass(&mut $arg)),*));
            $(<$t as AgentTake<'_>>::restore($arg);)*
            return $crate::agent::answer(&AgentGive::give(answer));
        }
        $crate::__agent_methods! { ($agent, $link, $name, $handle, $args) $obj [$($kept)*]; $($rest)* }
    };
}

/// A constructor's answer: the new object's handle, or the learner's error.
#[doc(hidden)]
#[macro_export]
macro_rules! __keep {
    ($agent:ident, $made:ident; Self) => {
        $agent.keep($made)
    };
    ($agent:ident, $made:ident; $($ret:ident)::+ <Self $(, $e:ty)?>) => {
        AgentGive::give($made.map(|object| $agent.keep(object)))
    };
}
