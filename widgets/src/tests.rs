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

/// A value of `control` other than its default.
fn another(control: &Control) -> Value {
    match &control.kind {
        Kind::Range {
            min, max, default, ..
        } => Value::Int(if default == max { *min } else { *max }),
        Kind::Choice { options, default } => {
            let other = options
                .iter()
                .find(|o| o.value != *default)
                .expect("two options");
            Value::Text(other.value.to_string())
        }
        Kind::Flag { default } => Value::Flag(!default),
        Kind::Text { .. } => Value::Text("a = malloc(2 MiB)\nfree(a)".into()),
    }
}

#[test]
fn every_control_changes_the_picture() {
    for name in names() {
        let spec = spec(name).unwrap();
        let defaults = render(name, &spec.defaults()).unwrap();
        for control in &spec.controls {
            let values = spec.defaults().with(control.name, another(control));
            let view = render(name, &values).unwrap();
            assert_ne!(
                view.svg, defaults.svg,
                "`{name}`: control `{}` changes nothing",
                control.name
            );
        }
    }
}

#[test]
fn a_script_error_names_its_line() {
    let values = spec("allocator")
        .unwrap()
        .defaults()
        .with("script", Value::Text("x = malloc(1 MiB)\nfree(y)".into()));
    let error = render("allocator", &values).unwrap_err();
    assert_eq!(
        error.to_string(),
        "line 2: `free(y)`: no block `y` is allocated"
    );
}
