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
(function () {
  'use strict';

  var blocks = Array.prototype.slice.call(document.querySelectorAll('.gpu-widget[data-widget]'));
  if (!blocks.length) {
    return;
  }
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
      done('ready');
    })
    .catch(function (e) {
      done('failed');
      console.error('the live timelines did not load: ' + e);
    });
})();
