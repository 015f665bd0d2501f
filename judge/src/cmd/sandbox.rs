//! `judge __sandbox`: the sandbox's launcher, which the judge starts around
//! every build and run of student code ([`crate::sandbox::launcher`] says
//! what each stage does). Hidden: not for people.

use crate::cli::LaunchArgs;
use crate::sandbox::launcher::{self, Launch};
use anyhow::{Context, Result};

/// Runs one stage of the launcher; exits as its target did.
pub(crate) fn sandbox(args: &LaunchArgs) -> Result<u8> {
    let policy =
        serde_json::from_str(&args.policy).context("the sandbox's `--policy` is not a policy")?;
    let applied = match &args.applied {
        Some(json) => {
            serde_json::from_str(json).context("the sandbox's `--applied` is not a report")?
        }
        None => Default::default(),
    };
    launcher::launch(Launch {
        stage: args.stage,
        policy,
        applied,
        probe: args.probe,
        program: args.program.clone(),
    })
}
