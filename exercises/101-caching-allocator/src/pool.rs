//! Room for a module of your own: the reference solution keeps its cached
//! free blocks here, ordered for best fit. Empty to start; use it, or not.
