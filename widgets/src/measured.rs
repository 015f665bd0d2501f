//! Every prediction's answer held to what a real GPU answered: the program of
//! each, at each value of its parameter, posed to the H200
//! (`chapters/measurements/predictions_on_gpu.txt`, by
//! `widgets/examples/predictions_on_gpu.rs`), and the allocator's to
//! PyTorch's caching allocator on it
//! (`chapters/measurements/torch_predictions_allocator.txt`, by
//! `benches/python/predictions_allocator.py`).

use crate::predict::predictions;

/// The rows of a measurement file's table: the lines after the one that
/// starts with `prediction`, split at runs of two or more spaces, up to the
/// first blank line.
fn rows(file: &str) -> Vec<Vec<String>> {
    let path = format!(
        "{}/../chapters/measurements/{file}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("`{path}`: {e}"));
    text.lines()
        .skip_while(|l| !l.starts_with("prediction "))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .map(|l| {
            l.split("  ")
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .map(String::from)
                .collect()
        })
        .collect()
}

/// The row of `rows` for `id`, `value` and `part`.
fn row<'r>(rows: &'r [Vec<String>], id: &str, value: &str, part: &str) -> Option<&'r [String]> {
    rows.iter()
        .find(|r| r.len() >= 4 && r[0] == id && r[1] == value && r[2] == part)
        .map(Vec::as_slice)
}

/// Every part of every prediction of the allocator chapter (`allocator`) or
/// of every other chapter:
/// `(id, value, part, the model's answer)`.
fn answers(allocator: bool) -> Vec<(&'static str, &'static str, &'static str, &'static str)> {
    let mut all = Vec::new();
    for p in predictions().filter(|p| (p.chapter == "allocator") == allocator) {
        for value in p.parameter.options.iter().map(|o| o.value) {
            let model = p.answer(value).unwrap();
            for (part, answer) in p.parts.iter().zip(model) {
                all.push((p.id, value, part.name, answer));
            }
        }
    }
    all
}

#[test]
fn every_prediction_is_answered_alike_by_the_virtual_gpu_and_the_h200() {
    let rows = rows("predictions_on_gpu.txt");
    for (id, value, part, model) in answers(false) {
        let Some(row) = row(&rows, id, value, part) else {
            panic!(
                "`predictions_on_gpu.txt` has no row for `{id}` at `{value}` ({part}): pose the predictions to the GPU again"
            );
        };
        assert_eq!(
            row[3], model,
            "`{id}` at `{value}` ({part}): the model answers otherwise than when it was posed to the GPU; pose it again"
        );
        assert_eq!(
            row.last().map(String::as_str),
            Some("same"),
            "`{id}` at `{value}` ({part}): the GPU answered {}, the model {model}",
            row[4]
        );
    }
}

#[test]
fn every_allocator_prediction_is_answered_alike_by_pytorchs_allocator() {
    let rows = rows("torch_predictions_allocator.txt");
    for (id, value, part, model) in answers(true) {
        let Some(row) = row(&rows, id, value, part) else {
            panic!("`torch_predictions_allocator.txt` has no row for `{id}` at `{value}` ({part})");
        };
        assert_eq!(
            row[3],
            model,
            "`{id}` at `{value}` ({part}): PyTorch's allocator on the H200 answered {}, the model {model} ({})",
            row[3],
            row.get(4).map_or("", String::as_str)
        );
    }
}
