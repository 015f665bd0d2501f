//! The rendered book in headless Chromium.
//!
//! `a_broken_page_is_caught` serves `tests/fixtures/pages/`, whose
//! `broken.html` has each fault once (a missing image and stylesheet, an
//! unresolved include, a dead link and a dead anchor, a console error and an
//! uncaught exception), and requires every one to be reported, while
//! `sound.html` must come out clean. `the_rendered_book_loads_cleanly` builds
//! the real book with mdBook (from the chapters that exist, see
//! [`book_check::shadow`]) and loads every page of it.
//!
//! Without Chromium or mdBook these tests say so loudly and pass, except
//! under CI (`CI` set), where they fail: CI must run them. `.ci/run`
//! installs both.

use book_check::browser::{self, PageReport, Server};
use book_check::widgets;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The tool, or `None` after a loud note when it is missing outside CI.
fn tool(name: &str, found: Option<PathBuf>, install: &str) -> Option<PathBuf> {
    if found.is_some() {
        return found;
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "`{name}` is not installed, and CI must run the browser test: {install}"
    );
    // Written to the process's stderr itself, past libtest's capture, so that
    // the skip shows even when the test passes.
    let bar = "!".repeat(72);
    let _ = writeln!(
        std::io::stderr(),
        "\n{bar}\nSKIPPED: `{name}` is not installed, so the browser test did not run.\n{install}\n{bar}\n"
    );
    None
}

fn chromium() -> Option<PathBuf> {
    tool(
        "chromium",
        browser::chromium(),
        "install it (`apt-get install chromium`) or set CHROMIUM=/path/to/chrome",
    )
}

fn mdbook() -> Option<PathBuf> {
    let found = std::env::var_os("MDBOOK").map(PathBuf::from).or_else(|| {
        let path = std::env::var_os("PATH")?;
        std::env::split_paths(&path)
            .map(|d| d.join("mdbook"))
            .find(|p| p.is_file())
    });
    tool(
        "mdbook",
        found,
        "install it: `cargo install mdbook --version 0.4.52 --locked`",
    )
}

fn assert_clean(page: &str, report: &PageReport) {
    assert!(
        report.problems.is_empty(),
        "`{page}` has {} problems in the browser:\n{}",
        report.problems.len(),
        report.problems.join("\n")
    );
}

#[test]
fn a_broken_page_is_caught() {
    let Some(chromium) = chromium() else { return };
    let pages = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pages");
    let server = Server::start(&pages).expect("a local port");
    let sound = browser::probe(&chromium, &server, "sound.html").expect("chromium runs");
    assert_clean("sound.html", &sound);
    assert_eq!(sound.images, 1, "the sound page's one image loads");
    let broken = browser::probe(&chromium, &server, "broken.html").expect("chromium runs");
    eprintln!("the broken page's report:\n{}", broken.problems.join("\n"));
    let expected = [
        "failed to load: http",
        "image did not load: figures/missing.svg",
        "requested `/figures/missing.svg`",
        "requested `/missing.css`",
        "unresolved mdBook directive in the page: {{#include",
        "dead link `http",
        "the page has no element with id `nope`",
        "console error: something went wrong",
        "uncaught error: ",
    ];
    for says in expected {
        assert!(
            broken.problems.iter().any(|p| p.contains(says)),
            "the broken page's report lacks `{says}`:\n{}",
            broken.problems.join("\n")
        );
    }
    assert_eq!(broken.images, 0);
}

/// The book built with mdBook into `target/tmp/book-check/NAME/` (from the
/// chapters that exist, see [`book_check::shadow`]): the site, the pages of
/// `SUMMARY.md`, and the chapters it lists that are not written yet.
fn build_book(mdbook: &Path, name: &str) -> (PathBuf, Vec<String>, Vec<String>) {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let src = book_check::source_dir(&repo).expect("book.toml");
    let work = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("book-check")
        .join(name);
    let shadow =
        book_check::shadow::make(&repo, &src, &work.join("shadow")).expect("a shadow of the book");
    if !shadow.missing.is_empty() {
        eprintln!(
            "note: SUMMARY.md lists chapters that are not written yet, left out of this build (`mdbook build` itself fails on them): {}",
            shadow.missing.join(", ")
        );
    }
    let site = work.join("site");
    let output = Command::new(mdbook)
        .arg("build")
        .arg(&shadow.root)
        .arg("--dest-dir")
        .arg(&site)
        .output()
        .expect("mdbook runs");
    let log = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "`mdbook build` failed:\n{log}");
    assert!(
        !log.contains("ERROR"),
        "`mdbook build` reported errors:\n{log}"
    );
    let summary = std::fs::read_to_string(shadow.root.join("chapters/SUMMARY.md"))
        .expect("the shadow's SUMMARY.md");
    let pages: Vec<String> = summary
        .lines()
        .filter_map(|l| {
            Some(
                l.split_once("](")?
                    .1
                    .split_once(')')?
                    .0
                    .replace(".md", ".html"),
            )
        })
        .collect();
    (site, pages, shadow.missing)
}

#[test]
fn the_rendered_book_loads_cleanly() {
    let (Some(chromium), Some(mdbook)) = (chromium(), mdbook()) else {
        return;
    };
    let (site, pages, missing) = build_book(&mdbook, "pages");
    assert!(
        pages.iter().any(|p| p == "introduction.html"),
        "the introduction is in the book"
    );
    let server = Server::start(&site).expect("a local port");
    // Links to the chapters not written yet are dead in this build only.
    let unwritten: Vec<String> = missing
        .iter()
        .map(|m| {
            format!(
                "dead link `{}/{}",
                server.origin(),
                m.replace(".md", ".html")
            )
        })
        .collect();
    for page in &pages {
        let mut report = browser::probe(&chromium, &server, page).expect("chromium runs");
        report
            .problems
            .retain(|p| !unwritten.iter().any(|u| p.starts_with(u.as_str())));
        assert_clean(page, &report);
        if page == "allocator.html" {
            assert!(
                report.images >= 3,
                "the allocator chapter shows its three figures, saw {}",
                report.images
            );
        }
    }
    if let Some(dir) = std::env::var_os("BOOK_CHECK_SCREENSHOTS") {
        for page in &pages {
            let png = Path::new(&dir).join(page.replace(['/', '.'], "-") + ".png");
            browser::screenshot(&chromium, &server, page, &png).expect("a screenshot");
        }
    }
}

/// For each widget, the control the browser test changes and its new value.
const PLAN: &str = r#"{
  "cpu-gpu": {"kernel_us": 20},
  "streams": {"slots": 1},
  "hidden-syncs": {"raw_scratch": true},
  "overlap": {"loop": "naive"},
  "allocator": {"script": "x = malloc(1 MiB, s0)\nfree(x)\ny = malloc(1 MiB, s0)"},
  "graphs": {"mode": "replay"}
}"#;

/// The pages of `pages` that have widgets, with their widgets' names.
fn widget_pages(site: &Path, pages: &[String]) -> Vec<(String, Vec<String>)> {
    pages
        .iter()
        .filter_map(|page| {
            let html = std::fs::read_to_string(site.join(page)).ok()?;
            let widgets = widgets::widgets_in(&html);
            (!widgets.is_empty()).then(|| (page.clone(), widgets))
        })
        .collect()
}

/// The widget as the page showed it equals a native run with the same values.
fn assert_native(run: &widgets::WidgetRun, shown: &widgets::Shown, when: &str) {
    let name = &run.widget;
    let spec = workbook_widgets::spec(name).expect("a widget of the crate");
    let values = spec
        .values(&shown.values.to_string())
        .unwrap_or_else(|e| panic!("`{name}` {when}: the page's values: {e}"));
    let native = workbook_widgets::render(name, &values).expect("the native run");
    let numbers: Vec<(String, String)> = native
        .numbers
        .iter()
        .map(|n| (n.label.clone(), n.value.clone()))
        .collect();
    assert_eq!(
        shown.numbers, numbers,
        "`{name}` {when}: the numbers in the page are not a native run's"
    );
    assert!(
        shown.svg == native.svg,
        "`{name}` {when}: the SVG in the page is not a native run's"
    );
    assert_eq!(
        shown.report.trim(),
        native.report.trim(),
        "`{name}` {when}: the report"
    );
}

#[test]
fn the_widgets_run_in_the_browser() {
    let (Some(chromium), Some(mdbook)) = (chromium(), mdbook()) else {
        return;
    };
    let (site, pages, _) = build_book(&mdbook, "widgets");
    let server = Server::start(&site).expect("a local port");
    let mut seen = Vec::new();
    let mut budgets = Vec::new();
    let mut bundle = 0;
    for (page, names) in widget_pages(&site, &pages) {
        let run = widgets::drive(&chromium, &server, &page, PLAN).expect("chromium runs");
        assert_eq!(run.state, "ready", "`{page}`: the widgets did not load");
        assert!(run.problems.is_empty(), "`{page}`: {:?}", run.problems);
        let drawn: Vec<&str> = run.widgets.iter().map(|w| w.widget.as_str()).collect();
        assert_eq!(drawn, names, "`{page}`: every block became a widget");
        for w in &run.widgets {
            assert!(
                w.figure_matches,
                "`{}` at its defaults is not `{}`",
                w.widget, w.figure
            );
            assert!(
                w.page_svg_changed && w.before.svg != w.after.svg,
                "`{}`: the control changed nothing",
                w.widget
            );
            assert_native(w, &w.before, "at its defaults");
            assert_native(w, &w.after, "after the change");
            budgets.push((w.widget.clone(), widgets::median(&w.redraw_ms)));
            seen.push(w.widget.clone());
        }
        bundle = run.bundle.iter().map(|f| f.gzip_bytes).sum();
    }
    seen.sort();
    let mut all: Vec<String> = workbook_widgets::names().map(str::to_string).collect();
    all.sort();
    assert_eq!(seen, all, "every widget of the crate is in a chapter");
    report_budgets(bundle, &budgets);
}

/// Prints the budgets (to quote) and checks them: the bundle at most
/// 1 MiB gzipped, each widget's median redraw of 20 at most 50 ms.
fn report_budgets(bundle: u64, budgets: &[(String, f64)]) {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|c| {
            c.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map_or(0, usize::from);
    let mut out = format!(
        "widget budgets, measured in headless Chromium on {cores} cores of {cpu}:\n  bundle (wasm + JS glue), gzipped by the browser: {:.0} KiB (budget 1024 KiB)\n",
        bundle as f64 / 1024.0
    );
    for (widget, ms) in budgets {
        out += &format!(
            "  {widget:<13} redraw after a control change, median of 20: {ms:.1} ms (budget 50 ms)\n"
        );
    }
    let _ = writeln!(std::io::stderr(), "\n{out}");
    assert!(
        bundle <= 1 << 20,
        "the bundle is over 1 MiB gzipped:\n{out}"
    );
    for (widget, ms) in budgets {
        assert!(*ms <= 50.0, "`{widget}` redraws in more than 50 ms:\n{out}");
    }
}

#[test]
fn without_javascript_the_widgets_show_their_figures() {
    let (Some(chromium), Some(mdbook)) = (chromium(), mdbook()) else {
        return;
    };
    let (site, pages, _) = build_book(&mdbook, "no-javascript");
    let server = Server::start(&site).expect("a local port");
    for (page, names) in widget_pages(&site, &pages) {
        server.take_served();
        let dom = widgets::without_javascript(&chromium, &server, &page).expect("chromium runs");
        let served = server.take_served();
        assert!(
            !dom.contains("gpu-widget--live") && !dom.contains("gpu-widget-static"),
            "`{page}`: a widget went live without JavaScript"
        );
        for name in names {
            let figure = workbook_widgets::spec(&name).expect("a widget").figure;
            assert!(
                dom.contains(&format!("src=\"figures/{figure}\"")),
                "`{page}`: without JavaScript the page has no `figures/{figure}` for widget `{name}`"
            );
            assert!(
                served
                    .iter()
                    .any(|p| p.ends_with(&format!("/figures/{figure}"))),
                "`{page}`: without JavaScript the browser did not load `figures/{figure}`"
            );
        }
    }
}
