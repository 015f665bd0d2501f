//! A static file server for a built book on `127.0.0.1`, which the browser
//! tests load pages from (as a reader's static host would serve them, never
//! from `file://`).
//!
//! Every HTML page gets [`crate::browser::PROBE`] at the top of its
//! `<head>`, then the extra script a test set with [`Server::set_script`].
//! The server remembers the paths it served and the ones it did not have,
//! and keeps the body of every `POST /__book-check/report`: how a script in
//! the page reports back to the test.

use crate::browser::PROBE;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Where a page posts its report.
pub const REPORT_PATH: &str = "/__book-check/report";

/// A static file server for a built book, on a free port of `127.0.0.1`.
pub struct Server {
    /// The folder served.
    pub(crate) root: PathBuf,
    /// `http://127.0.0.1:PORT`.
    origin: String,
    /// What the server saw, shared with its threads.
    log: Arc<Mutex<Log>>,
}

/// What the server saw, and the script it adds to pages.
#[derive(Default)]
struct Log {
    /// Paths requested that the folder does not have.
    misses: Vec<String>,
    /// Paths served.
    served: Vec<String>,
    /// Bodies posted to [`REPORT_PATH`].
    reports: Vec<String>,
    /// Inserted into every HTML page after the probe.
    script: String,
    /// Whether pages are served with a policy that runs no script at all.
    no_scripts: bool,
}

impl Server {
    /// Serves `root` until the process ends.
    pub fn start(root: &Path) -> std::io::Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let origin = format!("http://{}", listener.local_addr()?);
        let log = Arc::new(Mutex::new(Log::default()));
        let (dir, shared) = (root.to_path_buf(), Arc::clone(&log));
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (dir, log) = (dir.clone(), Arc::clone(&shared));
                std::thread::spawn(move || serve(stream, &dir, &log));
            }
        });
        Ok(Self {
            root: root.to_path_buf(),
            origin,
            log,
        })
    }

    /// `http://127.0.0.1:PORT`.
    pub fn origin(&self) -> &str {
        &self.origin
    }

    fn log(&self) -> MutexGuard<'_, Log> {
        lock(&self.log)
    }

    /// The requests for missing files since the last call.
    pub(crate) fn take_misses(&self) -> Vec<String> {
        std::mem::take(&mut self.log().misses)
    }

    /// The paths served since the last call.
    pub fn take_served(&self) -> Vec<String> {
        std::mem::take(&mut self.log().served)
    }

    /// Adds `script` (HTML: `<script>…</script>`) to every page served from
    /// now on, after the probe; an empty string adds nothing.
    pub fn set_script(&self, script: &str) {
        self.log().script = script.to_string();
    }

    /// From now on, serves every page with `Content-Security-Policy:
    /// script-src 'none'` (when `off`): the browser runs none of its scripts,
    /// as for a reader with JavaScript off, while a test can still read the
    /// DOM through the DevTools protocol (`--dump-dom`).
    pub fn set_scripts_off(&self, off: bool) {
        self.log().no_scripts = off;
    }

    /// Forgets the reports posted so far.
    pub fn clear_reports(&self) {
        self.log().reports.clear();
    }

    /// The first report posted since [`Server::clear_reports`], waiting up
    /// to `timeout` for one.
    pub fn wait_report(&self, timeout: Duration) -> Option<String> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(report) = self.log().reports.first() {
                return Some(report.clone());
            }
            if Instant::now() > deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

fn lock(log: &Mutex<Log>) -> MutexGuard<'_, Log> {
    log.lock().unwrap_or_else(|e| e.into_inner())
}

/// The file a request path names under `root`, if it is inside it.
pub(crate) fn file_for(root: &Path, url_path: &str) -> Option<PathBuf> {
    let path = url_path.split(['?', '#']).next().unwrap_or("");
    let mut file = root.to_path_buf();
    for part in path.split('/').filter(|p| !p.is_empty()) {
        if part == ".." || part == "." {
            return None;
        }
        file.push(part);
    }
    if file.is_dir() {
        file.push("index.html");
    }
    file.is_file().then_some(file)
}

/// The `Content-Type` of a file, by extension.
fn content_type(file: &Path) -> &'static str {
    match file.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "css" => "text/css",
        "js" => "text/javascript",
        "wasm" => "application/wasm",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "json" => "application/json",
        "woff" => "font/woff",
        "woff2" => "font/woff2",
        "ttf" => "font/ttf",
        "txt" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

/// One request: its method, its path and its body.
struct Request {
    method: String,
    path: String,
    body: Vec<u8>,
}

/// Reads the request line, the headers (for `Content-Length`) and the body.
fn read_request(stream: &TcpStream) -> Option<Request> {
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let mut words = line.split_whitespace();
    let method = words.next()?.to_string();
    let path = words.next().unwrap_or("/").to_string();
    let mut length = 0;
    let mut header = String::new();
    while reader.read_line(&mut header).is_ok_and(|n| n > 2) {
        let lower = header.to_ascii_lowercase();
        if let Some(value) = lower.strip_prefix("content-length:") {
            length = value.trim().parse().unwrap_or(0);
        }
        header.clear();
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some(Request { method, path, body })
}

/// Answers one request: a report is kept, a file is served (HTML with the
/// probe and the test's script), anything else is a 404.
fn serve(stream: TcpStream, root: &Path, log: &Mutex<Log>) {
    let Some(request) = read_request(&stream) else {
        return;
    };
    let mut policy = "";
    let (status, kind, body) = if request.method == "POST" && request.path == REPORT_PATH {
        let report = String::from_utf8_lossy(&request.body).into_owned();
        lock(log).reports.push(report);
        ("200 OK", "text/plain", b"kept".to_vec())
    } else if let Some(file) = file_for(root, &request.path) {
        let mut body = std::fs::read(&file).unwrap_or_default();
        if file.extension().is_some_and(|e| e == "html") {
            let (script, off) = {
                let log = lock(log);
                (log.script.clone(), log.no_scripts)
            };
            body = with_scripts(&String::from_utf8_lossy(&body), &script).into_bytes();
            if off {
                policy = "Content-Security-Policy: script-src 'none'\r\n";
            }
        }
        lock(log).served.push(request.path);
        ("200 OK", content_type(&file), body)
    } else {
        lock(log).misses.push(request.path);
        ("404 Not Found", "text/plain", b"not found".to_vec())
    };
    let mut out = &stream;
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\n{policy}Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = out
        .write_all(head.as_bytes())
        .and_then(|()| out.write_all(&body));
}

/// `html` with [`PROBE`] right after its `<head>` tag (or first, if none).
pub fn with_probe(html: &str) -> String {
    with_scripts(html, "")
}

/// `html` with [`PROBE`] and then `extra` right after its `<head>` tag.
fn with_scripts(html: &str, extra: &str) -> String {
    match html.to_ascii_lowercase().find("<head") {
        Some(at) => {
            let end = html[at..].find('>').map_or(html.len(), |e| at + e + 1);
            format!("{}{PROBE}{extra}{}", &html[..end], &html[end..])
        }
        None => format!("{PROBE}{extra}{html}"),
    }
}
