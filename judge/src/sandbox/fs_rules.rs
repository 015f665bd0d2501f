//! The files layer: landlock, applied by the launcher to itself just before
//! it becomes the target, so that the target and everything it starts may
//! read only the policy's `read` paths (and no `/proc` at all: not another
//! process's, not `/proc/self/mem` or `/proc/self/fd`), write only beneath
//! its `write` folders, open only its device files, bind or connect no TCP
//! port (ABI 4), and signal no process outside the sandbox (ABI 6). The
//! rules themselves are the harness runtime's ([`judge_harness::lockdown`]),
//! which a harness applies once more to itself.

use crate::sandbox::policy::Policy;
use judge_harness::lockdown::Restricted;

/// Restricts this process (and what it starts) to `policy`'s files.
pub(crate) fn restrict(policy: &Policy) -> Result<Restricted, landlock::RulesetError> {
    policy.lockdown().apply()
}
