//! The chapters' predictions in headless Chromium, driven by a script the
//! server adds to the page ([`DRIVER`]).
//!
//! The test gives the driver a plan: for each prediction of the page, the
//! rounds to play, each a value of its parameter and an answer per part.
//! The driver waits for the page's WebAssembly, then for each round sets
//! the parameter (as a reader does: the `<select>`, then a `change` event),
//! picks the radio buttons, presses the button, and records what the page
//! shows: each part's feedback, whether it is marked right, the verdict,
//! the timeline drawn, the progress box, and how long the run took. It posts
//! all of it ([`PageRun`]), and the test compares it with the native model.

use serde::Deserialize;

/// The driver; `__PLAN__` is replaced by the plan:
/// `{ "ID": [ { "value": "…", "answers": ["…", …] }, … ], … }`.
pub const DRIVER: &str = r#"<script>
(function () {
  var plan = __PLAN__;
  async function ready() {
    for (var waited = 0; waited < 60000; waited += 50) {
      var state = document.documentElement.dataset.gpuWidgets;
      if (state) { return state; }
      await new Promise(function (r) { setTimeout(r, 50); });
    }
    return 'never';
  }
  function play(block, round) {
    var form = block.querySelector('.gpu-prediction-form');
    var select = form.querySelector('select[name="parameter"]');
    select.value = round.value;
    select.dispatchEvent(new Event('change', { bubbles: true }));
    var program = block.querySelector('.gpu-prediction-program code').textContent;
    form.querySelectorAll('input[type="radio"]').forEach(function (r) { r.checked = false; });
    var parts = Array.prototype.map.call(form.querySelectorAll('.gpu-prediction-part'), function (f) { return f.dataset.part; });
    round.answers.forEach(function (value, i) {
      var input = form.querySelector('input[name="part-' + parts[i] + '"][value="' + value + '"]');
      if (!input) { throw new Error(block.dataset.prediction + ': no option ' + value); }
      input.click();
    });
    var start = performance.now();
    form.querySelector('.gpu-prediction-run').click();
    var says = Array.prototype.map.call(block.querySelectorAll('.gpu-prediction-says'), function (p) {
      return { part: p.dataset.part, correct: p.dataset.correct === 'true', right: p.dataset.right, text: p.textContent };
    });
    var svg = block.querySelector('.gpu-prediction-result .gpu-widget-svg svg');
    if (svg) { svg.getBoundingClientRect(); }
    var ms = performance.now() - start;
    var box = document.querySelector('.gpu-prediction-progress');
    return {
      value: round.value, program: program, says: says, ms: ms,
      verdict: block.querySelector('.gpu-prediction-verdict').textContent,
      report: block.querySelector('.gpu-prediction-result .gpu-widget-report').textContent,
      numbers: Array.prototype.map.call(block.querySelectorAll('.gpu-prediction-result .gpu-widget-numbers > div'), function (d) {
        return [d.querySelector('dt').textContent, d.querySelector('dd').textContent];
      }),
      shown: !block.querySelector('.gpu-prediction-result').hidden,
      svg: svg ? svg.outerHTML.length : 0,
      progress: box ? box.textContent : '',
    };
  }
  async function run() {
    var report = { state: await ready(), predictions: [], problems: [], stored: '' };
    try {
      var blocks = document.querySelectorAll('.gpu-prediction[data-prediction]');
      for (var i = 0; i < blocks.length; i++) {
        var id = blocks[i].dataset.prediction;
        var rounds = plan[id];
        if (!rounds) { throw new Error('the plan has no rounds for prediction ' + id); }
        report.predictions.push({ id: id, live: blocks[i].classList.contains('gpu-prediction--live'), rounds: rounds.map(function (r) { return play(blocks[i], r); }) });
      }
      report.stored = window.localStorage.getItem('gpu-runtime-workbook.predictions') || '';
    } catch (e) {
      report.problems.push('the driver failed: ' + e);
    }
    await fetch('/__book-check/report', { method: 'POST', body: JSON.stringify(report) });
  }
  window.addEventListener('load', function () { setTimeout(run, 400); });
})();
</script>"#;

/// What the driver found on one page.
#[derive(Clone, Debug, Deserialize)]
pub struct PageRun {
    /// `ready` when the WebAssembly loaded, `failed` or `never` otherwise.
    pub state: String,
    /// Each prediction of the page, in page order.
    pub predictions: Vec<Played>,
    /// The driver's own failures.
    pub problems: Vec<String>,
    /// The progress kept in localStorage at the end, as stored.
    pub stored: String,
}

/// One prediction and its rounds.
#[derive(Clone, Debug, Deserialize)]
pub struct Played {
    /// Its id.
    pub id: String,
    /// Whether it went live.
    pub live: bool,
    /// Each round, in the plan's order.
    pub rounds: Vec<Round>,
}

/// What the page showed after one answer.
#[derive(Clone, Debug, Deserialize)]
pub struct Round {
    /// The parameter's value.
    pub value: String,
    /// The program shown for it.
    pub program: String,
    /// Each part's feedback.
    pub says: Vec<Says>,
    /// The verdict line.
    pub verdict: String,
    /// The run's report (a race, a capture's errors), empty when none.
    pub report: String,
    /// The run's numbers in the page: (label, value).
    pub numbers: Vec<(String, String)>,
    /// Whether the result (timeline and feedback) shows.
    pub shown: bool,
    /// The length of the timeline's SVG in the page (0: none).
    pub svg: usize,
    /// The progress box's text.
    pub progress: String,
    /// From the button to the timeline laid out, ms.
    pub ms: f64,
}

/// One part's feedback in the page.
#[derive(Clone, Debug, Deserialize)]
pub struct Says {
    /// The part's name.
    pub part: String,
    /// Whether the page marks it right.
    pub correct: bool,
    /// The option the page says is right.
    pub right: String,
    /// The sentence, as the page shows it.
    pub text: String,
}

/// The prediction ids of the blocks in `html` (`data-prediction="…"`), in order.
pub fn predictions_in(html: &str) -> Vec<String> {
    html.match_indices("class=\"gpu-prediction\" data-prediction=\"")
        .filter_map(|(at, mark)| {
            let rest = &html[at + mark.len()..];
            rest.find('"').map(|end| rest[..end].to_string())
        })
        .collect()
}
