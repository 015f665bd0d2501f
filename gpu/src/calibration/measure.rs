//! placeholder
pub fn measure() {}
