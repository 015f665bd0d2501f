// The book's live timelines (the `workbook-widgets` crate, compiled to
// WebAssembly by `widgets/build` into `chapters/widgets/`).
//
// A chapter marks a widget with `<div class="gpu-widget" data-widget="NAME">`
// right after the static figure it brings to life (or with the figure inside
// it). Without JavaScript, or before the WebAssembly has loaded, the reader
// sees that figure. Once it has loaded, this script builds the widget's
// controls from its spec, hides the static figure, draws the same scenario
// (at the defaults, the same bytes as the figure) and redraws on every
// change. `document.documentElement.dataset.gpuWidgets` says how it went:
// "ready" or "failed".
//
// A chapter's predictions (`<div class="gpu-prediction" data-prediction="ID">`,
// included from chapters/generated/predictions/) read, without JavaScript,
// as a question with its answer folded. Live, each gets its parameter, a
// choice per part of the answer and a button: the WebAssembly runs the
// program on the virtual GPU (`prediction_check`), and the page shows the
// timeline and, part by part, what the model says and why. What the reader
// answered is kept in localStorage (PROGRESS_KEY) and counted in a box at
// the top of the chapter.
(function () {
  'use strict';

  var blocks = Array.prototype.slice.call(document.querySelectorAll('.gpu-widget[data-widget]'));
  var predictions = Array.prototype.slice.call(document.querySelectorAll('.gpu-prediction[data-prediction]'));
  if (!blocks.length && !predictions.length) {
    return;
  }
  var PROGRESS_KEY = 'gpu-runtime-workbook.predictions';
  var root = typeof path_to_root === 'string' ? path_to_root : '';
  var base = new URL(root + 'widgets/', document.baseURI);

  function element(tag, className, text) {
    var node = document.createElement(tag);
    if (className) { node.className = className; }
    if (text !== undefined) { node.textContent = text; }
    return node;
  }

  // The static figure a widget replaces on screen (print keeps it): inside
  // the block, else the element just before it.
  function staticFigure(block, file) {
    var inside = block.querySelector('img');
    if (inside) { return inside; }
    var before = block.previousElementSibling;
    var img = before && before.querySelector('img[src$="figures/' + file + '"]');
    return img ? before : null;
  }

  // One control: its label (with the input in it), and how to read and set
  // its value.
  function control(spec, onChange) {
    var label = element('label', 'gpu-widget-control gpu-widget-' + spec.kind);
    label.appendChild(element('span', 'gpu-widget-label', spec.label));
    var input;
    var shown = element('output', 'gpu-widget-value');
    var show = function () {};
    var flag = spec.kind === 'flag';
    if (spec.kind === 'range') {
      input = element('input');
      input.type = 'range';
      input.min = spec.min; input.max = spec.max; input.step = spec.step;
      show = function () { shown.textContent = input.value + (spec.unit ? ' ' + spec.unit : ''); };
      input.addEventListener('input', show);
    } else if (spec.kind === 'choice') {
      input = element('select');
      spec.options.forEach(function (o) {
        var option = element('option', null, o.label);
        option.value = o.value;
        input.appendChild(option);
      });
    } else if (flag) {
      input = element('input');
      input.type = 'checkbox';
    } else {
      input = element('textarea');
      input.rows = spec.rows;
      input.spellcheck = false;
    }
    input.name = spec.name;
    if (flag) { label.insertBefore(input, label.firstChild); } else { label.appendChild(input); }
    if (spec.kind === 'range') { label.appendChild(shown); }
    input.addEventListener(spec.kind === 'range' || spec.kind === 'text' ? 'input' : 'change', onChange);
    var c = {
      name: spec.name,
      label: label,
      read: function () {
        if (flag) { return input.checked; }
        return spec.kind === 'range' ? Number(input.value) : input.value;
      },
      set: function (value) {
        if (flag) { input.checked = value; } else { input.value = value; }
        show();
      },
    };
    c.set(spec.default);
    return c;
  }

  function showNumbers(list, numbers) {
    list.textContent = '';
    numbers.forEach(function (n) {
      var row = element('div');
      row.appendChild(element('dt', null, n.label));
      row.appendChild(element('dd', null, n.value));
      list.appendChild(row);
    });
  }

  function start(wasm, block) {
    var name = block.dataset.widget;
    var spec = JSON.parse(wasm.widget_spec(name));
    var figure = staticFigure(block, spec.figure);
    block.dataset.figure = spec.figure;
    var live = element('div', 'gpu-widget-live');
    var form = element('form', 'gpu-widget-controls');
    var picture = element('div', 'gpu-widget-svg');
    var numbers = element('dl', 'gpu-widget-numbers');
    var report = element('pre', 'gpu-widget-report');
    var controls = [];
    function redraw() {
      var values = {};
      controls.forEach(function (c) { values[c.name] = c.read(); });
      var started = performance.now();
      try {
        var view = JSON.parse(wasm.widget_render(name, JSON.stringify(values)));
        picture.innerHTML = view.svg;
        showNumbers(numbers, view.numbers);
        report.textContent = view.report;
        report.hidden = !view.report;
        report.classList.remove('gpu-widget-error');
        block.gpuWidgetView = view;
      } catch (e) {
        report.textContent = String(e && e.message ? e.message : e);
        report.hidden = false;
        report.classList.add('gpu-widget-error');
      }
      block.dataset.renderMs = (performance.now() - started).toFixed(1);
    }
    spec.controls.forEach(function (s) {
      var c = control(s, redraw);
      controls.push(c);
      form.appendChild(c.label);
    });
    var again = element('button', 'gpu-widget-reset', 'Back to the figure');
    again.type = 'button';
    again.addEventListener('click', function () {
      spec.controls.forEach(function (s, i) { controls[i].set(s.default); });
      redraw();
    });
    form.appendChild(again);
    form.addEventListener('submit', function (e) { e.preventDefault(); });
    live.appendChild(form);
    live.appendChild(picture);
    live.appendChild(numbers);
    live.appendChild(report);
    redraw();
    if (figure) { figure.classList.add('gpu-widget-static'); }
    block.insertBefore(live, block.firstChild);
    block.classList.add('gpu-widget--live');
  }

  // `text` into `node`, each `quoted` run as <code> (the model's sentences
  // name calls that way).
  function inline(node, text) {
    String(text).split('`').forEach(function (piece, i) {
      if (!piece) { return; }
      node.appendChild(i % 2 ? element('code', null, piece) : document.createTextNode(piece));
    });
    return node;
  }

  // What the reader answered, by prediction: { id: { right: bool } }.
  function progress() {
    try {
      return JSON.parse(window.localStorage.getItem(PROGRESS_KEY) || '{}') || {};
    } catch (e) {
      return {};
    }
  }

  function remember(id, right) {
    var all = progress();
    all[id] = { right: right };
    try { window.localStorage.setItem(PROGRESS_KEY, JSON.stringify(all)); } catch (e) { /* private mode */ }
  }

  // The box at the top of the chapter: answered and right, of this page's predictions.
  function showProgress(box) {
    var all = progress();
    var answered = 0, right = 0;
    predictions.forEach(function (p) {
      var seen = all[p.dataset.prediction];
      if (seen) { answered += 1; if (seen.right) { right += 1; } }
    });
    box.dataset.answered = answered;
    box.dataset.right = right;
    box.dataset.total = predictions.length;
    box.textContent = 'Predictions in this chapter: ' + answered + ' of ' + predictions.length +
      ' answered, ' + right + ' right';
  }

  function startPrediction(wasm, block, box) {
    var id = block.dataset.prediction;
    var spec = JSON.parse(wasm.prediction_spec(id));
    var code = block.querySelector('.gpu-prediction-program code');
    var form = element('form', 'gpu-prediction-form');
    var param = element('select');
    param.name = 'parameter';
    spec.parameter.options.forEach(function (o, i) {
      var option = element('option', null, o.label);
      option.value = o.value;
      param.appendChild(option);
      option.dataset.program = spec.programs[i];
    });
    var paramLabel = element('label', 'gpu-prediction-parameter');
    paramLabel.appendChild(element('span', null, spec.parameter.label + ' '));
    paramLabel.appendChild(param);
    form.appendChild(paramLabel);
    var result = element('div', 'gpu-prediction-result');
    result.hidden = true;
    param.addEventListener('change', function () {
      if (code) {
        code.textContent = spec.programs[param.selectedIndex];
        if (window.hljs && window.hljs.highlightBlock) {
          try { window.hljs.highlightBlock(code); } catch (e) { /* plain text is fine */ }
        }
      }
      result.hidden = true;
    });
    spec.parts.forEach(function (part) {
      var set = element('fieldset', 'gpu-prediction-part');
      set.dataset.part = part.name;
      set.appendChild(inline(element('legend'), part.question));
      part.options.forEach(function (o) {
        var label = element('label', 'gpu-prediction-option');
        var input = element('input');
        input.type = 'radio';
        input.name = 'part-' + part.name;
        input.value = o.value;
        label.appendChild(input);
        inline(label, ' ' + o.label);
        set.appendChild(label);
      });
      form.appendChild(set);
    });
    var run = element('button', 'gpu-prediction-run', 'Run it on the virtual GPU');
    run.type = 'submit';
    form.appendChild(run);
    var verdict = element('p', 'gpu-prediction-verdict');
    var feedback = element('div', 'gpu-prediction-feedback');
    var picture = element('div', 'gpu-widget-svg');
    var numbers = element('dl', 'gpu-widget-numbers');
    var report = element('pre', 'gpu-widget-report');
    result.appendChild(verdict);
    result.appendChild(feedback);
    result.appendChild(picture);
    result.appendChild(numbers);
    result.appendChild(report);
    form.addEventListener('submit', function (e) {
      e.preventDefault();
      var answers = spec.parts.map(function (part) {
        var chosen = form.querySelector('input[name="part-' + part.name + '"]:checked');
        return chosen ? chosen.value : '';
      });
      var checked;
      try {
        checked = JSON.parse(wasm.prediction_check(id, param.value, JSON.stringify(answers)));
      } catch (err) {
        verdict.textContent = String(err && err.message ? err.message : err);
        result.hidden = false;
        return;
      }
      verdict.textContent = checked.correct
        ? 'Your prediction is right.'
        : 'Your prediction is not what the GPU does:';
      verdict.dataset.correct = checked.correct;
      feedback.textContent = '';
      checked.parts.forEach(function (p) {
        var line = inline(element('p', 'gpu-prediction-says'), p.feedback);
        line.dataset.part = p.name;
        line.dataset.correct = p.correct;
        line.dataset.right = p.right;
        feedback.appendChild(line);
      });
      picture.innerHTML = checked.view.svg;
      showNumbers(numbers, checked.view.numbers);
      report.textContent = checked.view.report;
      report.hidden = !checked.view.report;
      result.hidden = false;
      block.gpuPredictionChecked = checked;
      remember(id, checked.correct);
      showProgress(box);
    });
    block.appendChild(form);
    block.appendChild(result);
    block.classList.add('gpu-prediction--live');
  }

  // The progress box, at the top of the chapter's text.
  function progressBox() {
    var box = element('aside', 'gpu-prediction-progress');
    var main = document.querySelector('main') || document.body;
    main.insertBefore(box, main.firstChild);
    showProgress(box);
    return box;
  }

  function done(state) {
    document.documentElement.dataset.gpuWidgets = state;
    document.dispatchEvent(new CustomEvent('gpu-widgets', { detail: state }));
  }

  import(new URL('workbook_widgets.js', base).href)
    .then(function (wasm) {
      return wasm.default({ module_or_path: new URL('workbook_widgets_bg.wasm', base) })
        .then(function () { return wasm; });
    })
    .then(function (wasm) {
      blocks.forEach(function (block) { start(wasm, block); });
      if (predictions.length) {
        var box = progressBox();
        predictions.forEach(function (block) { startPrediction(wasm, block, box); });
      }
      done('ready');
    })
    .catch(function (e) {
      done('failed');
      console.error('the live timelines did not load: ' + e);
    });
})();
