//! The checker's end of a declared API ([`crate::api`]):
//! [`checker_api!`](crate::checker_api!) turns the declaration into the
//! exercise's types, with serde, and functions and objects that call the
//! learner's in the agent through [`crate::bridge::invoke`].

/// The checker's end of an exercise's API, from its declaration (the
/// bridge's `api.rs`; [`crate::api`] says what it holds).
#[macro_export]
macro_rules! checker_api {
    (
        $(types { $($types:tt)* })?
        $(fns { $($fns:tt)* })?
        $(impls { $($impls:tt)* })?
        $(objects { $($objects:tt)* })?
    ) => {
        $($crate::__checker_types! { $($types)* })?
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
    };
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
