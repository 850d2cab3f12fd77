// A scaling sweep's page: cost against the sweep parameter with the fitted model, its 95%
// interval and the knee; the same curve for two commits side by side; and the history of every
// fitted coefficient and of the knee over commits.
"use strict";
(function () {
  var COLORS = ["#2f5fd0", "#d9480f", "#2b8a3e", "#862e9c", "#0b7285", "#c2255c", "#5c940d", "#e67700",
                "#364fc7", "#a61e4d"];
  var charts = {};
  window.PERFGATE_CHARTS = charts;
  var $ = function (id) { return document.getElementById(id); };

  PG.load("s", PG.param("s"), function (ok) {
    if (!ok || !window.PERFGATE_SWEEP) { PG.notFound("No such scaling sweep page"); return; }
    start(window.PERFGATE_SWEEP);
  });

  function when(t) { return t ? new Date(t * 1000).toISOString().slice(0, 16).replace("T", " ") : ""; }
  function short(c) { return String(c).slice(0, 10); }
  function num(v) { return v == null ? "—" : Number(v).toLocaleString("en", {maximumSignificantDigits: 4}); }
  // A cost of measure M as the benchmark pages write it ("120 ms") when its name ends in a known
  // unit (total-ns: the value times M.factor is in M.scale's smallest unit); else a plain number.
  function cost(M, v, sig) {
    return M.scale && v != null && isFinite(v) ? PG.inUnit(v, M, sig) : num(v);
  }

  function start(S) {
    document.title = S.name + " · " + S.title;
    $("name").textContent = S.name;
    $("subtitle").textContent = "scaling sweep on " + S.branch + " @ " + S.testbed + " · project " + S.project +
      " · generated " + S.generated;
    S.measures.forEach(function (m, i) { $("measure").appendChild(PG.el("option", {value: String(i), text: m.measure})); });
    var total = S.measures.findIndex(function (m) { return /^total/.test(m.measure); });
    if (total >= 0) $("measure").value = String(total);  // the seeds' headline phase first
    var redraw = function () { show(S, S.measures[+$("measure").value]); };
    ["measure", "view", "logy"].forEach(function (id) { $(id).addEventListener("change", redraw); });
    window.addEventListener("resize", function () { Object.keys(charts).forEach(function (k) { charts[k].resize(); }); });
    show(S, S.measures[+$("measure").value]);
    document.documentElement.dataset.ready = "1";
  }

  function chartIn(id) {
    if (charts[id]) charts[id].dispose();
    charts[id] = echarts.init(typeof id === "string" && $(id) ? $(id) : id);
    return charts[id];
  }

  function show(S, M) {
    var fits = M.fits, latest = fits[fits.length - 1];
    $("xname").textContent = latest.x;
    // As `perfgate fit`: the knee model leads when it beat every model without a knee by BIC (the
    // polynomial then drew under most points past the knee), the polynomial follows.
    var knee = latest.knee && latest.knee.found ? latest.knee : null;
    var polynomial = latest.formula + " (R² " + latest.r2.toFixed(4) +
      (latest.r2_weighted != null ? ", weighted as fitted " + latest.r2_weighted.toFixed(4) : "") + ")";
    $("latest-formula").textContent = M.measure + ": " + (knee ? knee.text + "; R² " + knee.r2.toFixed(4) : "≈ " + polynomial) +
      "   (" + latest.n + " points, commit " + short(latest.commit) + ")";
    var note = $("knee-note");
    note.textContent = "";
    if (knee) {
      note.appendChild(PG.el("div", {class: "knee-note", text: "Without a knee: " + polynomial +
        ", ΔBIC " + knee.delta_bic.toFixed(1) + " worse"}));
    } else if (latest.knee) {
      note.appendChild(PG.el("div", {class: "knee-note", text:
        "No knee in " + latest.knee.param + " (ΔBIC " + latest.knee.delta_bic.toFixed(1) + " for the best knee model)"}));
    }
    if (latest.warning) note.appendChild(PG.el("div", {class: "knee-note", text: "Note (the model without a knee): " + latest.warning}));
    curve(chartIn("curve"), latest, M, null);
    ["commit-a", "commit-b"].forEach(function (id, side) {
      var sel = $(id), fresh = sel.cloneNode(false);
      sel.parentNode.replaceChild(fresh, sel);
      fits.forEach(function (f, i) {
        fresh.appendChild(PG.el("option", {value: String(i), text: short(f.commit) + " · " + when(f.time)}));
      });
      fresh.value = String(side === 0 ? 0 : fits.length - 1);
      fresh.addEventListener("change", function () { pair(S, M); });
    });
    pair(S, M);
    history(M);
    table(S, M);
  }

  // The model a fit leads with, as perfgate fit: the knee model when one was found, else the
  // polynomial (sweeps.py _lead), in the headline, the table and the coefficients' history alike.
  function lead(f) { return f.lead.formula; }

  // "v·o: 35 → 80 (+129%) · knee: none → objects ≈ 8,018": what changed between two commits.
  // With a knee on either side the polynomials' coefficients are not the models compared (one
  // read o: 25.9 → −249, a negative per-object cost): the models are said whole instead.
  function changes(M, a, b) {
    var knee = function (f) { return f.knee && f.knee.found ? f.knee.param + " ≈ " + num(f.knee.location) : "none"; };
    if ((a.knee && a.knee.found) || (b.knee && b.knee.found)) {
      return "model: " + lead(a) + " → " + lead(b) + " · knee: " + knee(a) + " → " + knee(b);
    }
    var labels = [];
    a.terms.concat(b.terms).forEach(function (t) { if (labels.indexOf(t.label) < 0) labels.push(t.label); });
    var parts = labels.map(function (label) {
      var ca = a.terms.filter(function (t) { return t.label === label; })[0];
      var cb = b.terms.filter(function (t) { return t.label === label; })[0];
      var from = ca ? ca.coef : 0, to = cb ? cb.coef : 0;
      return (label || "1") + ": " + cost(M, from) + " → " + cost(M, to) + (from ? " (" + PG.pct(to / from - 1, 0) + ")" : "");
    });
    parts.push("knee: " + knee(a) + " → " + knee(b));
    return parts.join(" · ");
  }

  function pair(S, M) {
    var a = M.fits[+$("commit-a").value], b = M.fits[+$("commit-b").value];
    $("pair-changes").textContent = short(a.commit) + " → " + short(b.commit) + ": " + changes(M, a, b);
    [["a", a], ["b", b]].forEach(function (kv) {
      var f = kv[1], head = $("formula-" + kv[0]);
      head.textContent = "";
      head.appendChild(PG.commitNode(S.repo_url, f.commit, 10));
      head.appendChild(document.createTextNode(" " + when(f.time) + ": "));
      head.appendChild(PG.formula(lead(f)));
      if (f.knee && f.knee.found) head.appendChild(document.createTextNode(" · knee ≈ " + num(f.knee.location)));
      curve(chartIn("curve-" + kv[0]), f, M, [a, b]);   // one y axis for both, to compare them
    });
  }

  function maxY(f) {
    var m = 0;
    f.points.forEach(function (p) { var y = yOf(p[0], p[2]); if (y > m) m = y; });
    return m;
  }

  // The y shown: cost, or cost per unit of x (flat while the cost is linear in x, so a knee
  // shows as the point where it starts to climb).
  function perUnit() { return $("view").value === "per-unit"; }
  function yOf(x, y) { return perUnit() ? y / x : y; }
  function nice(v) {
    var e = Math.pow(10, Math.floor(Math.log10(v)) - 1);
    return Math.ceil(v / e) * e;
  }

  var RAMP = ["#2f5fd0", "#2b8a3e", "#e67700", "#c0362c"];
  // The colour the visual map gives value t of [lo, hi], so a curve matches its points.
  function ramp(t, lo, hi) {
    var u = hi > lo ? Math.min(Math.max((t - lo) / (hi - lo), 0), 1) * (RAMP.length - 1) : 0;
    var i = Math.min(Math.floor(u), RAMP.length - 2), w = u - i;
    var a = parseInt(RAMP[i].slice(1), 16), b = parseInt(RAMP[i + 1].slice(1), 16);
    var mix = [16, 8, 0].map(function (sh) { return Math.round(((a >> sh) & 255) * (1 - w) + ((b >> sh) & 255) * w); });
    return "rgb(" + mix.join(",") + ")";
  }

  function groupName(f, g) { return f.group ? f.group + "=" + num(g) : "measured"; }

  // Every y a fit's curve chart draws: points, fitted curves, the knee model, the 95% band.
  function drawnY(f) {
    var ys = f.points.map(function (p) { return yOf(p[0], p[2]); });
    f.curves.forEach(function (cv) {
      [cv.y, cv.knee_y].concat($("logy").checked ? [] : [cv.lower, cv.upper]).forEach(function (line) {
        (line || []).forEach(function (y, j) { ys.push(yOf(cv.x[j], y)); });
      });
    });
    return ys;
  }

  // A cost axis' ticks at round numbers of the unit its labels write, as the benchmark pages'
  // (PG.axisTicks: 20 / 40 / 60 ms and 0.5 / 1 / 1.5 µs, where ECharts' round nanoseconds read
  // "300 ns, 600 ns, 900 ns, 1.20 µs"); null, ECharts' own, for a measure without a unit (round
  // in the number given) and on a log axis (powers of ten).
  function costTicks(values, M, log) {
    var t = M.scale && !log ? PG.axisTicks(values, M) : null;
    return t && {min: t.min, max: t.max, interval: t.interval, axisLabel: {formatter: t.label}};
  }

  // ``pair``: the two fits drawn side by side, whose charts share one y axis.
  function curve(c, f, M, pair) {
    var measure = M.measure, log = $("logy").checked;
    var groups = f.curves.map(function (cv) { return cv.group; });
    var logX = f.points.every(function (p) { return p[0] > 0; });
    var series = [], visualMap = null;
    var distinct = {};
    f.points.forEach(function (p) { distinct[p[1]] = true; });
    // Few values of the other parameter: one coloured series each.  Many (a random value count
    // per row): every point in one series coloured by that value, curves for five of them.
    var binned = f.group && Object.keys(distinct).length > f.curves.length;
    if (binned) {
      var gs = f.points.map(function (p) { return p[1]; });
      series.push({name: "measured", type: "scatter", symbolSize: 4, itemStyle: {opacity: 0.6},
                   data: f.points.map(function (p) { return [p[0], yOf(p[0], p[2]), p[1]]; })});
      visualMap = {type: "continuous", dimension: 2, seriesIndex: 0, min: Math.min.apply(null, gs),
                   max: Math.max.apply(null, gs), text: [f.group, ""], right: 0, top: "middle", itemHeight: 120,
                   calculable: false, inRange: {color: RAMP}};
    }
    f.curves.forEach(function (cv, i) {
      var name = groupName(f, cv.group);
      var color = binned ? ramp(cv.group, visualMap.min, visualMap.max) : COLORS[i % COLORS.length];
      if (!binned) {
        series.push({name: name, type: "scatter", symbolSize: 5, itemStyle: {color: color, opacity: 0.65},
                     data: f.points.filter(function (p) { return cv.group == null || p[1] === cv.group; })
                                   .map(function (p) { return [p[0], yOf(p[0], p[2])]; })});
      }
      series.push({name: name, type: "line", symbol: "none", silent: true, lineStyle: {color: color, width: 1.5},
                   data: cv.x.map(function (x, j) { return [x, yOf(x, cv.y[j])]; })});
      if (cv.knee_y) {  // the knee model, dashed: past the knee it follows points the chosen model misses
        series.push({name: name, id: "knee-model-" + i, type: "line", symbol: "none", silent: true,
                     lineStyle: {color: color, width: 1.5, type: "dashed"},
                     data: cv.x.map(function (x, j) { return [x, yOf(x, cv.knee_y[j])]; })});
      }
      if (!$("logy").checked) {  // a stacked band cannot be drawn on a log axis
        // stackStrategy "all" (here and in the coefficients' history): stacked on a negative lower edge,
        // not from 0 as ECharts stacks a positive width by default
        series.push({name: name, type: "line", symbol: "none", silent: true, stack: "ci" + i, stackStrategy: "all", lineStyle: {opacity: 0},
                     data: cv.x.map(function (x, j) { return [x, yOf(x, cv.lower[j])]; })});
        series.push({name: name, type: "line", symbol: "none", silent: true, stack: "ci" + i, stackStrategy: "all", lineStyle: {opacity: 0},
                     areaStyle: {color: color, opacity: 0.15},
                     data: cv.x.map(function (x, j) { return [x, yOf(x, cv.upper[j]) - yOf(x, cv.lower[j])]; })});
      } else {
        [cv.lower, cv.upper].forEach(function (edge) {
          series.push({name: name, type: "line", symbol: "none", silent: true,
                       lineStyle: {color: color, width: 1, type: "dotted", opacity: 0.6},
                       data: cv.x.map(function (x, j) { return [x, edge[j] > 0 ? yOf(x, edge[j]) : null]; })});
        });
      }
    });
    var k = f.knee;
    if (k && k.found && series.length) {
      series[0].markLine = {symbol: "none", silent: false, lineStyle: {color: "#f59e0b", type: "dashed", width: 2},
        label: {formatter: "knee ≈ " + num(k.location), position: "insideEndTop", color: "#b54708", fontWeight: "bold"},
        data: [{xAxis: k.location, evidence: k.text}]};
      series[0].markArea = {silent: true, itemStyle: {color: "rgba(245,158,11,.15)"}, data: [[{xAxis: k.low}, {xAxis: k.high}]]};
    }
    var sig = PG.axisDigits(f.points.map(function (p) { return yOf(p[0], p[2]); }));
    var top = pair && !log ? nice(Math.max(maxY(pair[0]), maxY(pair[1])) * 1.02) : null;
    var ticks = costTicks([].concat.apply([], (pair || [f]).map(drawnY)), M, log);
    c.setOption({
      animation: false, color: COLORS,
      grid: {left: 80, right: binned ? 90 : 30, top: 60, bottom: PG.CHART.gridBottom},
      // clear of the toolbox (PG.CHART.legend: the pager sat on the zoom buttons)
      legend: Object.assign({data: (binned ? ["measured"] : []).concat(groups.map(function (g) { return groupName(f, g); }))},
                            PG.CHART.legend),
      visualMap: visualMap || undefined,
      tooltip: {trigger: "item", confine: true, formatter: function (p) {
        if (p.componentType === "markLine") return PG.esc(p.data.evidence);
        if (p.seriesType !== "scatter") return "";
        return PG.esc(p.seriesName) + "<br>" + PG.esc(f.x) + " = " + PG.esc(num(p.value[0])) + "<br>" + PG.esc(measure) +
          (perUnit() ? " per " + PG.esc(f.x) : "") + " = " + PG.esc(cost(M, p.value[1])) + "<br>commit <code>" + PG.esc(short(f.commit)) + "</code>";
      }},
      toolbox: {right: 10, feature: {dataZoom: {}, restore: {}}},
      dataZoom: [{type: "inside", xAxisIndex: 0, filterMode: "none"}, PG.CHART.slider],
      xAxis: {type: logX ? "log" : "value", name: f.x, nameLocation: "middle", nameGap: PG.CHART.nameGap, scale: true},
      yAxis: Object.assign({type: log ? "log" : "value", name: perUnit() ? measure + " per " + f.x : measure, scale: true},
                           ticks || {max: top, axisLabel: {formatter: function (v) { return cost(M, v, sig); }, showMaxLabel: !top}}),
      series: series
    });
    if (ticks) zoomTicks(c, M, 60, PG.CHART.gridBottom);
  }

  // The ticks of a cost axis zoomed into (the toolbox's box zoom) at round numbers of its unit
  // too: the interval fitted to the whole axis ticked the window from its edge (1 / 51 / 60 ms).
  // Again after each render that moves the window; ``top`` and ``bottom``: the grid's margins.
  function zoomTicks(c, M, top, bottom) {
    var retick = PG.customTicks(c, "yAxis", function () {
      var lo = c.convertFromPixel({yAxisIndex: 0}, c.getHeight() - bottom), hi = c.convertFromPixel({yAxisIndex: 0}, top);
      var t = PG.axisTicks([lo, hi], M), at = [];
      if (!t) return null;
      for (var k = Math.ceil(lo / t.interval - 1e-9); k <= Math.floor(hi / t.interval + 1e-9); k++) {
        at.push(Number((k * t.interval).toPrecision(12)));
      }
      return {values: at, formatter: t.label};
    });
    c.on("finished", retick);
    c.on("restore", retick);     // which sets the first option back, without these ticks
  }

  function history(M) {
    var host = $("history");
    Object.keys(charts).forEach(function (id) { if (id.indexOf("hist-") === 0) { charts[id].dispose(); delete charts[id]; } });
    host.textContent = "";
    var cats = M.fits.map(function (f) { return short(f.commit); });
    // Each commit's leading model's coefficients (it plotted the polynomial a knee model beat, and
    // jumped at each knee commit); a knee model's have no interval and are drawn as diamonds.
    var labels = [];
    M.fits.forEach(function (f) { f.lead.terms.forEach(function (t) { if (labels.indexOf(t.label) < 0) labels.push(t.label); }); });
    var panels = labels.map(function (label) {
      return {title: "coefficient of " + (label || "1 (constant)") + (/knee/.test(label) ? " (knee models only)" : ""),
              pick: function (f) {
        var t = f.lead.terms.filter(function (t) { return t.label === label; })[0];
        return t ? [t.coef, t.ci_low != null ? t.ci_low : null, t.ci_high != null ? t.ci_high : null] : [null, null, null];
      }};
    });
    panels.push({title: "knee in " + (M.fits[M.fits.length - 1].knee || {param: "objects"}).param, knee: true, pick: function (f) {
      return f.knee && f.knee.found ? [f.knee.location, f.knee.low, f.knee.high] : [null, null, null];
    }});
    panels.forEach(function (p, i) {
      var box = PG.el("div", {class: "chart small" + (p.knee ? " knee-history" : "")});
      host.appendChild(PG.el("div", {}, PG.el("div", {class: "muted", text: p.title}), box));
      var v = M.fits.map(p.pick);
      var text = p.knee ? num : function (x, sig) { return cost(M, x, sig); };
      var sig = PG.axisDigits([].concat.apply([], v));
      var ticks = p.knee ? null : costTicks([].concat.apply([], v), M, false);
      var c = echarts.init(box);
      charts["hist-" + i] = c;
      c.setOption({
        animation: false, grid: {left: 70, right: 16, top: 14, bottom: 40},
        tooltip: {trigger: "axis", formatter: function (ps) {
          var j = ps[0].dataIndex, r = v[j];
          var of = p.knee ? "" : M.fits[j].lead.model === "knee" ? " (knee model; no interval)" : " (polynomial)";
          return PG.esc(M.fits[j].commit.slice(0, 12)) + "<br>" + PG.esc(p.title) + of + ": " +
            (r[0] == null ? "none" : PG.esc(text(r[0]) + (r[1] == null ? "" : " [" + text(r[1]) + ", " + text(r[2]) + "]")));
        }},
        xAxis: {type: "category", data: cats, axisLabel: {fontSize: 10}},
        yAxis: Object.assign({type: "value", scale: true}, ticks || {axisLabel: {formatter: function (x) { return text(x, sig); }}}),
        series: [
          {type: "line", stack: "ci", stackStrategy: "all", symbol: "none", lineStyle: {opacity: 0}, silent: true,
           data: v.map(function (r) { return r[1]; })},
          {type: "line", stack: "ci", stackStrategy: "all", symbol: "none", lineStyle: {opacity: 0}, silent: true,
           areaStyle: {color: p.knee ? "#f59e0b" : "#2f5fd0", opacity: 0.18},
           data: v.map(function (r) { return r[1] == null ? null : r[2] - r[1]; })},
          {type: "line", symbol: "circle", symbolSize: 6, itemStyle: {color: p.knee ? "#b54708" : "#2f5fd0"},
           data: v.map(function (r, j) {
             return !p.knee && M.fits[j].lead.model === "knee" ? {value: r[0], symbol: "diamond", symbolSize: 9} : r[0];
           })}
        ]
      });
    });
  }

  function table(S, M) {
    var tb = $("fits");
    tb.textContent = "";
    M.fits.slice().reverse().forEach(function (f) {
      tb.appendChild(PG.el("tr", {}, PG.el("td", {}, PG.commitNode(S.repo_url, f.commit, 12)),
        PG.el("td", {class: "nowrap", text: when(f.time)}),
        PG.el("td", {class: "formula", title: f.lead.model === "knee" ? "without a knee: " + f.formula +
                     " (R² " + f.r2.toFixed(4) + ")" : null}, PG.formula(lead(f))),
        PG.el("td", {class: "num", text: f.lead.r2.toFixed(4)}),
        PG.el("td", {text: f.knee && f.knee.found ? f.knee.param + " ≈ " + num(f.knee.location) +
                     " [" + num(f.knee.low) + ", " + num(f.knee.high) + "]" : "none"})));
    });
  }
})();
