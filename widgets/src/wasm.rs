//! The functions JavaScript calls (`widgets/web/widgets.js`), through
//! `wasm-bindgen`: JSON in, JSON out, an error as a thrown `Error`.

use wasm_bindgen::prelude::*;

/// [`crate::spec_json`]: the controls of widget `name`.
#[wasm_bindgen]
pub fn widget_spec(name: &str) -> Result<String, JsError> {
    crate::spec_json(name).map_err(|e| JsError::new(&e.to_string()))
}

/// [`crate::render_json`]: widget `name` drawn with `params`.
#[wasm_bindgen]
pub fn widget_render(name: &str, params: &str) -> Result<String, JsError> {
    crate::render_json(name, params).map_err(|e| JsError::new(&e.to_string()))
}

/// [`crate::predict::spec_json`]: prediction `id`'s question, parameter and parts.
#[wasm_bindgen]
pub fn prediction_spec(id: &str) -> Result<String, JsError> {
    crate::predict::spec_json(id).map_err(|e| JsError::new(&e.to_string()))
}

/// [`crate::predict::check_json`]: prediction `id` run with `value` of its
/// parameter, the `answers` (a JSON array) judged.
#[wasm_bindgen]
pub fn prediction_check(id: &str, value: &str, answers: &str) -> Result<String, JsError> {
    crate::predict::check_json(id, value, answers).map_err(|e| JsError::new(&e.to_string()))
}
