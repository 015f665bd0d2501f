//! Room for a module of your own: the reference solution keeps its
//! segments and their blocks here, by address. Empty to start; use it, or not.
