//! The rendered book in a real browser: headless Chromium, driven with
//! `--dump-dom`, and a probe script the page serves itself.
//!
//! [`Server`] ([`crate::server`]) serves a built book from `127.0.0.1` and inserts [`PROBE`] at
//! the top of every HTML page's `<head>`, before any of the page's own
//! scripts, so that the probe sees everything: it records uncaught errors,
//! unhandled promise rejections, `console.error` calls and every element
//! whose resource failed to load (an `error` event in the capture phase). On
//! `load` (and a moment after, for late errors) it also records every image
//! that is not complete or has no pixels, mdBook directives left in the
//! page's text (`{{#include` shown to the reader), every table whose right
//! edge passes the text column's (or the window's) and a page that scrolls
//! sideways, in a window [`WIDTH`] pixels wide, and writes all of it as
//! JSON into `<pre id="book-check-probe">`. [`probe`] runs Chromium with
//! `--dump-dom`, reads that element back, and adds what the server saw: any
//! request for a file the book does not have (a 404), and any link of the
//! page into the book whose file or `#fragment` is not there. A page whose
//! probe never reports (a script that broke the page, a load that never
//! ends) is a problem too.

use crate::server::file_for;
pub use crate::server::{Server, with_probe};
use serde_json::Value;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;
use wait_timeout::ChildExt;

/// The script inserted into every page; it reports into `#book-check-probe`.
pub const PROBE: &str = r#"<script>
(function () {
  var problems = [];
  var say = function (text) { problems.push(String(text)); };
  window.addEventListener('error', function (e) {
    var t = e.target;
    if (t && t !== window && (t.src || t.href)) {
      say('failed to load: ' + (t.currentSrc || t.src || t.href));
    } else {
      say('uncaught error: ' + e.message + ' (' + (e.filename || '?') + ':' + (e.lineno || '?') + ')');
    }
  }, true);
  window.addEventListener('unhandledrejection', function (e) { say('unhandled rejection: ' + e.reason); });
  var original = console.error;
  console.error = function () {
    say('console error: ' + Array.prototype.map.call(arguments, String).join(' '));
    return original.apply(console, arguments);
  };
  window.addEventListener('load', function () {
    setTimeout(function () {
      var images = document.querySelectorAll('img');
      var loaded = 0;
      images.forEach(function (img) {
        if (img.complete && img.naturalWidth > 0) { loaded += 1; }
        else { say('image did not load: ' + img.getAttribute('src')); }
      });
      var text = document.body ? document.body.innerText : '';
      ['{{#include', '{{#rustdoc_include', '{{#playground'].forEach(function (d) {
        if (text.indexOf(d) >= 0) { say('unresolved mdBook directive in the page: ' + d); }
      });
      var column = document.querySelector('.content main') || document.body;
      var edge = Math.min(column.getBoundingClientRect().right, document.documentElement.clientWidth);
      document.querySelectorAll('table').forEach(function (table) {
        var over = Math.round(table.getBoundingClientRect().right - edge);
        if (over > 1) {
          var head = table.querySelector('th, td');
          say('a table overflows the text column at ' + window.innerWidth + ' px wide by ' + over +
              ' px (its first cell: "' + (head ? head.textContent.trim().slice(0, 40) : '') + '")');
        }
      });
      if (document.documentElement.scrollWidth > document.documentElement.clientWidth + 1) {
        say('the page scrolls sideways at ' + window.innerWidth + ' px wide: ' +
            document.documentElement.scrollWidth + ' px of content');
      }
      var links = Array.prototype.map.call(document.querySelectorAll('a[href]'), function (a) { return a.href; });
      var out = document.createElement('pre');
      out.id = 'book-check-probe';
      out.hidden = true;
      out.textContent = JSON.stringify({ problems: problems, images: loaded, links: links });
      document.body.appendChild(out);
    }, 200);
  });
})();
</script>"#;

/// The Chromium binary: `$CHROMIUM`, else `chromium` or `chromium-browser` on `PATH`.
pub fn chromium() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("CHROMIUM") {
        return Some(PathBuf::from(path));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| ["chromium", "chromium-browser"].map(|name| dir.join(name)))
        .find(|candidate| candidate.is_file())
}

/// What the probe found on one page.
#[derive(Clone, Debug, Default)]
pub struct PageReport {
    /// Everything wrong with the page; empty when it is sound.
    pub problems: Vec<String>,
    /// How many images loaded and have pixels.
    pub images: usize,
}

/// Loads `page` (a path under the server's root, such as `allocator.html`)
/// in headless Chromium and reports what is wrong with it.
pub fn probe(chromium: &Path, server: &Server, page: &str) -> Result<PageReport, String> {
    server.take_misses();
    let profile = std::env::temp_dir().join(format!(
        "book-check-chromium-{}-{}",
        std::process::id(),
        page.replace(['/', '.'], "-")
    ));
    let _ = std::fs::remove_dir_all(&profile);
    fs_err::create_dir_all(&profile).map_err(|e| e.to_string())?;
    let url = format!("{}/{page}", server.origin());
    let dom = run_chromium(chromium, &profile, &url)?;
    let _ = std::fs::remove_dir_all(&profile);
    let mut report = match probe_json(&dom) {
        Some(json) => read_probe(&json),
        None => PageReport {
            problems: vec![
                "the probe never reported: the page did not finish loading, or a script broke it"
                    .into(),
            ],
            images: 0,
        },
    };
    for miss in server.take_misses() {
        report.problems.push(format!(
            "requested `{miss}`, which the book does not have (404)"
        ));
    }
    let links = probe_json(&dom)
        .and_then(|j| serde_json::from_str::<Value>(&j).ok())
        .and_then(|v| v["links"].as_array().cloned())
        .unwrap_or_default();
    for link in links.iter().filter_map(Value::as_str) {
        report.problems.extend(check_link(server, link));
    }
    Ok(report)
}

/// Chromium's flags for a headless run of the tests: no sandbox (the tests
/// may run as root), no GPU, nothing fetched from the network on its own.
pub const HEADLESS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
];

/// The width of the window every page is probed in: a laptop's, the
/// narrowest a reader of the book's wide tables is likely to have.
pub const WIDTH: u32 = 1280;

/// Runs Chromium on `url` and returns the DOM it dumped.
fn run_chromium(chromium: &Path, profile: &Path, url: &str) -> Result<String, String> {
    let mut child = Command::new(chromium)
        .args(HEADLESS)
        .args(["--virtual-time-budget=5000", "--dump-dom"])
        .arg(format!("--window-size={WIDTH},1000"))
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(url)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start `{}`: {e}", chromium.display()))?;
    let mut stdout = child.stdout.take().ok_or("chromium has no stdout")?;
    let reader = std::thread::spawn(move || {
        let mut dom = String::new();
        let _ = stdout.read_to_string(&mut dom);
        dom
    });
    let ended = child
        .wait_timeout(Duration::from_secs(60))
        .map_err(|e| e.to_string())?;
    if ended.is_none() {
        let _ = child.kill();
        let _ = child.wait();
        return Err(format!(
            "chromium did not finish loading `{url}` within 60 s"
        ));
    }
    reader
        .join()
        .map_err(|_| "chromium's output could not be read".to_string())
}

/// The probe's JSON in a dumped DOM, unescaped.
fn probe_json(dom: &str) -> Option<String> {
    let tag = dom.find("<pre id=\"book-check-probe\"")?;
    let start = tag + dom[tag..].find('>')? + 1;
    let end = start + dom[start..].find("</pre>")?;
    Some(
        dom[start..end]
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&quot;", "\"")
            .replace("&nbsp;", "\u{a0}")
            .replace("&amp;", "&"),
    )
}

/// The probe's own findings.
fn read_probe(json: &str) -> PageReport {
    let Ok(value) = serde_json::from_str::<Value>(json) else {
        return PageReport {
            problems: vec![format!("the probe's report is not JSON: {json}")],
            images: 0,
        };
    };
    PageReport {
        problems: value["problems"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        images: value["images"].as_u64().unwrap_or(0) as usize,
    }
}

/// A link of a page into the served book whose file or fragment is missing.
fn check_link(server: &Server, link: &str) -> Option<String> {
    let path = link.strip_prefix(server.origin())?;
    let (path, fragment) = path.split_once('#').unwrap_or((path, ""));
    let Some(file) = file_for(&server.root, path) else {
        return Some(format!("dead link `{link}`: the book has no such page"));
    };
    if fragment.is_empty() || file.extension().is_none_or(|e| e != "html") {
        return None;
    }
    let html = std::fs::read_to_string(&file).unwrap_or_default();
    let found =
        html.contains(&format!("id=\"{fragment}\"")) || html.contains(&format!("id='{fragment}'"));
    (!found).then(|| format!("dead link `{link}`: the page has no element with id `{fragment}`"))
}

/// Takes a PNG screenshot of `page` (for a person to look at).
pub fn screenshot(chromium: &Path, server: &Server, page: &str, png: &Path) -> Result<(), String> {
    let profile = std::env::temp_dir().join(format!("book-check-shot-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&profile);
    let status = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--hide-scrollbars",
        ])
        .arg(format!("--window-size={WIDTH},2400"))
        .arg("--virtual-time-budget=3000")
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--screenshot={}", png.display()))
        .arg(format!("{}/{page}", server.origin()))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map_err(|e| format!("cannot start `{}`: {e}", chromium.display()))?;
    let _ = std::fs::remove_dir_all(&profile);
    status
        .success()
        .then_some(())
        .ok_or_else(|| format!("chromium could not take a screenshot of `{page}`"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_probe_with_or_without_attributes() {
        let plain = r#"<body><pre id="book-check-probe">{"a":"&lt;b&gt; &amp; &quot;c&quot;"}</pre></body>"#;
        assert_eq!(probe_json(plain).unwrap(), r#"{"a":"<b> & "c""}"#);
        let hidden = r#"<pre id="book-check-probe" hidden="">{"problems":[]}</pre>"#;
        assert_eq!(probe_json(hidden).unwrap(), r#"{"problems":[]}"#);
        assert!(probe_json("<pre>nothing</pre>").is_none());
    }

    #[test]
    fn puts_the_probe_first_in_the_head() {
        let page = with_probe("<html><head lang=\"en\"><script>x()</script></head></html>");
        let probe_at = page.find("book-check-probe").unwrap();
        assert!(page.starts_with("<html><head lang=\"en\"><script>"));
        assert!(probe_at < page.find("x()").unwrap());
    }
}
