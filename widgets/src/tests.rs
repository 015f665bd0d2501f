//! Every widget: its defaults draw its static figure, byte for byte, and
//! every control changes what it draws.

use super::*;

/// The committed static figure `name`.
fn figure(name: &str) -> String {
    let path = format!("{}/../chapters/figures/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("`{path}`: {e}"))
}

#[test]
fn the_defaults_draw_the_static_figure() {
    for name in names() {
        let spec = spec(name).unwrap();
        let view = render(name, &spec.defaults()).unwrap();
        assert!(
            view.svg == figure(spec.figure),
            "widget `{name}` at its defaults does not draw `{}`",
            spec.figure
        );
    }
}

#[test]
fn parameters_are_checked() {
    let spec = spec("streams").unwrap();
    assert!(spec.values(r#"{"chunks": 9}"#).is_err());
    assert!(spec.values(r#"{"nope": 1}"#).is_err());
    assert!(spec.values(r#"{"source": "disk"}"#).is_err());
    assert_eq!(spec.values("{}").unwrap(), spec.defaults());
    assert!(render_json("nope", "{}").is_err());
}

#[test]
fn one_slot_on_two_streams_is_a_race() {
    let values = spec("streams")
        .unwrap()
        .defaults()
        .with("slots", Value::Int(1));
    let view = render("streams", &values).unwrap();
    assert!(view.report.contains("data race"), "{}", view.report);
}
