//! The checker's end of a declared API ([`crate::api`]):
//! [`checker_api!`](crate::checker_api!) turns the declaration into the
//! exercise's types, with serde, and functions and objects that call the
//! learner's in the agent through [`crate::bridge::invoke`].
//!
//! The file is longer than most (about 540 lines): it is one macro and the
//! helpers it expands to, exported together and read in order, as the
//! agent's end is (`api_agent.rs`); each helper is a few rules.

/// The checker's end of an exercise's API, from its declaration (the
/// bridge's `api.rs`; [`crate::api`] says what it holds).
#[macro_export]
macro_rules! checker_api {
    (
        $(types { $($types:tt)* })?
        $(drivers { $($drivers:tt)* })?
        $(fns { $($fns:tt)* })?
        $(impls { $($impls:tt)* })?
        $(objects { $($objects:tt)* })?
    ) => {
        #[allow(unused_imports)]
        use $crate::api::prelude::*;
        $($crate::__checker_types! { $($types)* })?
        $($crate::__checker_drivers! { $($drivers)* })?
        $($crate::__checker_fns! { $($fns)* })?
        $($crate::__checker_impls! { $($impls)* })?
        $($crate::__checker_objects! { $($objects)* })?
    };
}

/// The exercise's types, as the checks see them.
#[doc(hidden)]
#[macro_export]
macro_rules! __checker_types {
    () => {};
    // A type that borrows the judge's objects (a set of streams): it
    // travels as the list of its fields' wire forms.
    (
        $(#[$m:meta])* $v:vis struct $name:ident<$lt:lifetime> {
            $($(#[$fm:meta])* $fv:vis $field:ident: $ft:ty),* $(,)?
        }
        $($rest:tt)*
    ) => {
        $(#[$m])*
        $v struct $name<$lt> { $($(#[$fm])* $fv $field: $ft),* }

        impl<$lt> $crate::api::Wire for $name<$lt> {
            type Out<'w> = ($(<$ft as $crate::api::Wire>::Out<'w>,)*) where Self: 'w;
            fn wire(&self) -> Self::Out<'_> {
                ($($crate::api::Wire::wire(&self.$field),)*)
            }
        }
        $crate::__checker_types! { $($rest)* }
    };
    ($(#[$m:meta])* $v:vis struct $name:ident($fv:vis $ft:ty); $($rest:tt)*) => {
        $(#[$m])*
        #[derive($crate::api::serde::Serialize, $crate::api::serde::Deserialize)]
        #[serde(crate = "judge_harness::api::serde")]
        $v struct $name($fv $ft);
        $crate::__travels_as_itself!($name);
        $crate::__checker_types! { $($rest)* }
    };
    ($(#[$m:meta])* $v:vis struct $name:ident { $($body:tt)* } $($rest:tt)*) => {
        $(#[$m])*
        #[derive($crate::api::serde::Serialize, $crate::api::serde::Deserialize)]
        #[serde(crate = "judge_harness::api::serde")]
        $v struct $name { $($body)* }
        $crate::__travels_as_itself!($name);
        $crate::__checker_types! { $($rest)* }
    };
    ($(#[$m:meta])* $v:vis enum $name:ident { $($body:tt)* } $($rest:tt)*) => {
        $(#[$m])*
        #[derive($crate::api::serde::Serialize, $crate::api::serde::Deserialize)]
        #[serde(crate = "judge_harness::api::serde")]
        $v enum $name { $($body)* }
        $crate::__travels_as_itself!($name);
        $crate::__checker_types! { $($rest)* }
    };
}

/// A declared type travels as itself.
#[doc(hidden)]
#[macro_export]
macro_rules! __travels_as_itself {
    ($name:ident) => {
        impl $crate::api::Wire for $name {
            type Out<'a> = &'a $name;
            fn wire(&self) -> &$name {
                self
            }
        }
        impl<'a, E> $crate::api::DriverArg<'a, E> for $name {
            type Wire = $name;
            fn take(wire: $name, _: &'a $crate::api::Events<E>) -> Option<$name> {
                Some(wire)
            }
        }
    };
}

/// The exercise's driver: a trait of the check's (one a bridge), which the
/// learner's objects are generic over. A learner's object lives in the
/// agent over a driver that calls back here ([`crate::api::Driven`]); the
/// private `__Drive` answers those calls with the check's driver. Its
/// events (`type Event`) stay here and travel as handles.
#[doc(hidden)]
#[macro_export]
macro_rules! __checker_drivers {
    (
        $(#[$m:meta])* $v:vis trait $tr:ident {
            $(#[$em:meta])* type Event;
            $($methods:tt)*
        }
    ) => {
        $(#[$m])*
        $v trait $tr {
            $(#[$em])*
            type Event;
            $($methods)*
        }

        /// How the check's driver answers the calls the learner's object
        /// makes of its own.
        trait __Drive: $tr + Sized {
            /// Answers the callback `request` with `driven`'s driver.
            fn drive(
                driven: &mut $crate::api::Driven<Self, <Self as $tr>::Event>,
                request: &[u8],
            ) -> Vec<u8>;
        }

        impl<D: $tr> __Drive for D {
            fn drive(
                driven: &mut $crate::api::Driven<D, <D as $tr>::Event>,
                request: &[u8],
            ) -> Vec<u8> {
                let (name, args) = $crate::bridge::read_callback(request);
                $crate::__checker_drive! { ($tr, driven, name, args) $($methods)* }
                $crate::bridge::unknown_callback(&name)
            }
        }
    };
}

/// Each method of a driver, answered: its arguments taken from the agent's
/// (an event by its handle), the check's driver called, and its answer
/// sent back (an event kept, its handle sent); `None` for a handle the
/// driver never made.
#[doc(hidden)]
#[macro_export]
macro_rules! __checker_drive {
    (($tr:ident, $driven:ident, $name:ident, $args:ident)) => {};
    (
        ($tr:ident, $driven:ident, $name:ident, $args:ident)
        $(#[$m:meta])* fn $f:ident(&mut self $(, $arg:ident: $t:ty)* $(,)?) -> Self::Event;
        $($rest:tt)*
    ) => {
        if $name == stringify!($f) {
            let made = $crate::__checker_driver_call!($tr, $driven, $args, $f($($arg: $t),*));
            let answer = made.map(|event| $driven.keep(event));
            return $crate::bridge::encode(&answer);
        }
        $crate::__checker_drive! { ($tr, $driven, $name, $args) $($rest)* }
    };
    (
        ($tr:ident, $driven:ident, $name:ident, $args:ident)
        $(#[$m:meta])* fn $f:ident(&mut self $(, $arg:ident: $t:ty)* $(,)?) $(-> $ret:ty)?;
        $($rest:tt)*
    ) => {
        if $name == stringify!($f) {
            let answer = $crate::__checker_driver_call!($tr, $driven, $args, $f($($arg: $t),*));
            return $crate::bridge::encode(&answer);
        }
        $crate::__checker_drive! { ($tr, $driven, $name, $args) $($rest)* }
    };
}

/// One call of the check's driver with the arguments the agent sent, or
/// `None` when one names an event the driver never made.
#[doc(hidden)]
#[macro_export]
macro_rules! __checker_driver_call {
    ($tr:ident, $driven:ident, $args:ident, $f:ident($($arg:ident: $t:ty),*)) => {{
        let ($($arg,)*): ($(<$t as $crate::api::DriverArg<'_, <Self as $tr>::Event>>::Wire,)*) =
            $crate::bridge::decode($args);
        let (driver, events) = $driven.parts();
        let _ = &events;
        match ($(<$t as $crate::api::DriverArg<'_, <Self as $tr>::Event>>::take($arg, events),)*) {
            ($(Some($arg),)*) => Some(driver.$f($($arg),*)),
            #[allow(unreachable_patterns)]
            _ => None,
        }
    }};
}

/// The exercise's free functions, each a call of the learner's; the last
/// argument may be a closure of the check's (`#[callback] name:
/// FnMut(arg: Type, …) -> Answer`), which the learner's code calls back.
#[doc(hidden)]
#[macro_export]
macro_rules! __checker_fns {
    ($(
        $(#[$m:meta])*
        $v:vis fn $name:ident(
            $($arg:ident: $t:ty),*
            $(, #[callback] $cb:ident: FnMut($($cn:ident: $ct:ty),* $(,)?) -> $cr:ty)?
            $(,)?
        ) $(-> $ret:ty)?;
    )*) => {$(
        $(#[$m])*
        $v fn $name(
            $($arg: $t,)*
            $($cb: &mut dyn FnMut($($ct),*) -> $cr)?
        ) $(-> $ret)? {
            let request = $crate::api::request(
                stringify!($name),
                0,
                &($($crate::api::Wire::wire(&$arg),)*),
            );
            $crate::__checker_invoke!(request; $($cb($($cn: $ct),*))?)
        }
    )*};
}

/// A free function's call: with the check's closure answering the
/// learner's callbacks, when it has one.
#[doc(hidden)]
#[macro_export]
macro_rules! __checker_invoke {
    ($request:ident;) => {
        $crate::bridge::invoke_raw($request)
    };
    ($request:ident; $cb:ident($($cn:ident: $ct:ty),*)) => {
        $crate::bridge::invoke_raw_with($request, &mut |bytes| {
            let ($($cn,)*): ($(<$ct as $crate::api::Receive<'_>>::Wire,)*) =
                $crate::bridge::decode(bytes);
            let answer = match ($(<$ct as $crate::api::Receive<'_>>::receive($cn),)*) {
                ($(Some($cn),)*) => $cb($(<$ct as $crate::api::Receive<'_>>::pass(&$cn)),*),
                #[allow(unreachable_patterns)]
                _ => $crate::api::Foreign::foreign(stringify!($cb)),
            };
            $crate::bridge::encode(&answer)
        })
    };
}

/// Methods of the exercise's types, each a call of the learner's on a copy
/// of the value in the agent.
#[doc(hidden)]
#[macro_export]
macro_rules! __checker_impls {
    ($(
        impl $ty:ident {$(
            $(#[$m:meta])*
            $v:vis fn $name:ident(&self $(, $arg:ident: $t:ty)* $(,)?) $(-> $ret:ty)?;
        )*}
    )*) => {$(
        impl $ty {$(
            $(#[$m])*
            $v fn $name(&self $(, $arg: $t)*) $(-> $ret)? {
                let request = $crate::api::request(
                    concat!(stringify!($ty), "::", stringify!($name)),
                    0,
                    &($crate::api::Wire::wire(self), $($crate::api::Wire::wire(&$arg),)*),
                );
                $crate::bridge::invoke_raw(request)
            }
        )*}
    )*};
}

/// The exercise's objects, each a handle of the learner's object in the
/// agent.
#[doc(hidden)]
#[macro_export]
macro_rules! __checker_objects {
    () => {};
    // An object generic over the exercise's driver: it keeps the check's
    // driver here, and answers with it every call the learner's object
    // makes of its own ([`crate::api::Driven`]).
    (
        $(#[$m:meta])*
        $v:vis struct $name:ident<$g:ident: $tr:ident> { $($methods:tt)* }
        $($rest:tt)*
    ) => {
        $(#[$m])*
        $v struct $name<$g: $tr> {
            handle: u64,
            driven: $crate::api::Driven<$g, <$g as $tr>::Event>,
        }

        impl<$g: $tr> ::std::fmt::Debug for $name<$g> {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                write!(f, "{}({} in the agent)", stringify!($name), self.handle)
            }
        }

        impl<$g: $tr> $name<$g> {
            /// The check's driver.
            pub fn driver(&self) -> &$g {
                &self.driven.driver
            }

            /// The check's driver, to change (a check finishes a simulated
            /// stream through it).
            pub fn driver_mut(&mut self) -> &mut $g {
                &mut self.driven.driver
            }

            $crate::__checker_driven_methods! { $name $g; $($methods)* }
        }

        impl<$g: $tr> $crate::api::Wire for $name<$g> {
            type Out<'w> = u64 where Self: 'w;
            fn wire(&self) -> u64 {
                self.handle
            }
        }

        impl<$g: $tr> Drop for $name<$g> {
            fn drop(&mut self) {
                if !::std::thread::panicking() {
                    let request = $crate::api::request(
                        concat!(stringify!($name), "::drop"),
                        self.handle,
                        &(),
                    );
                    let driven = &mut self.driven;
                    let () = $crate::bridge::invoke_raw_with(request, &mut |callback| {
                        <$g as __Drive>::drive(driven, callback)
                    });
                }
            }
        }

        $crate::__checker_objects! { $($rest)* }
    };
    (
        $(#[$m:meta])*
        $v:vis struct $name:ident $(<$lt:lifetime>)? { $($methods:tt)* }
        $($rest:tt)*
    ) => {
        $(#[$m])*
        #[derive(Debug)]
        $v struct $name $(<$lt>)? {
            handle: u64,
            /// Whether the learner's object is gone from the agent (a
            /// method that takes it ran): its drop calls nothing.
            taken: bool,
            _borrows: ::std::marker::PhantomData<($(&$lt (),)?)>,
        }

        impl $(<$lt>)? $name $(<$lt>)? {
            $crate::__checker_methods! { $name; $($methods)* }
        }

        impl $(<$lt>)? $crate::api::Wire for $name $(<$lt>)? {
            type Out<'w> = u64 where Self: 'w;
            fn wire(&self) -> u64 {
                self.handle
            }
        }

        /// An object the learner's code hands out comes as its handle.
        impl<'de $(, $lt)?> $crate::api::serde::Deserialize<'de> for $name $(<$lt>)? {
            fn deserialize<D: $crate::api::serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let handle = <u64 as $crate::api::serde::Deserialize>::deserialize(d)?;
                Ok(Self { handle, taken: false, _borrows: ::std::marker::PhantomData })
            }
        }

        impl $(<$lt>)? Drop for $name $(<$lt>)? {
            fn drop(&mut self) {
                if !self.taken && !::std::thread::panicking() {
                    let request = $crate::api::request(
                        concat!(stringify!($name), "::drop"),
                        self.handle,
                        &(),
                    );
                    let () = $crate::bridge::invoke_raw(request);
                }
            }
        }

        $crate::__checker_objects! { $($rest)* }
    };
}

/// An object's constructors and methods.
#[doc(hidden)]
#[macro_export]
macro_rules! __checker_methods {
    ($obj:ident;) => {};
    // A constructor.
    (
        $obj:ident;
        $(#[$m:meta])* $v:vis fn $name:ident($($arg:ident: $t:ty),* $(,)?) -> $($ret:ident)::+ $(<Self $(, $e:ty)?>)?;
        $($rest:tt)*
    ) => {
        $(#[$m])*
        $v fn $name($($arg: $t),*) -> $($ret)::+ $(<Self $(, $e)?>)? {
            let request = $crate::api::request(
                concat!(stringify!($obj), "::", stringify!($name)),
                0,
                &($($crate::api::Wire::wire(&$arg),)*),
            );
            $crate::__made!(
                $crate::bridge::invoke_raw(request);
                $($ret)::+ $(<Self $(, $e)?>)?
            )
        }
        $crate::__checker_methods! { $obj; $($rest)* }
    };
    // A method that borrows the object, shared or not.
    (
        $obj:ident;
        $(#[$m:meta])* $v:vis fn $name:ident(&self $(, $arg:ident: $t:ty)* $(,)?) $(-> $ret:ty)?;
        $($rest:tt)*
    ) => {
        $crate::__checker_methods! {
            $obj; @borrows [] $(#[$m])* $v fn $name($($arg: $t),*) $(-> $ret)?; $($rest)*
        }
    };
    (
        $obj:ident;
        $(#[$m:meta])* $v:vis fn $name:ident(&mut self $(, $arg:ident: $t:ty)* $(,)?) $(-> $ret:ty)?;
        $($rest:tt)*
    ) => {
        $crate::__checker_methods! {
            $obj; @borrows [mut] $(#[$m])* $v fn $name($($arg: $t),*) $(-> $ret)?; $($rest)*
        }
    };
    (
        $obj:ident; @borrows [$($mut:tt)?]
        $(#[$m:meta])* $v:vis fn $name:ident($($arg:ident: $t:ty),*) $(-> $ret:ty)?;
        $($rest:tt)*
    ) => {
        $(#[$m])*
        $v fn $name(&$($mut)? self $(, $arg: $t)*) $(-> $ret)? {
            let request = $crate::api::request(
                concat!(stringify!($obj), "::", stringify!($name)),
                self.handle,
                &($($crate::api::Wire::wire(&$arg),)*),
            );
            $crate::api::present(stringify!($obj), $crate::bridge::invoke_raw(request))
        }
        $crate::__checker_methods! { $obj; $($rest)* }
    };
    // A method that takes the object.
    (
        $obj:ident;
        $(#[$m:meta])* $v:vis fn $name:ident(self $(, $arg:ident: $t:ty)* $(,)?) $(-> $ret:ty)?;
        $($rest:tt)*
    ) => {
        $(#[$m])*
        $v fn $name(mut self $(, $arg: $t)*) $(-> $ret)? {
            self.taken = true;
            let request = $crate::api::request(
                concat!(stringify!($obj), "::", stringify!($name)),
                self.handle,
                &($($crate::api::Wire::wire(&$arg),)*),
            );
            $crate::api::present(stringify!($obj), $crate::bridge::invoke_raw(request))
        }
        $crate::__checker_methods! { $obj; $($rest)* }
    };
}

/// A constructor's value from the agent's answer: the object's handle, or
/// the learner's error.
#[doc(hidden)]
#[macro_export]
macro_rules! __made {
    ($answer:expr; Self) => {{
        let handle: u64 = $answer;
        Self { handle, taken: false, _borrows: ::std::marker::PhantomData }
    }};
    ($answer:expr; $($ret:ident)::+ <Self $(, $e:ty)?>) => {{
        let answer: $($ret)::+<u64 $(, $e)?> = $answer;
        answer.map(|handle| Self { handle, taken: false, _borrows: ::std::marker::PhantomData })
    }};
}

/// The constructors and methods of an object generic over the driver: a
/// constructor takes the check's driver first and keeps it; a method that
/// borrows the object mutably answers the learner's object's calls of its
/// driver with it; one that borrows it shared gives it none (the learner's
/// `&self` method cannot call a driver it holds mutably).
#[doc(hidden)]
#[macro_export]
macro_rules! __checker_driven_methods {
    ($obj:ident $g:ident;) => {};
    (
        $obj:ident $g:ident;
        $(#[$m:meta])* $v:vis fn $f:ident($driver:ident: $d:ident $(, $arg:ident: $t:ty)* $(,)?) -> Self;
        $($rest:tt)*
    ) => {
        $(#[$m])*
        $v fn $f($driver: $g $(, $arg: $t)*) -> Self {
            let request = $crate::api::request(
                concat!(stringify!($obj), "::", stringify!($f)),
                0,
                &($($crate::api::Wire::wire(&$arg),)*),
            );
            let mut driven = $crate::api::Driven::new($driver);
            let handle: u64 = $crate::bridge::invoke_raw_with(request, &mut |callback| {
                <$g as __Drive>::drive(&mut driven, callback)
            });
            Self { handle, driven }
        }
        $crate::__checker_driven_methods! { $obj $g; $($rest)* }
    };
    (
        $obj:ident $g:ident;
        $(#[$m:meta])* $v:vis fn $f:ident(&mut self $(, $arg:ident: $t:ty)* $(,)?) $(-> $ret:ty)?;
        $($rest:tt)*
    ) => {
        $(#[$m])*
        $v fn $f(&mut self $(, $arg: $t)*) $(-> $ret)? {
            let request = $crate::api::request(
                concat!(stringify!($obj), "::", stringify!($f)),
                self.handle,
                &($($crate::api::Wire::wire(&$arg),)*),
            );
            let driven = &mut self.driven;
            let answer = $crate::bridge::invoke_raw_with(request, &mut |callback| {
                <$g as __Drive>::drive(driven, callback)
            });
            $crate::api::present(stringify!($obj), answer)
        }
        $crate::__checker_driven_methods! { $obj $g; $($rest)* }
    };
    (
        $obj:ident $g:ident;
        $(#[$m:meta])* $v:vis fn $f:ident(&self $(, $arg:ident: $t:ty)* $(,)?) $(-> $ret:ty)?;
        $($rest:tt)*
    ) => {
        $(#[$m])*
        $v fn $f(&self $(, $arg: $t)*) $(-> $ret)? {
            let request = $crate::api::request(
                concat!(stringify!($obj), "::", stringify!($f)),
                self.handle,
                &($($crate::api::Wire::wire(&$arg),)*),
            );
            $crate::api::present(stringify!($obj), $crate::bridge::invoke_raw(request))
        }
        $crate::__checker_driven_methods! { $obj $g; $($rest)* }
    };
}
