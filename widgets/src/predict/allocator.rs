//! placeholder
use super::Prediction;
pub(super) const PREDICTIONS: &[Prediction] = &[];
