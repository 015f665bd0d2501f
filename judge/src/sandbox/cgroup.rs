//! The control-group layer: every sandbox in control groups of its own,
//! made by the judge (as root) under its own, so that limits hold for the
//! sandbox as a whole and nothing it started outlives it.
//!
//! A sandbox's *scope* `judge-PID-N` holds the launcher's outer stage; its
//! child `work` holds everything after it (the target and all it starts,
//! however it detaches: `setsid`, a new process group, a double fork). Where
//! the machine has them:
//!
//! * **cgroup v2** (`cgroup.kill`, Linux 5.14): the outer stage kills
//!   `work` once the target has ended, and the judge kills the scope when it
//!   is done with the sandbox, in one write each: no process escapes, and
//!   none can fork faster than it is killed. Its `pids` and `memory`
//!   controllers, which the judge's own group is asked to give its
//!   children; where that group holds processes (cgroup v2 then gives
//!   none), they move into its child `judge-leaf` first, as
//!   Docker-in-Docker does.
//! * **cgroup v1** `pids` and `memory` (the controllers a hybrid machine
//!   keeps in v1): the process limit (`pids.max`) and the memory limit
//!   (`memory.limit_in_bytes`) for the sandbox as a whole, not per process
//!   and not per user (which every sandbox shared). Its `freezer` kills
//!   when there is no v2.
//!
//! Without root, or without a cgroup file system, the layer is not in force
//! and the judge says so (`judge doctor`, every results format); the
//! `setrlimit` limits stay.
//!
//! The file is over 400 lines for its tests: a model of cgroup v2's rules
//! (a group holding processes gives no controller) that the delegation is
//! tested against, beside the tables of each kind of machine.

use crate::sandbox::config::Limits;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// The child group of a scope where the target runs.
const WORK: &str = "work";

/// The child group of an agent's scope where the judge's checker runs (it
/// serves the agent's calls): its memory and CPU time are the
/// submission's too ([`Scope::take_in`], [`cpu_used`]).
const CHECKER: &str = "checker";

/// How long the judge waits for a killed group to empty.
const EMPTIED: Duration = Duration::from_secs(5);

/// The control groups this judge may make its sandboxes' under: its own
/// group in each hierarchy it can write.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Hierarchies {
    /// The judge's own group in the v2 hierarchy, when it has `cgroup.kill`.
    v2: Option<PathBuf>,
    /// The v2 controllers the judge's group gives its children (`pids`, `memory`).
    v2_controllers: Vec<String>,
    /// The judge's own group in the v1 `pids` hierarchy.
    pids: Option<PathBuf>,
    /// The judge's own group in the v1 `memory` hierarchy.
    memory: Option<PathBuf>,
    /// The judge's own group in the v1 `freezer` hierarchy.
    freezer: Option<PathBuf>,
}

impl Hierarchies {
    /// What this machine offers the judge: none unless it is root.
    pub(crate) fn find() -> Self {
        if !nix::unistd::geteuid().is_root() {
            return Self::default();
        }
        let mounts = std::fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
        let own = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
        Self::from_tables(&mounts, &own, writable)
    }

    /// The hierarchies of a `mountinfo` and a `/proc/self/cgroup` table,
    /// keeping the groups `usable` says may get children.
    fn from_tables(mounts: &str, own: &str, usable: impl Fn(&Path) -> bool) -> Self {
        let mut found = Self::default();
        for line in mounts.lines() {
            let Some((before, after)) = line.split_once(" - ") else {
                continue;
            };
            let (Some(point), mut after) = (before.split(' ').nth(4), after.split(' ')) else {
                continue;
            };
            let (fstype, options) = (after.next(), after.nth(1).unwrap_or(""));
            let point = Path::new(point);
            match fstype {
                Some("cgroup2") => {
                    let dir = outside_the_leaf(group(point, own, |c| c.is_empty()));
                    if usable(&dir) && kills(&dir) {
                        found.v2_controllers = delegate(&dir, &Machine);
                        found.v2 = Some(dir);
                    }
                }
                Some("cgroup") => {
                    for name in options.split(',') {
                        let slot = match name {
                            "pids" => &mut found.pids,
                            "memory" => &mut found.memory,
                            "freezer" => &mut found.freezer,
                            _ => continue,
                        };
                        let dir = group(point, own, |c| c.split(',').any(|c| c == name));
                        if usable(&dir) {
                            *slot = Some(dir);
                        }
                    }
                }
                _ => {}
            }
        }
        found
    }

    /// Whether sandboxes get control groups here.
    pub(crate) fn any(&self) -> bool {
        self.v2.is_some() || self.freezer.is_some() || self.pids.is_some()
    }

    /// Whether the sandbox's processes are counted together (a `pids`
    /// controller), so that the per-user process limit is not needed.
    pub(crate) fn counts_processes(&self) -> bool {
        self.pids.is_some() || self.v2_has("pids")
    }

    fn v2_has(&self, controller: &str) -> bool {
        self.v2.is_some() && self.v2_controllers.iter().any(|c| c == controller)
    }

    /// The layer, for a person: how a sandbox is ended and limited.
    pub(crate) fn describe(&self) -> String {
        let ends = match (&self.v2, &self.freezer) {
            (Some(_), _) => "cgroup v2's cgroup.kill ends everything a sandbox started",
            (None, Some(_)) => {
                "cgroup v1's freezer stops, then kills, everything a sandbox started"
            }
            (None, None) => "nothing ends what a sandbox started but its launcher",
        };
        let memory = self.memory.is_some() || self.v2_has("memory");
        let mut limits = Vec::new();
        if self.counts_processes() {
            limits.push("its processes");
        }
        if memory {
            limits.push("its memory");
        }
        if self.v2.is_some() {
            limits.push("a run's CPU time");
        }
        let together = match limits.split_last() {
            None => String::new(),
            Some((last, [])) => last.to_string(),
            Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        };
        let rest = match (self.counts_processes(), memory) {
            (true, true) => "",
            (true, false) => "; no memory controller here, so the memory limit stays per process",
            (false, true) => "; no pids controller here, so the process limit stays per user",
            (false, false) => {
                "; no pids or memory controller here, so those limits stay per process"
            }
        };
        match together.is_empty() {
            true => format!(
                "a control group per sandbox: {ends}; no pids or memory controller here, so the limits stay per process"
            ),
            false => format!(
                "a control group per sandbox: {ends}; the limits count {together} together{rest}"
            ),
        }
    }

    /// A scope for one sandbox, with `limits` for all of it; `None` when
    /// the machine offers none or it cannot be made.
    pub(crate) fn scope(&self, limits: &Limits) -> Option<Scope> {
        if !self.any() {
            return None;
        }
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let name = format!(
            "judge-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        let parents = [&self.v2, &self.pids, &self.memory, &self.freezer];
        let mut scope = Scope {
            dirs: Vec::new(),
            v2: None,
            freezer: None,
        };
        for parent in parents.into_iter().flatten() {
            let dir = parent.join(&name);
            std::fs::create_dir(&dir).ok()?;
            std::fs::create_dir(dir.join(WORK)).ok()?;
            std::fs::create_dir(dir.join(CHECKER)).ok()?;
            scope.dirs.push(dir.clone());
            if Some(parent) == self.v2.as_ref() {
                scope.v2 = Some(dir.clone());
            }
            if Some(parent) == self.freezer.as_ref() {
                scope.freezer = Some(dir);
            }
        }
        let set = |dir: &Option<PathBuf>, file: &str, value: u64| {
            dir.as_ref()
                .is_none_or(|d| std::fs::write(d.join(&name).join(file), value.to_string()).is_ok())
        };
        let v2 = |controller| self.v2.clone().filter(|_| self.v2_has(controller));
        let limited = set(&self.pids, "pids.max", limits.processes)
            && set(&self.memory, "memory.limit_in_bytes", limits.memory)
            && set(&v2("pids"), "pids.max", limits.processes)
            && set(&v2("memory"), "memory.max", limits.memory);
        limited.then_some(scope)
    }
}

/// The group of `own`'s line whose controllers `matches` in the hierarchy
/// mounted at `point` (`0::/user.slice` for v2, `8:pids:/` for v1).
fn group(point: &Path, own: &str, matches: impl Fn(&str) -> bool) -> PathBuf {
    let path = own
        .lines()
        .filter_map(|l| {
            let mut parts = l.splitn(3, ':');
            let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
            matches(controllers).then_some(path)
        })
        .next()
        .unwrap_or("/");
    point.join(path.trim_start_matches('/'))
}

/// The child group that the processes of the judge's v2 group move to,
/// so that the group may give its children controllers: cgroup v2 lets a
/// group that holds processes give none (its "no internal processes"
/// rule). Docker-in-Docker moves a container's processes the same way.
const LEAF: &str = "judge-leaf";

/// The v2 controllers a sandbox's group needs for its limits.
const NEEDED: [&str; 2] = ["pids", "memory"];

/// `dir`, or its parent when `dir` is the [`LEAF`] that a judge before
/// this one moved the group's processes into: sandboxes are made beside
/// it, where the controllers are.
fn outside_the_leaf(dir: PathBuf) -> PathBuf {
    match (dir.file_name(), dir.parent()) {
        (Some(name), Some(parent)) if name == LEAF => parent.to_path_buf(),
        _ => dir,
    }
}

/// What [`delegate`] reads and writes of a v2 hierarchy: the machine's, or
/// a model of its rules in the tests.
trait Tree {
    /// A file's text, or empty.
    fn read(&self, file: &Path) -> String;
    /// Writes a file (a control file: the kernel may refuse).
    fn write(&self, file: &Path, text: &str) -> std::io::Result<()>;
    /// Makes a group, if not there.
    fn make(&self, dir: &Path);
}

/// The machine's cgroup file system.
struct Machine;

impl Tree for Machine {
    fn read(&self, file: &Path) -> String {
        std::fs::read_to_string(file).unwrap_or_default()
    }
    fn write(&self, file: &Path, text: &str) -> std::io::Result<()> {
        std::fs::write(file, text)
    }
    fn make(&self, dir: &Path) {
        let _ = std::fs::create_dir(dir);
    }
}

/// The controllers the v2 group `dir` gives its children, after asking it
/// to give those of [`NEEDED`] it has: when it refuses because it holds
/// processes, they move into its [`LEAF`] (one at a time: a process
/// forked meanwhile is moved on the next try), and it is asked again.
fn delegate(dir: &Path, tree: &impl Tree) -> Vec<String> {
    let words = |file: &str| -> Vec<String> {
        tree.read(&dir.join(file))
            .split_whitespace()
            .map(String::from)
            .collect()
    };
    let offered = words("cgroup.controllers");
    let missing: Vec<&str> = NEEDED
        .into_iter()
        .filter(|c| offered.iter().any(|o| o == c))
        .filter(|c| !words("cgroup.subtree_control").iter().any(|g| g == c))
        .collect();
    if missing.is_empty() {
        return words("cgroup.subtree_control");
    }
    let ask = missing
        .iter()
        .map(|c| format!("+{c}"))
        .collect::<Vec<_>>()
        .join(" ");
    let leaf = dir.join(LEAF);
    for _ in 0..3 {
        if tree
            .write(&dir.join("cgroup.subtree_control"), &ask)
            .is_ok()
        {
            break;
        }
        tree.make(&leaf);
        for pid in tree.read(&dir.join("cgroup.procs")).split_whitespace() {
            let _ = tree.write(&leaf.join("cgroup.procs"), pid);
        }
    }
    words("cgroup.subtree_control")
}

/// Whether the v2 groups made in `dir` have `cgroup.kill` (Linux 5.14): a
/// group of its own has it where the kernel does; the root group never
/// does, so a child is made to look.
fn kills(dir: &Path) -> bool {
    if dir.join("cgroup.kill").exists() {
        return true;
    }
    let child = dir.join(format!("judge-probe-{}", std::process::id()));
    let found = std::fs::create_dir(&child).is_ok() && child.join("cgroup.kill").exists();
    let _ = std::fs::remove_dir(&child);
    found
}

/// Whether the judge may make groups in `dir`.
fn writable(dir: &Path) -> bool {
    nix::unistd::access(dir, nix::unistd::AccessFlags::W_OK).is_ok()
        && dir.join("cgroup.procs").exists()
}

/// One sandbox's control groups, in every hierarchy; dropping it ends
/// everything in them and removes them.
#[derive(Debug)]
pub(crate) struct Scope {
    /// The scope's folder in each hierarchy.
    dirs: Vec<PathBuf>,
    /// Its v2 folder, which `cgroup.kill` ends.
    v2: Option<PathBuf>,
    /// Its v1 freezer folder.
    freezer: Option<PathBuf>,
}

impl Scope {
    /// The scope's folders, which the launcher's outer stage joins (its
    /// child joins their `work` groups: [`join`]).
    pub(crate) fn dirs(&self) -> Vec<PathBuf> {
        self.dirs.clone()
    }

    /// Moves process `pid` (the judge's checker, before it has started
    /// anything) into the scope's `checker` groups: what it holds counts
    /// against the scope's memory and process limits, and its CPU time
    /// with the sandbox's ([`cpu_used`]).
    pub(crate) fn take_in(&self, pid: u32) -> std::io::Result<()> {
        for dir in &self.dirs {
            std::fs::write(dir.join(CHECKER).join("cgroup.procs"), pid.to_string())?;
        }
        Ok(())
    }

    /// Ends every process in the scope.
    fn kill(&self) {
        match (&self.v2, &self.freezer) {
            (Some(v2), _) => {
                let _ = std::fs::write(v2.join("cgroup.kill"), "1");
            }
            (None, Some(freezer)) => freeze_and_kill(freezer),
            (None, None) => self.dirs.iter().for_each(|d| kill_members(d)),
        }
    }
}

impl Drop for Scope {
    fn drop(&mut self) {
        self.kill();
        let until = Instant::now() + EMPTIED;
        for dir in &self.dirs {
            while !empty(dir) && Instant::now() < until {
                std::thread::sleep(Duration::from_millis(10));
            }
            let _ = std::fs::remove_dir(dir.join(WORK));
            let _ = std::fs::remove_dir(dir.join(CHECKER));
            let _ = std::fs::remove_dir(dir);
        }
    }
}

/// Moves this process into each of `dirs`' groups (the launcher's outer
/// stage: `work` = false) or their `work` groups (the stage after it).
pub(crate) fn join(dirs: &[PathBuf], work: bool) -> std::io::Result<()> {
    for dir in dirs {
        let dir = if work { dir.join(WORK) } else { dir.clone() };
        // "0" is the writing process, in its own pid namespace or not.
        std::fs::write(dir.join("cgroup.procs"), "0")?;
    }
    Ok(())
}

/// Ends everything in the `work` groups of `dirs` (the outer stage, once
/// the target has ended; the outer stage itself is not among them).
pub(crate) fn end_work(dirs: &[PathBuf]) {
    for dir in dirs {
        let work = dir.join(WORK);
        if work.join("cgroup.kill").exists() {
            let _ = std::fs::write(work.join("cgroup.kill"), "1");
        } else if work.join("freezer.state").exists() {
            freeze_and_kill(&work);
        }
    }
}

/// How many processes the kernel ended in the groups of `dirs` (and their
/// `work` groups) for holding more than the memory limit: v2's
/// `memory.events`, v1's `memory.oom_control` (both count the groups
/// beneath too).
pub(crate) fn memory_kills(dirs: &[PathBuf]) -> u64 {
    let kills = |file: PathBuf| {
        std::fs::read_to_string(file)
            .unwrap_or_default()
            .lines()
            .find_map(|line| line.strip_prefix("oom_kill "))
            .and_then(|n| n.trim().parse::<u64>().ok())
            .unwrap_or(0)
    };
    dirs.iter()
        .flat_map(|dir| [dir.clone(), dir.join(WORK), dir.join(CHECKER)])
        .flat_map(|dir| [dir.join("memory.events"), dir.join("memory.oom_control")])
        .map(kills)
        .max()
        .unwrap_or(0)
}

/// The CPU time the processes of the `work` groups of `dirs` (the target
/// and all it started, not the launcher's outer stage) have used together,
/// those that have ended too, with the `checker` group's (the judge's
/// checker, serving an agent's calls): v2's `cpu.stat` (`usage_usec`,
/// there whether or not the `cpu` controller is given), the most any of
/// them says; `None` without a v2 group.
pub(crate) fn cpu_used(dirs: &[PathBuf]) -> Option<Duration> {
    let usage = |group: PathBuf| -> Option<u64> {
        let stat = std::fs::read_to_string(group.join("cpu.stat")).ok()?;
        stat.lines()
            .find_map(|line| line.strip_prefix("usage_usec "))
            .and_then(|n| n.trim().parse::<u64>().ok())
    };
    dirs.iter()
        .filter_map(|dir| {
            let work = usage(dir.join(WORK))?;
            Some(work.saturating_add(usage(dir.join(CHECKER)).unwrap_or(0)))
        })
        .max()
        .map(Duration::from_micros)
}

/// The words that say which limit [`cpu_message`] is about.
const CPU_MARK: &str = "past the sandbox's CPU-time limit";

/// What the launcher says on the sandbox's standard error when it ended
/// the sandbox for using `used` of CPU time together, past `limit_s`.
pub(crate) fn cpu_message(used: Duration, limit_s: u64) -> String {
    format!(
        "the sandbox ended this process: its processes together (with the judge's work on \
         their device calls) used {:.1} s of CPU time, {CPU_MARK} of {limit_s} s \
         (`--cpu-limit`); do less work, make fewer calls, or end the processes and threads \
         that spin",
        used.as_secs_f64()
    )
}

/// The words that mark [`memory_message`]'s line, for [`memory_said`].
const MEMORY_MARK: &str = "past the sandbox's memory limit";

/// What the launcher says on the sandbox's standard error when the kernel
/// ended a process of it past the sandbox's memory limit of `limit` bytes.
pub(crate) fn memory_message(limit: u64) -> String {
    format!(
        "the sandbox ended a process: its processes together held {MEMORY_MARK} of {} \
         (`--memory-limit`); hold less at once (a buffer that grows without end, a file \
         or a constant that the compiler must hold whole)",
        gib(limit)
    )
}

/// The line of `stderr` that [`memory_message`] wrote, if the launcher wrote one.
pub(crate) fn memory_said(stderr: &str) -> Option<&str> {
    stderr.lines().find(|line| line.contains(MEMORY_MARK))
}

/// Bytes as GiB for a person (`2 GiB`, `0.5 GiB`).
fn gib(bytes: u64) -> String {
    let gib = bytes as f64 / f64::from(1u32 << 30);
    match gib.fract() == 0.0 {
        true => format!("{gib:.0} GiB"),
        false => format!("{gib:.2} GiB"),
    }
}

/// Freezes a v1 freezer group and all beneath it, kills every member, and
/// thaws it so that the kills are delivered.
fn freeze_and_kill(dir: &Path) {
    let _ = std::fs::write(dir.join("freezer.state"), "FROZEN");
    kill_members(dir);
    let _ = std::fs::write(dir.join("freezer.state"), "THAWED");
}

/// Sends `SIGKILL` to every process of `dir` and the groups beneath it.
fn kill_members(dir: &Path) {
    for member in members(dir) {
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(member),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
}

/// The processes of `dir` and the groups beneath it.
fn members(dir: &Path) -> Vec<i32> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .flatten()
        .filter(|e| e.file_name() == "cgroup.procs")
        .flat_map(|e| {
            std::fs::read_to_string(e.path())
                .unwrap_or_default()
                .lines()
                .filter_map(|l| l.trim().parse().ok())
                .collect::<Vec<i32>>()
        })
        .collect()
}

/// Whether no process is left in `dir` or beneath it.
fn empty(dir: &Path) -> bool {
    members(dir).is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    const HYBRID_MOUNTS: &str = "\
25 20 0:22 / /sys/fs/cgroup ro,nosuid - tmpfs tmpfs ro,mode=755
26 25 0:23 / /sys/fs/cgroup/unified rw,nosuid - cgroup2 cgroup2 rw,nsdelegate
28 25 0:25 / /sys/fs/cgroup/pids rw,nosuid - cgroup cgroup rw,pids
29 25 0:26 / /sys/fs/cgroup/memory rw,nosuid - cgroup cgroup rw,memory
30 25 0:27 / /sys/fs/cgroup/freezer rw,nosuid - cgroup cgroup rw,freezer
31 25 0:28 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid - cgroup cgroup rw,cpu,cpuacct
";
    const HYBRID_OWN: &str = "8:pids:/\n6:freezer:/\n4:memory:/process_api/0d8a\n0::/\n";

    #[test]
    fn the_judges_own_groups_are_found_in_each_hierarchy() {
        let found = Hierarchies::from_tables(HYBRID_MOUNTS, HYBRID_OWN, |_| true);
        assert_eq!(found.pids, Some(PathBuf::from("/sys/fs/cgroup/pids")));
        assert_eq!(
            found.memory,
            Some(PathBuf::from("/sys/fs/cgroup/memory/process_api/0d8a"))
        );
        assert_eq!(found.freezer, Some(PathBuf::from("/sys/fs/cgroup/freezer")));
        assert!(found.counts_processes());
        let none = Hierarchies::from_tables(HYBRID_MOUNTS, HYBRID_OWN, |_| false);
        assert!(!none.any());
        assert!(none.describe().contains("no pids or memory controller"));
    }

    #[test]
    fn the_cpu_time_of_a_v2_group_is_read_from_its_stat() {
        let dir = tempfile::tempdir().unwrap();
        let (v1, v2) = (dir.path().join("v1"), dir.path().join("v2"));
        for group in [&v1, &v2] {
            std::fs::create_dir_all(group.join(WORK)).unwrap();
        }
        assert_eq!(cpu_used(std::slice::from_ref(&v1)), None, "no v2 group");
        std::fs::write(v2.join("cpu.stat"), "usage_usec 9000000\n").unwrap();
        assert_eq!(
            cpu_used(std::slice::from_ref(&v2)),
            None,
            "the outer stage is not counted"
        );
        std::fs::write(
            v2.join(WORK).join("cpu.stat"),
            "usage_usec 2500000\nuser_usec 2000000\nsystem_usec 500000\n",
        )
        .unwrap();
        assert_eq!(
            cpu_used(&[v1.clone(), v2.clone()]),
            Some(Duration::from_millis(2500))
        );
        std::fs::create_dir_all(v2.join(CHECKER)).unwrap();
        std::fs::write(
            v2.join(CHECKER).join("cpu.stat"),
            "usage_usec 1500000
",
        )
        .unwrap();
        assert_eq!(
            cpu_used(&[v1, v2]),
            Some(Duration::from_millis(4000)),
            "the checker's time is the submission's too"
        );
        let line = cpu_message(Duration::from_millis(2500), 2);
        assert!(line.contains("used 2.5 s of CPU time"), "{line}");
        assert!(line.contains(CPU_MARK), "{line}");
    }

    #[test]
    fn the_kernels_memory_kills_are_read_from_either_version() {
        let dir = tempfile::tempdir().unwrap();
        let (v1, v2) = (dir.path().join("v1"), dir.path().join("v2"));
        for group in [&v1, &v2] {
            std::fs::create_dir_all(group.join(WORK)).unwrap();
        }
        let dirs = [v1.clone(), v2.clone()];
        assert_eq!(memory_kills(&dirs), 0, "no file, no kill");
        std::fs::write(
            v1.join("memory.oom_control"),
            "oom_kill_disable 0\nunder_oom 0\noom_kill 0\n",
        )
        .unwrap();
        assert_eq!(memory_kills(&dirs), 0);
        std::fs::write(
            v2.join(WORK).join("memory.events"),
            "low 0\nhigh 0\nmax 9\noom 1\noom_kill 2\noom_group_kill 0\n",
        )
        .unwrap();
        assert_eq!(memory_kills(&dirs), 2);
        let line = memory_message(2 << 30);
        assert!(line.contains("memory limit of 2 GiB"), "{line}");
        let stderr = format!("warning: something\n{line}\n");
        assert_eq!(memory_said(&stderr), Some(line.as_str()));
        assert!(memory_message(1 << 29).contains("of 0.50 GiB"));
    }

    /// A v2 hierarchy in memory, with the kernel's rule that a group
    /// holding processes gives its children no controller.
    #[derive(Default)]
    struct Model {
        files: std::cell::RefCell<std::collections::BTreeMap<PathBuf, String>>,
    }

    impl Model {
        fn set(&self, file: &Path, text: &str) {
            self.files
                .borrow_mut()
                .insert(file.to_path_buf(), text.to_string());
        }
    }

    impl Tree for Model {
        fn read(&self, file: &Path) -> String {
            self.files.borrow().get(file).cloned().unwrap_or_default()
        }
        fn write(&self, file: &Path, text: &str) -> std::io::Result<()> {
            let dir = file.parent().unwrap();
            match file.file_name().and_then(|n| n.to_str()) {
                Some("cgroup.subtree_control") => {
                    if !self.read(&dir.join("cgroup.procs")).trim().is_empty() {
                        return Err(std::io::Error::from_raw_os_error(nix::libc::EBUSY));
                    }
                    let mut given = self.read(file);
                    for c in text.split_whitespace() {
                        given = format!("{given} {}", c.trim_start_matches('+'));
                    }
                    self.set(file, given.trim());
                }
                Some("cgroup.procs") => {
                    let from = dir.parent().unwrap().join("cgroup.procs");
                    let left: Vec<String> = self
                        .read(&from)
                        .split_whitespace()
                        .filter(|p| *p != text)
                        .map(String::from)
                        .collect();
                    self.set(&from, &left.join("\n"));
                    let moved = format!("{}\n{text}", self.read(file));
                    self.set(file, moved.trim());
                }
                _ => self.set(file, text),
            }
            Ok(())
        }
        fn make(&self, _: &Path) {}
    }

    #[test]
    fn a_v2_group_that_holds_processes_moves_them_to_its_leaf_and_gives_the_controllers() {
        let dir = Path::new("/sys/fs/cgroup/system.slice/grader.service");
        let model = Model::default();
        model.set(&dir.join("cgroup.controllers"), "cpu io memory pids");
        model.set(&dir.join("cgroup.procs"), "41\n42\n4242");
        assert_eq!(delegate(dir, &model), ["pids", "memory"]);
        assert_eq!(model.read(&dir.join("cgroup.procs")), "");
        assert_eq!(
            model.read(&dir.join(LEAF).join("cgroup.procs")),
            "41\n42\n4242"
        );
        // A judge started later finds itself in the leaf, and makes its
        // sandboxes beside it.
        assert_eq!(outside_the_leaf(dir.join(LEAF)), dir);
        assert_eq!(outside_the_leaf(dir.to_path_buf()), dir);
    }

    #[test]
    fn a_v2_group_is_asked_only_for_the_controllers_it_has_and_lacks() {
        let dir = Path::new("/sys/fs/cgroup/judge");
        let model = Model::default();
        model.set(&dir.join("cgroup.controllers"), "cpu pids");
        model.set(&dir.join("cgroup.procs"), "7");
        assert_eq!(delegate(dir, &model), ["pids"], "no memory to give");
        let given = Model::default();
        given.set(&dir.join("cgroup.controllers"), "memory pids");
        given.set(&dir.join("cgroup.subtree_control"), "memory pids");
        given.set(&dir.join("cgroup.procs"), "7");
        assert_eq!(delegate(dir, &given), ["memory", "pids"]);
        assert_eq!(given.read(&dir.join("cgroup.procs")), "7", "nothing moved");
        let none = Model::default();
        none.set(&dir.join("cgroup.procs"), "7");
        assert!(
            delegate(dir, &none).is_empty(),
            "a hybrid machine's v2 root"
        );
        assert_eq!(none.read(&dir.join("cgroup.procs")), "7", "nothing moved");
    }

    #[test]
    fn a_pure_v2_machine_is_found_with_its_controllers() {
        let mounts = "33 24 0:29 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n";
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("sys/fs/cgroup");
        let own = root.join("user.slice");
        std::fs::create_dir_all(&own).unwrap();
        std::fs::write(own.join("cgroup.kill"), "").unwrap();
        std::fs::write(own.join("cgroup.subtree_control"), "memory pids\n").unwrap();
        let mounts = mounts.replace("/sys/fs/cgroup", &root.to_string_lossy());
        let found = Hierarchies::from_tables(&mounts, "0::/user.slice\n", |_| true);
        assert_eq!(found.v2, Some(own));
        assert!(found.counts_processes());
        assert!(
            found.describe().contains("cgroup.kill"),
            "{}",
            found.describe()
        );
        assert!(
            found
                .describe()
                .contains("its processes, its memory and a run's CPU time together"),
            "{}",
            found.describe()
        );
        let no_controllers = Hierarchies {
            v2_controllers: Vec::new(),
            ..found
        };
        assert!(
            no_controllers.describe().ends_with(
                "the limits count a run's CPU time together; no pids or memory controller here, so those limits stay per process"
            ),
            "{}",
            no_controllers.describe()
        );
    }
}
