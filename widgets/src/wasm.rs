//! The two functions JavaScript calls (`widgets/web/widgets.js`), through
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
