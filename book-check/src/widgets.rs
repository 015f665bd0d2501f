//! The book's live timelines in headless Chromium, driven by a script the
//! server adds to the page ([`DRIVER`]).
//!
//! [`drive`] loads a page in headless Chromium on real time (not
//! `--virtual-time-budget`, under which `performance.now()` stands still).
//! Once the page's widgets are live, the driver records what each one shows
//! (its values, the SVG it drew, the numbers on the page, its report),
//! fetches the static figure it replaced and compares the bytes, changes one
//! control as the test's plan says and records again, then times 20 redraws
//! toggling that control (from setting the value to the SVG laid out). It
//! also gzips the bundle with the browser's own `CompressionStream`. It posts
//! all of it to the server as JSON ([`PageRun`]), and the test compares it
//! with a native run of the same widgets. [`without_javascript`] loads a page
//! with scripts off and returns the DOM, to show that the static figures are
//! what a reader without JavaScript sees.

use crate::browser::HEADLESS;
use crate::server::Server;
use serde::Deserialize;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// The driver; `__PLAN__` is replaced by the plan, a JSON object that gives
/// each widget one control and the value to set it to.
pub const DRIVER: &str = r#"<script>
(function () {
  var plan = __PLAN__;
  var root = function () { return typeof path_to_root === 'string' ? path_to_root : ''; };
  function shown(block) {
    var view = block.gpuWidgetView || {};
    return {
      values: view.values || {},
      svg: view.svg || '',
      numbers: Array.prototype.map.call(block.querySelectorAll('.gpu-widget-numbers > div'), function (d) {
        return [d.querySelector('dt').textContent, d.querySelector('dd').textContent];
      }),
      report: (block.querySelector('.gpu-widget-report') || {}).textContent || '',
      page_svg: (block.querySelector('.gpu-widget-svg') || {}).innerHTML || '',
    };
  }
  function figureHidden(block) {
    return [block.previousElementSibling, block.querySelector('img')].some(function (el) {
      return el && el.classList.contains('gpu-widget-static') && getComputedStyle(el).display === 'none';
    });
  }
  function set(block, name, value) {
    var input = block.querySelector('.gpu-widget-controls [name="' + name + '"]');
    if (!input) { throw new Error('widget ' + block.dataset.widget + ' has no control ' + name); }
    if (input.type === 'checkbox') { input.checked = value; } else { input.value = value; }
    var kind = input.tagName === 'SELECT' || input.type === 'checkbox' ? 'change' : 'input';
    input.dispatchEvent(new Event(kind, { bubbles: true }));
  }
  function timed(block, name, value) {
    var start = performance.now();
    set(block, name, value);
    block.querySelector('.gpu-widget-svg svg').getBoundingClientRect();
    return performance.now() - start;
  }
  async function gzipped(url) {
    var response = await fetch(url);
    var raw = (await response.clone().arrayBuffer()).byteLength;
    var zipped = await new Response(response.body.pipeThrough(new CompressionStream('gzip'))).arrayBuffer();
    return { url: url, bytes: raw, gzip_bytes: zipped.byteLength };
  }
  async function drive(block) {
    var name = block.dataset.widget;
    var change = plan[name];
    if (!change) { throw new Error('the plan has no change for widget ' + name); }
    var control = Object.keys(change)[0];
    var before = shown(block);
    var figure = await (await fetch(root() + 'figures/' + block.dataset.figure)).text();
    set(block, control, change[control]);
    var after = shown(block);
    var times = [];
    for (var i = 0; i < 20; i++) {
      times.push(timed(block, control, i % 2 === 0 ? before.values[control] : change[control]));
    }
    return {
      widget: name, figure: block.dataset.figure, figure_matches: before.svg === figure,
      figure_hidden: figureHidden(block),
      page_svg_changed: before.page_svg !== after.page_svg, before: before, after: after, redraw_ms: times,
    };
  }
  async function ready() {
    for (var waited = 0; waited < 60000; waited += 50) {
      var state = document.documentElement.dataset.gpuWidgets;
      if (state) { return state; }
      await new Promise(function (r) { setTimeout(r, 50); });
    }
    return 'never';
  }
  async function run() {
    var report = { state: await ready(), widgets: [], bundle: [], problems: [] };
    try {
      var blocks = document.querySelectorAll('.gpu-widget[data-widget]');
      for (var i = 0; i < blocks.length; i++) { report.widgets.push(await drive(blocks[i])); }
      var base = root() + 'widgets/';
      report.bundle.push(await gzipped(base + 'workbook_widgets_bg.wasm'));
      report.bundle.push(await gzipped(base + 'workbook_widgets.js'));
    } catch (e) {
      report.problems.push('the driver failed: ' + e);
    }
    var probe = document.getElementById('book-check-probe');
    if (probe) { report.problems = report.problems.concat(JSON.parse(probe.textContent).problems); }
    await fetch('/__book-check/report', { method: 'POST', body: JSON.stringify(report) });
  }
  window.addEventListener('load', function () { setTimeout(run, 400); });
})();
</script>"#;

/// What the driver found on one page.
#[derive(Clone, Debug, Deserialize)]
pub struct PageRun {
    /// `ready` when the widgets went live, `failed` or `never` otherwise.
    pub state: String,
    /// Each widget of the page, in page order.
    pub widgets: Vec<WidgetRun>,
    /// The bundle's files, raw and gzipped by the browser.
    pub bundle: Vec<BundleFile>,
    /// The probe's findings and the driver's own failures.
    pub problems: Vec<String>,
}

/// One widget, before and after the change of one control.
#[derive(Clone, Debug, Deserialize)]
pub struct WidgetRun {
    /// The widget's name.
    pub widget: String,
    /// The static figure it replaces.
    pub figure: String,
    /// Whether the SVG it drew at its defaults is the figure's bytes.
    pub figure_matches: bool,
    /// Whether the static figure it replaces is hidden (on screen).
    pub figure_hidden: bool,
    /// Whether the SVG in the page changed with the control.
    pub page_svg_changed: bool,
    /// What it showed at its defaults.
    pub before: Shown,
    /// What it showed after the change.
    pub after: Shown,
    /// 20 redraws, toggling the control, ms each.
    pub redraw_ms: Vec<f64>,
}

/// What a widget showed.
#[derive(Clone, Debug, Deserialize)]
pub struct Shown {
    /// The values it drew with (a JSON object).
    pub values: serde_json::Value,
    /// The SVG it drew, as the WebAssembly returned it.
    pub svg: String,
    /// The numbers in the page: (label, value).
    pub numbers: Vec<(String, String)>,
    /// The report in the page.
    pub report: String,
}

/// One file of the bundle.
#[derive(Clone, Debug, Deserialize)]
pub struct BundleFile {
    /// Its URL, relative to the page.
    pub url: String,
    /// Its size, bytes.
    pub bytes: u64,
    /// Its size gzipped by the browser (`CompressionStream`), bytes.
    pub gzip_bytes: u64,
}

/// The median of some samples (0 for none).
pub fn median(samples: &[f64]) -> f64 {
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    match sorted.len() {
        0 => 0.0,
        n if n % 2 == 1 => sorted[n / 2],
        n => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
    }
}

/// The window the widgets are drawn in.
const WINDOW: &str = "--window-size=1280,2000";

/// A fresh Chromium profile folder for `what`.
fn profile(what: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "book-check-widgets-{}-{}",
        std::process::id(),
        what.replace(['/', '.'], "-")
    ));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Loads `page` with the driver and `plan` (a JSON object) and returns what
/// the driver posted, waiting at most two minutes.
pub fn drive(chromium: &Path, server: &Server, page: &str, plan: &str) -> Result<PageRun, String> {
    let report = run_script(chromium, server, page, &DRIVER.replace("__PLAN__", plan))?;
    serde_json::from_str(&report).map_err(|e| format!("`{page}`: the driver's report: {e}"))
}

/// Loads `page` with `script` added, in a fresh profile, and returns what
/// the script posted to `/__book-check/report`, waiting at most two minutes.
pub fn run_script(
    chromium: &Path,
    server: &Server,
    page: &str,
    script: &str,
) -> Result<String, String> {
    server.clear_reports();
    server.set_script(script);
    let dir = profile(page);
    let child = Command::new(chromium)
        .args(HEADLESS)
        .arg(WINDOW)
        .arg(format!("--user-data-dir={}", dir.display()))
        .arg(format!("{}/{page}", server.origin()))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start `{}`: {e}", chromium.display()))?;
    let report = server.wait_report(Duration::from_secs(120));
    stop(child);
    server.set_script("");
    let _ = std::fs::remove_dir_all(&dir);
    report.ok_or_else(|| format!("`{page}`: the driver posted nothing in 120 s"))
}

/// Ends a Chromium that runs until told to stop.
fn stop(mut child: Child) {
    let _ = child.kill();
    let _ = child.wait();
}

/// The DOM of `page` as Chromium builds it with no script running (the
/// server's [`Server::set_scripts_off`]; Chromium's own switch for it,
/// `--blink-settings=scriptEnabled=false`, also stops `--dump-dom`).
pub fn without_javascript(chromium: &Path, server: &Server, page: &str) -> Result<String, String> {
    let dir = profile(&format!("nojs-{page}"));
    server.set_scripts_off(true);
    let output = Command::new(chromium)
        .args(HEADLESS)
        .args([WINDOW, "--virtual-time-budget=3000", "--dump-dom"])
        .arg(format!("--user-data-dir={}", dir.display()))
        .arg(format!("{}/{page}", server.origin()))
        .stderr(Stdio::null())
        .output();
    server.set_scripts_off(false);
    let _ = std::fs::remove_dir_all(&dir);
    let output = output.map_err(|e| format!("cannot start `{}`: {e}", chromium.display()))?;
    let dom = String::from_utf8_lossy(&output.stdout).into_owned();
    if !dom.contains("</html>") {
        return Err(format!("`{page}`: chromium dumped no page"));
    }
    if dom.contains(PROBE_MARK) {
        return Err(format!("`{page}`: the probe ran, so scripts were on"));
    }
    Ok(dom)
}

/// What the probe writes into a page it ran in.
const PROBE_MARK: &str = "<pre id=\"book-check-probe\"";

/// The widget names of the blocks in `html` (`data-widget="…"`), in order.
pub fn widgets_in(html: &str) -> Vec<String> {
    html.match_indices("class=\"gpu-widget\" data-widget=\"")
        .filter_map(|(at, mark)| {
            let rest = &html[at + mark.len()..];
            rest.find('"').map(|end| rest[..end].to_string())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::browser::PROBE;

    #[test]
    fn finds_the_widgets_of_a_page_and_the_median() {
        let html = r#"<div class="gpu-widget" data-widget="streams"></div><div class="gpu-widget" data-widget="graphs">"#;
        assert_eq!(widgets_in(html), ["streams", "graphs"]);
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert!(PROBE.contains("book-check-probe"));
    }
}
