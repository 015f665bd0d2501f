//! A widget's controls ([`Spec`]) and the values a reader set them to
//! ([`Values`]), checked against the spec before a scenario sees them.

use crate::view::Error;
use serde::Serialize;
use std::collections::BTreeMap;
use std::time::Duration;

/// The controls of one widget, and the static figure its defaults draw.
#[derive(Clone, Debug, Serialize)]
pub struct Spec {
    /// The file under `chapters/figures/` that the defaults draw, byte for byte.
    pub figure: &'static str,
    /// The controls, in the order the page shows them.
    pub controls: Vec<Control>,
}

/// One control.
#[derive(Clone, Debug, Serialize)]
pub struct Control {
    /// The parameter's name.
    pub name: &'static str,
    /// What the page writes next to it.
    pub label: &'static str,
    /// What kind of control, with its range and default.
    #[serde(flatten)]
    pub kind: Kind,
}

/// What a control sets.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Kind {
    /// A whole number in `min..=max`, in steps of `step` from `min`.
    Range {
        /// The smallest value.
        min: i64,
        /// The largest value.
        max: i64,
        /// The step between values.
        step: i64,
        /// The default.
        default: i64,
        /// The unit shown after the value ("µs", "ms"; empty for a count).
        unit: &'static str,
    },
    /// One of a few named options.
    Choice {
        /// The options.
        options: Vec<Choice>,
        /// The default option's value.
        default: &'static str,
    },
    /// On or off.
    Flag {
        /// The default.
        default: bool,
    },
    /// A text (a script).
    Text {
        /// The default text.
        default: String,
        /// Lines of text the box shows.
        rows: u32,
    },
}

/// One option of a [`Kind::Choice`].
#[derive(Clone, Debug, Serialize)]
pub struct Choice {
    /// The value the scenario sees.
    pub value: &'static str,
    /// What the page shows.
    pub label: &'static str,
}

/// One value of a control.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Value {
    /// Of a range.
    Int(i64),
    /// Of a flag.
    Flag(bool),
    /// Of a choice or a text.
    Text(String),
}

/// The value of every control of a widget, checked against its spec.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Values(BTreeMap<String, Value>);

impl Values {
    /// The value of range `name`.
    ///
    /// # Panics
    /// If the widget has no such range: a bug of the widget, which its tests catch.
    pub fn int(&self, name: &str) -> i64 {
        match self.0.get(name) {
            Some(Value::Int(v)) => *v,
            other => panic!("widget control `{name}` is not a range: {other:?}"),
        }
    }

    /// The value of flag `name` (panics as [`Values::int`] does).
    pub fn flag(&self, name: &str) -> bool {
        match self.0.get(name) {
            Some(Value::Flag(v)) => *v,
            other => panic!("widget control `{name}` is not a flag: {other:?}"),
        }
    }

    /// The value of choice or text `name` (panics as [`Values::int`] does).
    pub fn text(&self, name: &str) -> &str {
        match self.0.get(name) {
            Some(Value::Text(v)) => v,
            other => panic!("widget control `{name}` is not a choice or a text: {other:?}"),
        }
    }

    /// The same values with `name` set to `value` (not checked until used).
    pub fn with(mut self, name: &str, value: Value) -> Self {
        self.0.insert(name.to_string(), value);
        self
    }
}

impl Spec {
    /// Every control at its default.
    pub fn defaults(&self) -> Values {
        Values(
            self.controls
                .iter()
                .map(|c| (c.name.to_string(), c.kind.default()))
                .collect(),
        )
    }

    /// The values of `json`, an object of control names: a control left
    /// out takes its default; an unknown name or a value the control cannot
    /// take is an error.
    pub fn values(&self, json: &str) -> Result<Values, Error> {
        let given: BTreeMap<String, serde_json::Value> = serde_json::from_str(json)
            .map_err(|e| Error::new(format!("the parameters are not a JSON object: {e}")))?;
        let mut values = self.defaults();
        for (name, value) in given {
            let control = self.control(&name)?;
            values
                .0
                .insert(name, control.kind.read(&value, control.name)?);
        }
        self.check(&values)?;
        Ok(values)
    }

    /// Whether `values` has a valid value for every control, and nothing else.
    pub fn check(&self, values: &Values) -> Result<(), Error> {
        if let Some(extra) = values.0.keys().find(|k| self.control(k).is_err()) {
            return Err(Error::new(format!("no control `{extra}`")));
        }
        for control in &self.controls {
            let value = values
                .0
                .get(control.name)
                .ok_or_else(|| Error::new(format!("no value for control `{}`", control.name)))?;
            control.kind.accepts(value, control.name)?;
        }
        Ok(())
    }

    fn control(&self, name: &str) -> Result<&Control, Error> {
        self.controls
            .iter()
            .find(|c| c.name == name)
            .ok_or_else(|| Error::new(format!("no control `{name}`")))
    }
}

impl Kind {
    /// The default value.
    fn default(&self) -> Value {
        match self {
            Self::Range { default, .. } => Value::Int(*default),
            Self::Choice { default, .. } => Value::Text((*default).to_string()),
            Self::Flag { default } => Value::Flag(*default),
            Self::Text { default, .. } => Value::Text(default.clone()),
        }
    }

    /// `json` as a value of this control (range checks come after, in `accepts`).
    fn read(&self, json: &serde_json::Value, name: &str) -> Result<Value, Error> {
        let value = match self {
            Self::Range { .. } => json.as_i64().map(Value::Int),
            Self::Flag { .. } => json.as_bool().map(Value::Flag),
            Self::Choice { .. } | Self::Text { .. } => {
                json.as_str().map(|s| Value::Text(s.to_string()))
            }
        };
        value.ok_or_else(|| Error::new(format!("control `{name}` cannot take {json}")))
    }

    /// Whether this control can take `value`.
    fn accepts(&self, value: &Value, name: &str) -> Result<(), Error> {
        let ok = match (self, value) {
            (Self::Range { min, max, step, .. }, Value::Int(v)) => {
                (min..=max).contains(&v) && (v - min) % step == 0
            }
            (Self::Choice { options, .. }, Value::Text(v)) => options.iter().any(|o| o.value == v),
            (Self::Flag { .. }, Value::Flag(_)) => true,
            (Self::Text { .. }, Value::Text(v)) => v.len() <= 4096,
            _ => false,
        };
        ok.then_some(())
            .ok_or_else(|| Error::new(format!("control `{name}` cannot take {value:?}")))
    }
}

/// A range control.
pub(crate) fn range(
    name: &'static str,
    label: &'static str,
    (min, max, step): (i64, i64, i64),
    default: i64,
    unit: &'static str,
) -> Control {
    Control {
        name,
        label,
        kind: Kind::Range {
            min,
            max,
            step,
            default,
            unit,
        },
    }
}

/// A range control of microseconds, its default a [`Duration`].
pub(crate) fn micros(
    name: &'static str,
    label: &'static str,
    bounds: (i64, i64, i64),
    default: Duration,
) -> Control {
    range(name, label, bounds, default.as_micros() as i64, "µs")
}

/// A choice control: `options` as `(value, label)`; the first is the default.
pub(crate) fn choice(
    name: &'static str,
    label: &'static str,
    options: &[(&'static str, &'static str)],
) -> Control {
    Control {
        name,
        label,
        kind: Kind::Choice {
            default: options[0].0,
            options: options
                .iter()
                .map(|&(value, label)| Choice { value, label })
                .collect(),
        },
    }
}

/// A flag control.
pub(crate) fn flag(name: &'static str, label: &'static str, default: bool) -> Control {
    Control {
        name,
        label,
        kind: Kind::Flag { default },
    }
}

/// A text control of `rows` lines.
pub(crate) fn text(name: &'static str, label: &'static str, default: &str, rows: u32) -> Control {
    Control {
        name,
        label,
        kind: Kind::Text {
            default: default.to_string(),
            rows,
        },
    }
}
