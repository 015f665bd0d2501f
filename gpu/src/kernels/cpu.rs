//! CPU twins (placeholder while being written).
