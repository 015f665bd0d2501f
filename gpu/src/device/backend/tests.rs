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

/// What `backend` resolves to with `GPU_BACKEND=env` on a machine with a
/// GPU (`found`) or without, and how many times it probed.
fn resolved(backend: Backend, env: Option<&str>, found: bool) -> (Result<ResolvedBackend>, u32) {
    let calls = Cell::new(0);
    let probe = || {
        calls.set(calls.get() + 1);
        if found {
            Ok(())
        } else {
            Err("no driver".into())
        }
    };
    (backend.resolve_with(env, probe), calls.get())
}

#[test]
fn resolving_probes_at_most_once() {
    use ResolvedBackend::{Cuda, Virtual};
    for (backend, want) in [(Backend::Auto, (Cuda, 1)), (Backend::Cuda, (Cuda, 1))] {
        let (got, calls) = resolved(backend, None, true);
        assert_eq!((got.unwrap(), calls), want, "{backend:?}");
    }
    let (got, calls) = resolved(Backend::Virtual, None, true);
    assert_eq!((got.unwrap(), calls), (Virtual, 0));
    assert_eq!(
        (Cuda.kind(), Virtual.kind()),
        (BackendKind::Cuda, BackendKind::Virtual)
    );
}

#[test]
fn cuda_is_the_resolved_backend_only_where_there_is_a_device() {
    let (auto, _) = resolved(Backend::Auto, None, false);
    assert_eq!(
        auto.unwrap(),
        ResolvedBackend::VirtualBecause("no driver".into())
    );
    for (backend, env) in [(Backend::Cuda, None), (Backend::Auto, Some("cuda"))] {
        let err = resolved(backend, env, false).0.unwrap_err().to_string();
        assert!(
            err.starts_with("no CUDA device is available: no driver;"),
            "{err}"
        );
    }
    let (chosen, calls) = resolved(Backend::Auto, Some(" Virtual "), true);
    assert_eq!((chosen.unwrap(), calls), (ResolvedBackend::Virtual, 0));
}
