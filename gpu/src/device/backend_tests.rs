//! Unit tests of `Backend`: its JSON names and `Backend::resolve_with`.

use super::*;
use std::cell::Cell;

#[test]
fn a_backend_travels_in_json_by_its_lowercase_name() {
    for (backend, name) in [
        (Backend::Auto, "\"auto\""),
        (Backend::Cuda, "\"cuda\""),
        (Backend::Virtual, "\"virtual\""),
    ] {
        assert_eq!(serde_json::to_string(&backend).unwrap(), name);
        assert_eq!(serde_json::from_str::<Backend>(name).unwrap(), backend);
    }
}

#[test]
fn an_unknown_backend_name_does_not_deserialize() {
    for name in ["\"metal\"", "\"Cuda\"", "\"\""] {
        let err = serde_json::from_str::<Backend>(name).unwrap_err();
        assert!(err.to_string().contains("unknown variant"), "{name}: {err}");
    }
}

/// A probe that counts its calls.
fn probe(calls: &Cell<u32>, found: bool) -> impl FnOnce() -> std::result::Result<(), String> {
    move || {
        calls.set(calls.get() + 1);
        if found {
            Ok(())
        } else {
            Err("no driver".into())
        }
    }
}

#[test]
fn resolving_probes_at_most_once() {
    let calls = Cell::new(0);
    let auto = Backend::Auto
        .resolve_with(None, probe(&calls, true))
        .unwrap();
    assert_eq!((auto, calls.get()), (ResolvedBackend::Cuda, 1));
    let cuda = Backend::Cuda
        .resolve_with(None, probe(&calls, true))
        .unwrap();
    assert_eq!((cuda, calls.get()), (ResolvedBackend::Cuda, 2));
    let virt = Backend::Virtual.resolve_with(None, probe(&calls, true));
    assert_eq!((virt.unwrap(), calls.get()), (ResolvedBackend::Virtual, 2));
}

#[test]
fn cuda_is_the_resolved_backend_only_where_there_is_a_device() {
    let calls = Cell::new(0);
    let auto = Backend::Auto
        .resolve_with(None, probe(&calls, false))
        .unwrap();
    assert_eq!(auto, ResolvedBackend::VirtualBecause("no driver".into()));
    assert_eq!(auto.kind(), BackendKind::Virtual);
    for (backend, env) in [(Backend::Cuda, None), (Backend::Auto, Some("cuda"))] {
        let err = backend
            .resolve_with(env, probe(&calls, false))
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("no CUDA device is available: no driver;"),
            "{err}"
        );
    }
    let chosen = Backend::Auto.resolve_with(Some(" Virtual "), probe(&calls, true));
    assert_eq!(chosen.unwrap(), ResolvedBackend::Virtual);
    assert_eq!(ResolvedBackend::Cuda.kind(), BackendKind::Cuda);
}
