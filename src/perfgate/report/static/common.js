// Shared helpers of the trend pages.  Data arrive as globals set by small data files loaded with
// <script> (works from file://, where fetch() of local files is refused).  Every name from the
// data is put in the page as text (textContent) or escaped, never parsed as HTML.
"use strict";
var PG = (function () {
  function esc(s) {
    return String(s == null ? "" : s).replace(/[&<>"']/g, function (c) {
      return {"&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;"}[c];
    });
  }
  // el("td", {class: "num"}, "text", childNode, ...): attributes and text never go through innerHTML.
  function el(tag, attrs) {
    var e = document.createElement(tag);
    for (var k in attrs || {}) {
      if (attrs[k] == null || attrs[k] === false) continue;
      if (k === "text") e.textContent = attrs[k]; else e.setAttribute(k, attrs[k]);
    }
    for (var i = 2; i < arguments.length; i++) {
      var c = arguments[i];
      if (c == null) continue;
      e.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
    }
    return e;
  }
  // A name that may wrap only after its separators (/ , = : _ .), never inside a number: the
  // index wrapped "objects=4" / "000".  Text nodes and <wbr>, so a copied name stays the name.
  function breakable(text) {
    var frag = document.createDocumentFragment();
    String(text).split(/(?<=[\/,=:_.])/).forEach(function (part, i) {
      if (i) frag.appendChild(document.createElement("wbr"));
      frag.appendChild(document.createTextNode(part));
    });
    return frag;
  }
  // A model's text (``30.1 ns⋅o + 0.09 ns⋅(o − 4,028)₊²``) that wraps only between its terms:
  // each term a nowrap span (CSS .term), the sign kept with its term.  A squeezed table column cut
  // formulas mid-number ("4," / "028").  The split is at " + " or " - " outside parentheses.
  function formula(text) {
    var frag = document.createDocumentFragment();
    String(text).split(/ (?=[+-] (?![^(]*\)))/).forEach(function (term, i) {
      if (i) frag.appendChild(document.createTextNode(" "));
      frag.appendChild(el("span", {class: "term", text: term}));
    });
    return frag;
  }
  // The charts' layout under and above the plot (benchmark and sweep pages): top to bottom under
  // it, tick labels, the axis' name, the zoom slider, each clear of the next (with the grid 70 px
  // up and the slider 10 px up, the name sat on the slider); the legend's right padding leaves the
  // toolbox's three buttons (about 75 px) and a gap, so its pager's arrows do not touch them
  // (ECharts keeps one of a legend's left and right).
  var CHART = {gridBottom: 92, nameGap: 30,
               slider: {type: "slider", xAxisIndex: 0, filterMode: "none", bottom: 8, height: 24},
               legend: {type: "scroll", top: 4, left: 10, padding: [5, 124, 5, 5]}};
  var SCALES = {
    time: [[1e9, "s"], [1e6, "ms"], [1e3, "µs"], [1, "ns"]],
    bytes: [[Math.pow(1024, 3), "GiB"], [Math.pow(1024, 2), "MiB"], [1024, "KiB"], [1, "B"]],
    count: [[1e9, "G"], [1e6, "M"], [1e3, "k"], [1, ""]]
  };
  // Where a number's first digit is, as perfgate.units._digits: 3 for 123, 1 for 1 (and 0), 0 for
  // 0.5, -1 for 0.05 (a cost per object² of 0.0974 ns has its digits after the zeros).
  function lead(x) {
    return Math.abs(x) >= 1 || !x ? String(Math.trunc(Math.abs(x))).length : Math.floor(Math.log10(Math.abs(x))) + 1;
  }
  // Mirrors perfgate.units.human: three significant digits, at least the integer part.
  // ``sig``: significant digits (3, as perfgate.units.human, unless an axis needs more)
  // ``per``: a rate's unit, scale_of's (perfgate.units.rate_unit: "ops/s", "items/s")
  function human(v, scale, sig, per) {
    if (v == null || !isFinite(v)) return "—";
    sig = sig || 3;
    if (scale === "rate") return human(v, "count", sig) + " " + (per || "ops/s");   // as perfgate.units.human for rates
    var steps = SCALES[scale] || SCALES.count;
    // past a million of the largest unit or under a thousandth of the smallest: scientific
    // notation of the smallest, its exponent in two digits at least ("7.00e+20 ns"), as
    // perfgate.units.human (this wrote 700000000000 s)
    if (v && !(Math.abs(v) >= 1e-3 && Math.abs(v) < 1e6 * steps[0][0])) {
      var sci = v.toExponential(sig - 1).replace(/e([+-])(\d)$/, function (_, sign, d) { return "e" + sign + "0" + d; });
      return (sci + " " + steps[steps.length - 1][1]).trim();
    }
    for (var i = 0; i < steps.length; i++) {
      var f = steps[i][0], unit = steps[i][1];
      if (Math.abs(v) >= f || f === 1) {
        var x = v / f, whole = lead(x);
        var digits = (unit === "" || unit === "B" || unit === "ns") && Number.isInteger(x) ? 0 : Math.max(sig - whole, 0);
        var text = x.toFixed(digits);
        // 9.997 rounds to "10.00": one digit fewer, "10.0", as perfgate.units.human
        if (digits > 0 && x && lead(Number(text)) > whole) text = x.toFixed(digits - 1);
        return scale === "count" ? text + unit : text + " " + unit;
      }
    }
    return String(v);
  }
  // A value of a measure as its page data says to write it (perfgate.report.series_data.scale_of
  // for a benchmark page's series, suffix_scale for a sweep's measure): the value times m.factor
  // is in m.scale's smallest unit (total-ns: 1, total-ms: 1e6 ns), as perfgate.units.human reads
  // the unit a measure's name ends in.
  function inUnit(v, m, sig) {
    return v == null || !isFinite(v) ? "—" : human(v * (m.factor || 1), m.scale, sig, m.per);
  }
  // The significant digits an axis over ``values`` needs for its ticks (about a fifth of its
  // span apart) to read apart: 3 wrote 13.9M, 13.9M, 13.8M, 13.8M round a 1.5% step.
  function axisDigits(values) {
    var lo = Infinity, hi = -Infinity;
    values.forEach(function (v) { if (v != null && isFinite(v)) { lo = Math.min(lo, v); hi = Math.max(hi, v); } });
    if (!(hi > lo)) return 3;
    var top = Math.max(Math.abs(lo), Math.abs(hi));
    return Math.min(Math.max(3, Math.floor(Math.log10(top)) - Math.floor(Math.log10((hi - lo) / 5)) + 1), 8);
  }
  // A value axis' ticks at round numbers of the unit its labels are written in: ECharts picks
  // round numbers of the stored unit (bytes, ns, a total-ms's ms), and a peak RSS read 11.44 /
  // 11.73 / 12.02 MiB (steps of 300,000 bytes).  The unit is the one human() writes the largest
  // value in; the step is 1, 2 or 5 times a power of ten of it, about ``most`` of them over the
  // values; each label has the step's decimals (11.5 MiB, 12 MiB).  {min, max, interval} are in
  // the stored unit, as ECharts takes them; null for no values.
  function axisTicks(values, m, most) {
    var lo = Infinity, hi = -Infinity, f = m.factor || 1;
    values.forEach(function (v) { if (v != null && isFinite(v)) { lo = Math.min(lo, v * f); hi = Math.max(hi, v * f); } });
    if (!(hi >= lo)) return null;
    var rate = m.scale === "rate", steps = SCALES[rate ? "count" : m.scale] || SCALES.count;
    var top = Math.max(Math.abs(lo), Math.abs(hi)), unit = steps[steps.length - 1];
    for (var i = 0; i < steps.length; i++) if (top >= steps[i][0]) { unit = steps[i]; break; }
    lo /= unit[0]; hi /= unit[0];
    var span = hi > lo ? hi - lo : Math.abs(hi) / 10 || 1, raw = span / (most || 5);
    var ten = Math.pow(10, Math.floor(Math.log10(raw)));
    var step = [1, 2, 5, 10].map(function (k) { return k * ten; }).filter(function (s) { return s >= raw * (1 - 1e-9); })[0];
    var decimals = Math.min(Math.max(0, -Math.floor(Math.log10(step) + 1e-9)), 20);
    var first = Math.floor(lo / step + 1e-9), last = Math.ceil(hi / step - 1e-9);
    if (last <= first) { first -= 1; last += 1; }
    // in the stored unit, to 12 digits: 28 × 0.05 × 1e9 is 1400000000.0000002, and ECharts drew a
    // tick at 1.4e9 (min + 3 steps) and another at that max
    var k = unit[0] / f, stored = function (x) { return Number((x * k).toPrecision(12)); };
    return {min: stored(first * step), max: stored(last * step), interval: stored(step), label: function (v) {
      var text = String(Number((v / k).toFixed(decimals)));      // "12", not "12.0"; never "-0"
      return rate ? text + unit[1] + " " + (m.per || "ops/s") : m.scale === "count" || !SCALES[m.scale] ? text + unit[1] : text + " " + unit[1];
    }};
  }
  function pct(x, digits) {
    if (x == null || !isFinite(x)) return "—";
    return (x >= 0 ? "+" : "") + (x * 100).toFixed(digits == null ? 1 : digits) + "%";
  }
  // As perfgate.units.confidence_text and p_text: never "confidence 1.0000" nor "p = 0".
  function pText(p) {
    return "p " + (p < 1e-15 ? "< 1e-15" : "= " + Number(p.toPrecision(2)));
  }
  function confidence(p) {
    var c = Math.max(0, 1 - p) * 100;
    return "confidence " + (c >= 99.995 ? "> 99.99%" : c.toFixed(2) + "%") + " (" + pText(p) + ")";
  }
  // As perfgate.units.evidence_text: an interval named with its level ("99% CI [a, b]"; a change
  // point's is at its settings' confidence, a threshold streak's at 95%), "CI" alone when not known.
  function ciText(lo, hi, level) {
    var label = level != null ? Number((level * 100).toFixed(4)) + "% CI" : "CI";
    return label + " [" + pct(lo, 2) + ", " + pct(hi, 2) + "]";
  }
  // An alert's kind as a reader says it ("change_point" is the stored name).
  function kindText(kind) { return String(kind).replace(/_/g, " "); }
  function param(name) { return new URLSearchParams(location.search).get(name); }
  // Page ids are 12 hex digits (see perfgate.report.pages.page_id); anything else is not a page.
  function load(folder, id, done) {
    if (!/^[0-9a-f]{12}$/.test(id || "")) { done(false); return; }
    var s = document.createElement("script");
    s.src = "data/" + folder + "/" + id + ".js";
    s.charset = "utf-8";
    s.onload = function () { done(true); };
    s.onerror = function () { done(false); };
    document.head.appendChild(s);
  }
  function commitUrl(repo, commit) {
    return repo && /^[0-9A-Za-z._-]+$/.test(commit) ? repo + "/commit/" + encodeURIComponent(commit) : "";
  }
  function commitNode(repo, commit, length) {
    var text = length ? String(commit).slice(0, length) : String(commit);
    var url = commitUrl(repo, commit);
    return url ? el("a", {href: url, class: "mono", target: "_blank", rel: "noopener", title: commit, text: text})
               : el("code", {title: commit, text: text});
  }
  // A function that sets chart c's axis ("xAxis", "yAxis") to the custom ticks ticks() gives for
  // what the axis shows now ({values, formatter?, key?}, or null for none), to be called again
  // after each render.  Whether the axis has them is asked of the chart, not remembered: the zoom
  // buttons' restore sets the first option back without them, and ECharts drops a setOption made
  // while it renders; a dropped one is made again once that render is over, a few times at most
  // (a page never spins on it).  key: what else the labels depend on (a date axis's unit).
  function customTicks(c, axis, ticks) {
    var retries = 0, key;
    function has(t) {
      var now = c.getModel().getComponent(axis, 0).get(["axisLabel", "customValues"]);
      return !!now && now.join() === t.values.join() && t.key === key;
    }
    function retick() {
      if (c.isDisposed()) return;
      var t = ticks();
      if (!t) return;
      if (has(t)) { retries = 0; return; }
      key = t.key;
      var label = {customValues: t.values}, option = {};
      if (t.formatter) label.formatter = t.formatter;
      option[axis] = {axisLabel: label, axisTick: {customValues: t.values}};
      c.setOption(option);
      if (has(t)) retries = 0;
      else if (retries++ < 5) setTimeout(retick, 0);
    }
    return retick;
  }
  function notFound(what) {
    var name = document.getElementById("name");
    if (name) name.textContent = "Not found";
    document.title = "Not found · " + document.title;
    var main = document.querySelector("main");
    main.textContent = "";
    main.appendChild(el("p", {class: "none"}, what + " — go back to the ", el("a", {href: "index.html", text: "index"}), "."));
    document.documentElement.dataset.ready = "1";
  }
  return {CHART: CHART, esc: esc, el: el, breakable: breakable, formula: formula, human: human, inUnit: inUnit, axisDigits: axisDigits, axisTicks: axisTicks, pct: pct, ciText: ciText, confidence: confidence, pText: pText, kindText: kindText, param: param, load: load, commitUrl: commitUrl,
          commitNode: commitNode, customTicks: customTicks, notFound: notFound};
})();
