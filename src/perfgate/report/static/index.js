// The index: every series' latest state in one sortable, searchable, groupable table.  Only the
// visible rows are built (PAGE at a time), so thousands of series stay fast.
"use strict";
(function () {
  var D = window.PERFGATE_INDEX;
  if (!D) { PG.notFound("The index data (data/index.js) did not load"); return; }
  var PAGE = 200, STATES = ["alert", "regression", "improvement", "stable"];
  var col = {};
  D.columns.forEach(function (c, i) { col[c] = i; });
  var rows = D.rows.map(function (r) {
    var o = {};
    D.columns.forEach(function (c, i) { o[c] = r[i]; });
    o.rank = STATES.indexOf(o.state);
    o.hay = [o.benchmark, o.measure, o.branch, o.testbed, o.suite, o.state].join("\u0000").toLowerCase();
    return o;
  });
  var $ = function (id) { return document.getElementById(id); };
  var state = {q: "", group: "", sort: "rank", dir: 1, shown: PAGE,
               measure: "", branch: "", testbed: "", only: ""};

  function options(select, field) {
    var seen = {};
    rows.forEach(function (r) { seen[r[field]] = (seen[r[field]] || 0) + 1; });
    Object.keys(seen).sort(natural).forEach(function (v) {
      select.appendChild(PG.el("option", {value: v, text: (v || "(none)") + " (" + seen[v] + ")"}));
    });
  }

  // bench_2 before bench_10: names compared as people read numbers in them
  function natural(x, y) { return x.localeCompare(y, undefined, {numeric: true}); }

  function compare(a, b) {
    var k = state.sort, x = a[k], y = b[k];
    if (k === "delta") { x = x == null ? -1 : Math.abs(x); y = y == null ? -1 : Math.abs(y); }
    if (x == null) x = -Infinity; if (y == null) y = -Infinity;
    var c = typeof x === "string" ? natural(x, y) : x - y;
    if (c === 0 && k === "rank") c = (b.delta == null ? 0 : Math.abs(b.delta)) - (a.delta == null ? 0 : Math.abs(a.delta));
    return c * state.dir || natural(a.benchmark, b.benchmark) || natural(a.measure, b.measure);
  }

  function selected() {
    var words = state.q.toLowerCase().split(/\s+/).filter(Boolean);
    var out = rows.filter(function (r) {
      if (state.measure && r.measure !== state.measure) return false;
      if (state.branch && r.branch !== state.branch) return false;
      if (state.testbed && r.testbed !== state.testbed) return false;
      if (state.only && r.state !== state.only) return false;
      for (var i = 0; i < words.length; i++) if (r.hay.indexOf(words[i]) < 0) return false;
      return true;
    });
    out.sort(state.group ? function (a, b) {
      return natural(a[state.group], b[state.group]) || compare(a, b);
    } : compare);
    return out;
  }

  function spark(values, text) {
    var ns = "http://www.w3.org/2000/svg", svg = document.createElementNS(ns, "svg");
    svg.setAttribute("class", "spark"); svg.setAttribute("viewBox", "0 0 120 24");
    svg.setAttribute("role", "img"); svg.setAttribute("aria-label", text);
    var title = document.createElementNS(ns, "title");
    title.textContent = text;
    svg.appendChild(title);
    svg.setAttribute("preserveAspectRatio", "none");
    var pts = [], n = values.length;
    values.forEach(function (v, i) {
      if (v != null) pts.push(((n > 1 ? i / (n - 1) : 0.5) * 118 + 1).toFixed(1) + "," + (22 - v * 0.2).toFixed(1));
    });
    var line = document.createElementNS(ns, "polyline");
    line.setAttribute("points", pts.join(" "));
    svg.appendChild(line);
    return svg;
  }

  function link(r) {
    var q = new URLSearchParams({b: r.page, measure: r.measure, branch: r.branch, testbed: r.testbed});
    return "benchmark.html?" + q.toString();
  }

  function row(r) {
    var delta = r.delta == null ? "—" : PG.pct(r.delta);
    // coloured by the last change's own direction: a series with an open alert may have improved since
    var good = r.delta == null ? "" : r.direction === "improvement" ? "good" : "bad";
    return PG.el("tr", {class: "series-row", "data-state": r.state},
      PG.el("td", {}, PG.el("span", {class: "state " + r.state, text: r.state + (r.alerts ? " (" + r.alerts + ")" : "")})),
      PG.el("td", {class: "name"}, PG.el("a", {href: link(r), class: "bench"}, PG.breakable(r.benchmark))),
      PG.el("td", {}, PG.breakable(r.measure)),      // names wrap after / _ . (the table fits 1280 px)
      PG.el("td", {}, PG.breakable(r.branch)),
      PG.el("td", {class: "nowrap", text: r.testbed}),
      PG.el("td", {}, spark(r.spark, r.spark_text)),
      PG.el("td", {class: "num", text: r.latest_text}),
      PG.el("td", {class: "num " + good, title: r.delta_commit ? "since " + r.delta_commit : null, text: delta}),
      PG.el("td", {class: "num", text: r.cv == null ? "—" : (r.cv * 100).toFixed(1) + "%"}),
      PG.el("td", {class: "num", text: String(r.runs)}),
      PG.el("td", {}, PG.commitNode(D.repo_url, r.latest_commit, 10)));
  }

  function render() {
    var list = selected(), body = $("rows"), frag = document.createDocumentFragment(), last = null;
    var counts = {};
    if (state.group) list.forEach(function (r) { counts[r[state.group]] = (counts[r[state.group]] || 0) + 1; });
    list.slice(0, state.shown).forEach(function (r) {
      if (state.group && r[state.group] !== last) {
        last = r[state.group];
        frag.appendChild(PG.el("tr", {class: "group"}, PG.el("td", {colspan: "11",
          text: state.group + ": " + (last || "(none)") + " — " + counts[last] + " series"})));
      }
      frag.appendChild(row(r));
    });
    if (!list.length) {
      frag.appendChild(PG.el("tr", {}, PG.el("td", {colspan: "11", class: "muted",
        text: rows.length ? "No series matches these filters." : "No series recorded yet: ingest runs, then build the pages again."})));
    }
    body.textContent = "";
    body.appendChild(frag);
    $("count").textContent = Math.min(state.shown, list.length) + " of " + list.length + " series shown" +
      (list.length < rows.length ? " (" + rows.length + " in all)" : "");
    $("more").hidden = list.length <= state.shown;
    document.querySelectorAll("th.sortable").forEach(function (th) {
      th.setAttribute("aria-sort", th.dataset.key === state.sort ? (state.dir > 0 ? "ascending" : "descending") : "none");
    });
  }

  function sweeps() {
    var box = $("sweeps");
    if (!D.sweeps.length) { box.appendChild(PG.el("p", {class: "none", text: "No scaling sweep recorded."})); return; }
    var table = PG.el("table", {}, PG.el("thead", {}, PG.el("tr", {},
      PG.el("th", {text: "sweep"}), PG.el("th", {text: "branch @ testbed"}), PG.el("th", {text: "latest model"}),
      PG.el("th", {text: "knee"}), PG.el("th", {class: "num", text: "commits"}))));
    var tb = PG.el("tbody");
    D.sweeps.forEach(function (s) {
      var models = PG.el("td", {class: "formula"});
      s.models.forEach(function (m) { models.appendChild(PG.el("div", {}, m.measure + ": ", PG.formula(m.formula))); });
      tb.appendChild(PG.el("tr", {},
        PG.el("td", {class: "name"}, PG.el("a", {href: "sweep.html?s=" + s.page, class: "sweep", text: s.name})),
        PG.el("td", {text: s.branch + " @ " + s.testbed}), models,
        PG.el("td", {text: s.knee || "none"}), PG.el("td", {class: "num", text: String(s.commits)})));
    });
    table.appendChild(tb);
    // in its own scrolling box: a long model made the whole index 637 px wide on a 390 px phone
    box.appendChild(PG.el("div", {class: "table-scroll"}, table));
  }

  // An alert links to index.html#BENCHMARK|MEASURE|BRANCH|TESTBED (perfgate.notify.render.trend_url):
  // open that series' page; when these pages do not hold it, say so and search for its benchmark.
  if (location.hash.length > 1) {
    var wanted = location.hash.slice(1);
    try { wanted = decodeURIComponent(wanted); } catch (e) { /* not percent-encoded: take it as it is */ }
    var target = rows.find(function (r) { return [r.benchmark, r.measure, r.branch, r.testbed].join("|") === wanted; });
    if (target) { location.replace(link(target)); return; }
    state.q = $("q").value = wanted.split("|")[0];
    $("linked").textContent = "The linked series \u201c" + wanted.split("|").join(" \u00b7 ") +
      "\u201d is not on these pages (built " + D.generated + "); below, the series of its benchmark.";
    $("linked").hidden = false;
  }

  var timer = null;
  $("q").addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(function () { state.q = $("q").value; state.shown = PAGE; render(); }, 60);
  });
  ["group", "measure", "branch", "testbed", "only"].forEach(function (id) {
    $(id).addEventListener("change", function () { state[id] = $(id).value; state.shown = PAGE; render(); });
  });
  options($("measure"), "measure"); options($("branch"), "branch"); options($("testbed"), "testbed");
  document.querySelectorAll("th.sortable").forEach(function (th) {
    // a button inside each header: reachable with Tab, pressed with Enter or Space
    th.querySelector("button").addEventListener("click", function () {
      var k = th.dataset.key;
      state.dir = state.sort === k ? -state.dir : (k === "rank" || typeof rows[0]?.[k] === "string" ? 1 : -1);
      state.sort = k;
      render();
    });
  });
  $("more").addEventListener("click", function () { state.shown += PAGE * 5; render(); });
  $("summary").textContent = rows.length + " series · " +
    rows.filter(function (r) { return r.state === "alert"; }).length + " with open regression alerts · " +
    rows.filter(function (r) { return r.direction === "regression"; }).length + " whose last change is a regression · " +
    D.sweeps.length + (D.sweeps.length === 1 ? " scaling sweep" : " scaling sweeps") + " · generated " + D.generated;
  sweeps();
  render();
  document.documentElement.dataset.ready = "1";
  window.PERFGATE_READY_MS = performance.now();
})();
