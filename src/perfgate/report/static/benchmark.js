// A benchmark's page: one chart per measure, every branch @ testbed overlaid (toggle them above),
// each point's interval as a shaded band, the threshold test's limits, change points (dashed
// lines, their commit range shaded) and alerts (pins), zoom and pan, hover for the evidence,
// click a point to open its commit.
"use strict";
(function () {
  var COLORS = ["#2f5fd0", "#d9480f", "#2b8a3e", "#862e9c", "#0b7285", "#c2255c", "#5c940d", "#e67700"];
  var charts = {};
  window.PERFGATE_CHARTS = charts;

  PG.load("b", PG.param("b"), function (ok) {
    if (!ok || !window.PERFGATE_PAGE) { PG.notFound("No such benchmark page"); return; }
    render(window.PERFGATE_PAGE);
  });

  function combo(s) { return s.branch + " @ " + s.testbed; }
  function uniq(list) { return list.filter(function (v, i) { return list.indexOf(v) === i; }).sort(); }

  // The data file's compact forms spelled out (perfgate.report.pages.read_page does the same):
  // commits are indices into the site's list (data/commits.js), times whole seconds each since
  // the one before (the first since 1970; null: none), a series' runs [first, count, …] stretches
  // of the page's run table.
  function unpack(P) {
    var commits = window.PERFGATE_COMMITS || [], last = 0;
    P.runs.commit = P.runs.commit.map(function (i) { return commits[i]; });
    P.runs.time = P.runs.time.map(function (d) {
      if (d == null) return "";
      last += d;
      return new Date(last * 1000).toISOString().replace(".000Z", "Z");
    });
    // a threshold limit {e: E, d: [...]}: K·10^E each, d the first K and then each K's step
    // (perfgate.report.series_data.band_steps)
    function steps(c) {
      if (!c || Array.isArray(c)) return c;
      var k = 0, q = Number("1e" + Math.abs(c.e));
      return c.d.map(function (d) {
        if (d == null) return null;
        k += d;
        return c.e < 0 ? k / q : k * q;
      });
    }
    P.series.forEach(function (s) {
      if (s.band) { s.band.lower = steps(s.band.lower); s.band.upper = steps(s.band.upper); }
      var run = [];
      for (var j = 0; j < s.run.length; j += 2) for (var r = s.run[j]; r < s.run[j] + s.run[j + 1]; r++) run.push(r);
      s.run = run;
    });
  }

  function render(P) {
    unpack(P);
    // Columns the data file leaves out (shared run table, no intervals, single samples) filled in.
    P.series.forEach(function (s) {
      s.commit = s.run.map(function (r) { return P.runs.commit[r]; });
      s.time = s.run.map(function (r) { return P.runs.time[r]; });
      if (!s.lower) { s.lower = s.value.map(function () { return null; }); s.upper = s.lower; }
      if (!s.n) s.n = s.value.map(function () { return 1; });
      // points measured under load: index → the share of the CPU it needed that others took
      s.loadAt = {};
      (s.loaded || []).forEach(function (e) { s.loadAt[e[0]] = e[1]; });
      // pages --max-runs: the chart holds the newest runs; change point indices are the whole
      // series' (those before the chart are listed under it, not drawn)
      s.skipped = s.skipped || 0;
      s.runs_total = s.runs_total || s.value.length;
      s.drawn = s.change_points.filter(function (c) { return c.index >= s.skipped; });
    });
    document.title = P.benchmark + " · " + P.title;
    document.getElementById("name").textContent = P.benchmark;
    var measures = uniq(P.series.map(function (s) { return s.measure; }));
    var branches = uniq(P.series.map(function (s) { return s.branch; }));
    var testbeds = uniq(P.series.map(function (s) { return s.testbed; }));
    var combos = uniq(P.series.map(combo));
    document.getElementById("subtitle").textContent = measures.length + " measure(s) · " + branches.length +
      " branch(es) · " + testbeds.length + " testbed(s) · project " + P.project + " · generated " + P.generated;
    var wanted = PG.param("measure");
    if (measures.indexOf(wanted) > 0) measures = [wanted].concat(measures.filter(function (m) { return m !== wanted; }));

    var toggles = document.getElementById("toggles");
    var on = {branch: {}, testbed: {}};
    // A link from the index or an alert names its series: only its branch and testbed are ticked.
    var linked = {branch: PG.param("branch"), testbed: PG.param("testbed")};
    [["branch", branches], ["testbed", testbeds]].forEach(function (kv) {
      var box = PG.el("fieldset", {}, PG.el("legend", {text: kv[0] === "branch" ? "branches" : "testbeds"}));
      var only = kv[1].indexOf(linked[kv[0]]) >= 0 ? linked[kv[0]] : null;
      kv[1].forEach(function (v) {
        on[kv[0]][v] = only === null || v === only;
        var cb = PG.el("input", {type: "checkbox", checked: on[kv[0]][v] && "checked", "data-kind": kv[0], "data-value": v});
        cb.addEventListener("change", function () { on[kv[0]][v] = cb.checked; applyToggles(); });
        box.appendChild(PG.el("label", {}, cb, " " + v));
      });
      toggles.appendChild(box);
    });
    function applyToggles() {
      var selected = {};
      P.series.forEach(function (s) { selected[combo(s)] = !!(on.branch[s.branch] && on.testbed[s.testbed]); });
      Object.keys(charts).forEach(function (m) { charts[m].select(selected); });
      // what a screen reader hears, and the points table, follow the ticks as the chart does
      panels.forEach(function (x) {
        var shown = x.list.filter(function (s) { return selected[combo(s)]; });
        x.box.setAttribute("aria-label", describe(x.measure, shown));
        x.empty.hidden = shown.length > 0;    // an empty chart said why only to screen readers
        x.points.replaceWith(x.points = pointsTable(P, shown));
        x.pins.replaceWith(x.pins = pinList(P, x, shown, axis));
        x.evidence.replaceWith(x.evidence = evidence(P, shown));
      });
    }
    var panels = [];

    // The x axis: dates (a week without runs is a gap) or commits in the order they were first
    // measured, evenly spaced (asv's and Bencher's other view; github-action-benchmark's only
    // one).  Dates unless they would crowd the runs (PG_TIME.crowded: a backfilled history then
    // a day of runs); ?x=date or ?x=commits links to either.
    var dated = P.series.every(function (s) { return s.time.every(function (t) { return !!t; }); });
    var first = commitOrder(P), order = first.order, rank = {};
    order.forEach(function (c, j) { rank[c] = j; });
    var want = PG.param("x");
    var byDate = dated && (want === "date" || (want !== "commits" && !PG_TIME.crowded(first.times)));
    var axis = {mode: byDate ? "date" : "commits", commits: order, rank: rank};
    var axisBox = PG.el("fieldset", {}, PG.el("legend", {text: "x axis"}));
    [["date", "date"], ["commits", "commits in order"]].forEach(function (kv) {
      var rb = PG.el("input", {type: "radio", name: "x-axis", value: kv[0], checked: axis.mode === kv[0] && "checked",
                               disabled: kv[0] === "date" && !dated && "disabled"});
      rb.addEventListener("change", function () {
        if (!rb.checked) return;
        axis.mode = kv[0];
        panels.forEach(function (x) {
          charts[x.measure].dispose();
          charts[x.measure] = chart(P, x.box, x.picked, x.list, combos, axis);
        });
        applyToggles();
      });
      axisBox.appendChild(PG.el("label", {}, rb, " " + kv[1]));
    });
    toggles.appendChild(axisBox);

    var host = document.getElementById("measures");
    measures.forEach(function (m) {
      var list = P.series.filter(function (s) { return s.measure === m; });
      var panel = PG.el("section", {class: "panel measure", "data-measure": m});
      var box = PG.el("div", {class: "chart", role: "img", "aria-label": describe(m, list)});
      var picked = PG.el("div", {class: "selected", "aria-live": "polite",
                                 text: "Click a point to see it here and open its commit."});
      // a direction only where the measure's name tells it (null: a user counter, say checksum_mod)
      var better = list[0].lower_is_better;
      panel.appendChild(PG.el("h3", {text: m + (better == null ? "" : better ? " (lower is better)" : " (higher is better)")}));
      var cut = list.filter(function (s) { return s.skipped; });
      if (cut.length) {
        panel.appendChild(PG.el("p", {class: "muted window", text: "Showing the newest " + cut.map(function (s) {
          return s.value.length + " of " + s.runs_total + " runs of " + combo(s);
        }).join("; ") + " (pages --max-runs); every change point and alert is listed below, found on all runs."}));
      }
      var empty = PG.el("p", {class: "none", hidden: "hidden", text: "No series ticked: tick a branch and a testbed above to draw one."});
      panel.appendChild(empty);
      panel.appendChild(box);
      var loaded = list.reduce(function (t, s) { return t + Object.keys(s.loadAt).length; }, 0);
      if (loaded) {
        panel.appendChild(PG.el("p", {class: "muted loaded", text: loaded + " hollow point(s) were measured while the " +
          "machine was loaded (other processes took a quarter or more of the CPU the benchmark needed): slower for " +
          "that, not for its code, they are left out of the change point search, and a threshold streak the load " +
          "explains waits for the next runs."}));
      }
      var x = {measure: m, list: list, box: box, picked: picked, empty: empty};
      panel.appendChild(x.pins = pinList(P, x, list, axis));
      panel.appendChild(picked);
      panel.appendChild(x.evidence = evidence(P, list));
      panel.appendChild(x.points = pointsTable(P, list));
      host.appendChild(panel);
      panels.push(x);
      charts[m] = chart(P, box, picked, list, combos, axis);
    });
    applyToggles();
    window.addEventListener("resize", function () { Object.keys(charts).forEach(function (m) { charts[m].resize(); }); });
    document.documentElement.dataset.ready = "1";
  }

  function xs(s, axis) {
    return s.commit.map(function (c, i) { return axis.mode === "date" ? Date.parse(s.time[i]) : axis.rank[c]; });
  }

  // The page's commits in the order they were first measured (the same commit on two testbeds
  // or branches is one place), and when each was (epoch ms; a run's index where it has no date).
  function commitOrder(P) {
    var first = {};
    P.runs.commit.forEach(function (c, r) {
      var t = Date.parse(P.runs.time[r]);
      t = isNaN(t) ? r : t;
      if (!(c in first) || t < first[c][0] || (t === first[c][0] && r < first[c][1])) first[c] = [t, r];
    });
    var order = Object.keys(first).sort(function (a, b) { return first[a][0] - first[b][0] || first[a][1] - first[b][1]; });
    return {order: order, times: order.map(function (c) { return first[c][0]; })};
  }

  function commitAt(axis, v) {
    var c = axis.commits[v];
    return c ? c.slice(0, 7) : "";
  }

  function tip(P, s, i) {
    var v = s.value[i], lo = s.lower[i], hi = s.upper[i];
    var interval = lo != null && hi != null ? " (interval " + PG.inUnit(lo, s) + " … " + PG.inUnit(hi, s) + ")" : "";
    return "<strong>" + PG.esc(combo(s)) + "</strong><br>commit <code class=\"tip-commit\">" + PG.esc(s.commit[i]) +
      "</code><br>" + PG.esc(s.time[i] || "no date") + "<br>" + PG.esc(s.measure) + " <strong>" +
      PG.esc(PG.inUnit(v, s)) + "</strong>" + PG.esc(interval) + "<br>" + s.n[i] + " sample(s)" +
      (i in s.loadAt ? "<br>" + PG.esc(loadText(s.loadAt[i])) : "") +
      (P.repo_url ? "<br><em>click to open the commit</em>" : "");
  }

  function loadText(share) {
    return "measured while the machine was loaded: other processes took " + Math.round(100 * share) +
      "% of the CPU it needed (drawn hollow; left out of the change point search)";
  }

  function band(name, key, x, lower, upper, color, opacity) {
    // A shaded band between two lines: an invisible lower line and the difference stacked on it.
    // stackStrategy "all": ECharts stacks a positive width on the positive stack by default, not on a
    // negative lower line, and the band then sat between 0 and its width.
    var lo = [], diff = [];
    for (var i = 0; i < x.length; i++) {
      var ok = lower[i] != null && upper[i] != null;
      lo.push([x[i], ok ? lower[i] : null]);
      diff.push([x[i], ok ? upper[i] - lower[i] : null]);
    }
    var common = {name: name, type: "line", stack: key, stackStrategy: "all", symbol: "none", silent: true, connectNulls: false,
                  tooltip: {show: false}, z: 1};
    return [Object.assign({id: key + "-lo", data: lo, lineStyle: {opacity: 0}}, common),
            Object.assign({id: key + "-hi", data: diff, lineStyle: {opacity: 0},
                           areaStyle: {color: color, opacity: opacity}}, common)];
  }

  // The intervals a band cannot draw, having no neighbour's to reach to (a series of one run drew
  // a bare dot): an error bar each, one line series broken by nulls, capped by its end symbols.
  function errorBars(name, id, x, lower, upper, color) {
    var has = function (i) { return lower[i] != null && upper[i] != null; }, data = [];
    for (var i = 0; i < x.length; i++) {
      if (has(i) && !has(i - 1) && !has(i + 1)) data.push([x[i], lower[i]], [x[i], upper[i]], [x[i], null]);
    }
    return data.length ? {id: id, name: name, type: "line", data: data, connectNulls: false, silent: true, z: 2,
                          tooltip: {show: false}, symbol: "rect", symbolSize: [9, 1.5], showSymbol: true,
                          itemStyle: {color: color}, lineStyle: {color: color, width: 1.5, opacity: 0.7}} : null;
  }

  function chart(P, box, picked, list, combos, axis) {
    var byTime = axis.mode === "date";
    var series = [], marks = [];
    list.forEach(function (s, k) {
      var name = combo(s), color = COLORS[combos.indexOf(name) % COLORS.length], x = xs(s, axis);
      if (s.lower.some(function (v) { return v != null; })) {
        series = series.concat(band(name, "iv" + k, x, s.lower, s.upper, color, 0.13));
        var bars = errorBars(name, "bar" + k, x, s.lower, s.upper, color);
        if (bars) series.push(bars);
      }
      if (s.band) {
        var none = s.value.map(function () { return null; });
        var bl = s.band.lower || none, bu = s.band.upper || none;
        if (bl.some(function (v) { return v != null; }) && bu.some(function (v) { return v != null; })) {
          series = series.concat(band(name, "th" + k, x, bl, bu, color, 0.06));
        }
        [["upper", bu], ["lower", bl]].forEach(function (side) {
          if (!side[1].some(function (v) { return v != null; })) return;
          series.push({id: "limit-" + side[0] + k, name: name, type: "line", step: "end", symbol: "none", z: 2,
                       data: side[1].map(function (v, i) { return [x[i], v]; }),
                       lineStyle: {color: color, type: [6, 4], width: 1, opacity: 0.7}, silent: true,
                       tooltip: {show: false}});
        });
      }
      var sk = s.skipped;
      var lines = s.drawn.map(function (c) {
        // the size at the end of the line away from the new level, beside it on the new level's
        // side: the first new point's alert pin stands above that point, on the line, and the
        // step's own segment runs down the old level's side (at the middle it crossed the label,
        // and the pin of a point half-way up covered it)
        return {xAxis: x[c.index - sk], evidence: changeText(s, c),
                label: {formatter: PG.pct(c.magnitude), position: c.after < c.before ? "insideEndBottom" : "insideStartBottom"},
                lineStyle: {color: c.direction === "regression" ? "#c0362c" : "#1f7a4d", type: "dashed", width: 2}};
      });
      marks[k] = lines;
      var areas = s.drawn.map(function (c) {
        return [{xAxis: x[Math.max(c.index_low - 1 - sk, 0)], itemStyle: {color: c.direction === "regression" ? "rgba(192,54,44,.07)" : "rgba(31,122,77,.07)"}},
                {xAxis: x[c.index_high - sk]}];
      });
      var pins = s.alerts.map(function (a) {
        var i = s.commit.indexOf(a.commit);
        if (i < 0) return null;
        return {coord: [x[i], s.value[i]], evidence: alertText(s, a),
                itemStyle: {color: closed(a) ? "#98a2b3" : a.direction === "regression" ? "#c0362c" : "#1f7a4d"}};
      }).filter(Boolean);
      series.push({
        id: "pts" + k, name: name, type: "line", z: 3, symbol: "circle", symbolSize: s.commit.length > 150 ? 4 : 6,
        showSymbol: true, itemStyle: {color: color}, lineStyle: {color: color, width: 1.5},
        // a point measured under load is drawn hollow (detect leaves it out of its search)
        data: s.value.map(function (v, i) {
          return i in s.loadAt ? {value: [x[i], v], i: i, k: k, itemStyle: {color: "#fff", borderColor: color, borderWidth: 1.5}}
                               : {value: [x[i], v], i: i, k: k};
        }),
        markLine: {symbol: "none", z: 1, data: lines, label: {position: "insideEndTop"}},
        markArea: {silent: true, data: areas},
        markPoint: {symbol: "pin", symbolSize: 34, data: pins, label: {formatter: "!"}}
      });
    });
    var c = echarts.init(box, null, {renderer: "canvas"});
    c.setOption({
      // dates in UTC, as the tooltips, tables, alerts and terminal write them (and the ticks,
      // timeaxis.js): the zoom slider's dates and the axis' extent too, not the reader's zone
      animation: false, color: COLORS, useUTC: true,
      grid: {left: 80, right: 30, top: 40, bottom: PG.CHART.gridBottom},
      // clear of the toolbox by a right padding: ECharts keeps one of a legend's left and right
      legend: Object.assign({icon: "roundRect", data: uniqueNames(list)}, PG.CHART.legend),
      tooltip: {trigger: "item", confine: true, className: "pg-tip", extraCssText: "white-space: normal; max-width: 460px;",
                formatter: function (p) {
        if (p.componentType === "markLine" || p.componentType === "markPoint") return PG.esc(p.data.evidence);
        if (p.data && p.data.i != null) return tip(P, list[p.data.k], p.data.i);
        return "";
      }},
      toolbox: {right: 10, feature: {dataZoom: {yAxisIndex: "none"}, restore: {}}},
      dataZoom: [{type: "inside", xAxisIndex: 0, filterMode: "none"}, PG.CHART.slider],
      // a date axis: ticks at regular calendar steps (timeaxis.js; set by retick below), each day
      // named with its month ("Mar 5", not a bare "5"), in UTC, which its name says
      xAxis: {type: byTime ? "time" : "value", name: byTime ? "date (UTC)" : "commit", nameLocation: "middle", nameGap: PG.CHART.nameGap,
              minInterval: byTime ? null : 1, scale: !byTime,
              // commits end at the last one measured (a rounded bound left empty commit slots)
              min: byTime ? null : "dataMin", max: byTime ? null : "dataMax",
              axisLabel: byTime ? {hideOverlap: true, formatter: function (v) { return dateTick(v); }}
                                : {hideOverlap: true, formatter: function (v) { return commitAt(axis, v); }}},
      // round ticks in the unit the labels write (fitY below), not ECharts' round numbers of bytes
      yAxis: {type: "value", scale: true},
      series: series
    });
    // Which series the legend shows, kept here as the toggles above and the legend's own events
    // change it: getOption() would read it from a deep copy of the whole option, every point of
    // every series, and the label spacing below asks after each render.
    var selected = {}, ticked = {};
    c.select = function (map) {
      selected = Object.assign({}, map);
      ticked = Object.assign({}, map);
      // a legend with a pager opens on its first ticked series (on a phone it showed an unticked one)
      var first = uniqueNames(list).findIndex(function (n) { return map[n]; });
      c.setOption({legend: {selected: selected, scrollDataIndex: Math.max(first, 0)}});
      c.fitY();
    };
    ["legendselectchanged", "legendselected", "legendunselected", "legendselectall", "legendinverseselect"].forEach(function (e) {
      c.on(e, function (p) { selected = Object.assign({}, p.selected); c.fitY(); });
    });
    // The zoom buttons' restore sets the option first given again, whose legend shows every series:
    // the ticks above are set again (the legend's own clicks go, as a zoom does), the y fit with them.
    c.on("restore", function () { c.select(ticked); });
    // The y axis over what the ticked series draw (values, intervals, threshold limits), again
    // when the legend or the toggles above change them, and after the zoom buttons' restore.
    c.fitY = function () {
      var values = [];
      list.forEach(function (s) {
        if (selected[combo(s)] === false) return;
        values = values.concat(s.value, s.lower, s.upper, s.band && s.band.lower || [], s.band && s.band.upper || []);
      });
      var t = PG.axisTicks(values, list[0]);
      if (t) c.setOption({yAxis: {min: t.min, max: t.max, interval: t.interval, axisLabel: {formatter: t.label}}});
    };
    c.fitY();
    // The date ticks for what the axis shows, again after each zoom, pan or resize (ECharts
    // renders, then "finished"; ticks the axis already has set nothing, so it ends there).
    var shown = null;
    function dateTick(v) {
      var i = shown ? shown.values.indexOf(v) : -1;
      return i < 0 ? "" : PG_TIME.label(shown.unit, shown.values, i);
    }
    // The ticks are set as PG.customTicks sets them: a restore from the zoom buttons inside another
    // setOption (the legend and y fit) dropped them, and remembered as set, the axis kept ECharts'
    // own ticks, labelled blank.
    var retick = PG.customTicks(c, "xAxis", function () {
      var left = 80, width = c.getWidth() - 80 - 30;     // the grid's
      shown = PG_TIME.ticks(c.convertFromPixel({xAxisIndex: 0}, left), c.convertFromPixel({xAxisIndex: 0}, left + width),
                            Math.floor(width / 90));     // a label about every 90 px
      return {values: shown.values, key: shown.unit};
    });
    if (byTime) {
      retick();
      c.on("finished", retick);
    }
    // Change point sizes that would be drawn on one another (changes a few pixels apart: a day of
    // runs at the end of a half-year date axis wrote "+6.0%" over "+6.0%"): the newest is kept,
    // the others hidden until a zoom draws them apart; each is still in its line's tooltip, the
    // marks' buttons and the evidence table.  Again after each zoom, pan, resize or toggle.  The
    // sizes hidden are asked of the chart, as the date ticks are: the restore shows them all again.
    var pending = null;                  // the sizes to hide, set once this render is over
    function hiddenNow() {
      var keys = [];
      c.getModel().getSeries().forEach(function (m) {
        if (!/^pts/.test(m.id)) return;
        (m.get(["markLine", "data"]) || []).forEach(function (l, j) {
          if (l.label && l.label.show === false) keys.push(m.id.slice(3) + ":" + j);
        });
      });
      return keys.sort().join();
    }
    function spaceSizes(now) {
      var at = [], hidden = {}, kept = [];
      list.forEach(function (s, k) {
        if (selected[combo(s)] === false) return;
        marks[k].forEach(function (l, j) {
          at.push({key: k + ":" + j, side: l.label.position, px: c.convertToPixel({xAxisIndex: 0}, l.xAxis)});
        });
      });
      at.sort(function (a, b) { return b.px - a.px; });
      at.forEach(function (m) {
        var near = kept.some(function (o) { return o.side === m.side && Math.abs(o.px - m.px) < 16; });
        if (near) hidden[m.key] = true; else kept.push(m);
      });
      var key = Object.keys(hidden).sort().join();
      if (key === pending || (pending === null && key === hiddenNow())) return;
      pending = key;
      var show = function () {
        pending = null;
        if (!c.isDisposed()) c.setOption({series: list.map(function (s, k) {
          return {id: "pts" + k, markLine: {data: marks[k].map(function (l, j) {
            return Object.assign({}, l, {label: Object.assign({}, l.label, {show: !hidden[k + ":" + j]})});
          })}};
        })});
      };
      // a setOption in a "finished" from inside another setOption is dropped (see retick): after it
      if (now === true) show(); else setTimeout(show, 0);
    }
    spaceSizes(true);
    c.on("finished", spaceSizes);
    c.on("click", function (p) {
      if (p.componentType !== "series" || !p.data || p.data.i == null) return;
      var s = list[p.data.k], i = p.data.i;
      picked.textContent = "";
      picked.appendChild(PG.el("strong", {text: combo(s)}));
      picked.appendChild(document.createTextNode(" · commit "));
      picked.appendChild(PG.commitNode(P.repo_url, s.commit[i]));
      picked.appendChild(document.createTextNode(" · " + (s.time[i] || "") + " · " + PG.inUnit(s.value[i], s) +
                                                 " · " + s.n[i] + " sample(s)"));
      var url = PG.commitUrl(P.repo_url, s.commit[i]);
      if (url) window.open(url, "_blank", "noopener");
    });
    return c;
  }

  function uniqueNames(list) { return uniq(list.map(combo)); }

  // What a change point's dashed line and an alert's pin say when hovered (and in the list of marks).
  function changeText(s, c) {
    return combo(s) + ": " + c.direction + " " + PG.pct(c.magnitude, 2) + " (" + PG.ciText(c.ci_low, c.ci_high, c.ci_level) +
      ") " + PG.inUnit(c.before, s) + " → " + PG.inUnit(c.after, s) + ", " +
      PG.confidence(c.p_value) + "; first at " + c.first_commit.slice(0, 12) + ", range " + c.commit_range + whereSiblings(c);
  }
  function alertText(s, a) {
    return combo(s) + ": alert " + a.id + " (" + alertStatus(a) + "), " + PG.kindText(a.kind) + " " + a.direction + " " +
      PG.pct(a.magnitude, 2) + alertInterval(a) +
      (a.p_value != null ? ", " + PG.pText(a.p_value) : "") + " at " + a.commit.slice(0, 12) + whereSiblings(a);
  }
  // A threshold alert's interval is of its streak's mean (its size is the first value past the limit).
  function alertInterval(a) {
    if (a.ci_low == null) return "";
    var ci = PG.ciText(a.ci_low, a.ci_high, a.ci_level);
    return a.streak_change != null ? " (streak mean " + PG.pct(a.streak_change, 2) + ", " + ci + ")" : " (" + ci + ")";
  }

  // The chart's marks (change point lines, alert pins) as buttons beside it: a pin cannot take the
  // keyboard's focus, so each button, focused or pressed, shows its mark's tooltip on the chart and
  // its evidence and commit below it, as hovering and clicking do.
  function pinList(P, x, shown, axis) {
    var items = [];
    shown.forEach(function (s) {
      var k = x.list.indexOf(s);
      s.drawn.forEach(function (c) {
        items.push({s: s, k: k, i: c.index - s.skipped, commit: c.first_commit, evidence: changeText(s, c),
                    text: "change point · " + changeText(s, c), y: (c.before + c.after) / 2});
      });
      s.alerts.forEach(function (a) {
        var i = s.commit.indexOf(a.commit);
        if (i >= 0) items.push({s: s, k: k, i: i, commit: a.commit, evidence: alertText(s, a),
                                text: "alert pin · " + alertText(s, a), pin: true});
      });
    });
    var ul = PG.el("ul", {class: "pins", "aria-label": "Marks on the chart of " + x.measure + " (change points and alerts)"});
    items.forEach(function (m) {
      var b = PG.el("button", {type: "button", class: "pin", text: m.text});
      var show = function () { showMark(P, x, m, axis); };
      b.addEventListener("focus", show);
      b.addEventListener("click", show);
      ul.appendChild(PG.el("li", {}, b));
    });
    return ul;
  }

  function showMark(P, x, m, axis) {
    var c = charts[x.measure], s = m.s;
    // The tooltip at the mark, saying what hovering it says (ECharts shows a tip at a place only
    // with the content given: a mark is not a data item it can name).
    var at = c.convertToPixel({seriesId: "pts" + m.k}, [xs(s, axis)[m.i], m.pin ? s.value[m.i] : m.y]);
    if (at) c.dispatchAction({type: "showTip", x: at[0], y: at[1], tooltip: {formatter: function () { return PG.esc(m.evidence); }}});
    x.picked.textContent = "";
    x.picked.appendChild(document.createTextNode(m.text + " · commit "));
    x.picked.appendChild(PG.commitNode(P.repo_url, m.commit, 12));
  }

  // What the chart shows, for a screen reader: each series' runs, latest value and last change.
  function describe(m, list) {
    if (!list.length) return "Chart of " + m + ": no series ticked above.";
    return "Chart of " + m + ": " + list.map(function (s) {
      var n = s.value.length, last = s.change_points[s.change_points.length - 1];
      return combo(s) + ", " + (s.skipped ? "the newest " + n + " of " + s.runs_total + " runs" : n + " run(s)") +
        ", latest " + PG.inUnit(s.value[n - 1], s) +
        (last ? ", last change " + PG.pct(last.magnitude) + " at " + last.first_commit.slice(0, 12) : ", no change point");
    }).join("; ") + ". Every point is in the table of points below the chart.";
  }

  // The chart's points as a table, built when opened (a long history is thousands of rows).
  function pointsTable(P, list) {
    var total = list.reduce(function (t, s) { return t + s.value.length; }, 0);
    var box = PG.el("details", {class: "points"}, PG.el("summary", {text: "the points as a table (" + total + ")"}));
    box.addEventListener("toggle", function () {
      if (!box.open || box.querySelector("table")) return;
      var tb = PG.el("tbody");
      var anyLoad = list.some(function (s) { return Object.keys(s.loadAt).length > 0; });
      list.forEach(function (s) {
        s.value.forEach(function (v, i) {
          var lo = s.lower[i], hi = s.upper[i];
          var row = PG.el("tr", {}, PG.el("td", {text: combo(s)}), PG.el("td", {}, PG.commitNode(P.repo_url, s.commit[i], 12)),
            PG.el("td", {text: s.time[i] || ""}), PG.el("td", {class: "num", text: PG.inUnit(v, s)}),
            PG.el("td", {class: "num", text: lo != null && hi != null ? PG.inUnit(lo, s) + " … " + PG.inUnit(hi, s) : ""}),
            PG.el("td", {class: "num", text: String(s.n[i])}));
          if (anyLoad) row.appendChild(PG.el("td", {class: "num", text: i in s.loadAt ? Math.round(100 * s.loadAt[i]) + "%" : ""}));
          tb.appendChild(row);
        });
      });
      var head = PG.el("tr", {},
        PG.el("th", {text: "branch @ testbed"}), PG.el("th", {text: "commit"}), PG.el("th", {text: "date"}),
        PG.el("th", {class: "num", text: "value"}), PG.el("th", {class: "num", text: "interval"}),
        PG.el("th", {class: "num", text: "samples"}));
      if (anyLoad) head.appendChild(PG.el("th", {class: "num", text: "CPU others took (loaded runs)"}));
      box.appendChild(PG.el("div", {class: "table-scroll"}, PG.el("table", {class: "evidence"}, PG.el("thead", {}, head), tb)));
    });
    return box;
  }

  // An alert that no longer calls for anyone (acknowledged, undone — a revert's way back too —,
  // its streak ended, withdrawn): its pin is grey and its row in the evidence table reads as its pin.
  function closed(a) {
    return a.status !== "active" || !!(a.undone_at || a.ended_at || a.withdrawn_at);
  }

  // "active, undone at X": a later improvement won back at least half of it (notify closes its issue),
  // or its series went back there without an alert of its own (a revert: "went back" and its evidence);
  // "active, streak ended at X": a threshold streak a later run of a backfill ended;
  // "active, no longer found at X": a change point the analysis of the runs up to X withdrew.
  function alertStatus(a) {
    var back = a.went_back ? " (went back " + PG.pct(a.went_back.magnitude, 2) + " " +
      PG.ciText(a.went_back.ci_low, a.went_back.ci_high, a.went_back.ci_level) + ", " + PG.pText(a.went_back.p_value) + ")" : "";
    return a.status + (a.undone_at ? ", undone at " + a.undone_at.slice(0, 12) + back :
      a.withdrawn_at ? ", no longer found at " + a.withdrawn_at.slice(0, 12) : "") +
      (a.ended_at ? ", streak ended at " + a.ended_at.slice(0, 12) : "");
  }

  // A change (or its alert) found by testing this series where sibling series changed names them,
  // as does one found alone and placed at their commit.
  function whereSiblings(a) {
    if (a.siblings && a.siblings.length) return "; tested here because " + a.siblings.join(", ") + " changed here";
    if (a.placed_with && a.placed_with.length) return "; placed here because " + a.placed_with.join(", ") + " changed here";
    return "";
  }

  function evidence(P, list) {
    var rows = [];
    list.forEach(function (s) {
      s.change_points.forEach(function (c) {
        rows.push([c.direction === "regression" ? "bad" : "good", "change point", combo(s), c.first_commit,
                   c.direction + " " + PG.pct(c.magnitude, 2) + " (" + PG.ciText(c.ci_low, c.ci_high, c.ci_level) + ")",
                   PG.inUnit(c.before, s) + " → " + PG.inUnit(c.after, s),
                   PG.confidence(c.p_value) + " · range " + c.commit_range + whereSiblings(c)]);
      });
      s.alerts.forEach(function (a) {
        rows.push([closed(a) ? "closed" : a.direction === "regression" ? "bad" : "good", "alert (" + alertStatus(a) + ")", combo(s), a.commit,
                   PG.kindText(a.kind) + " " + a.direction + " " + PG.pct(a.magnitude, 2) + " as alerted" +
                   alertInterval(a), "",
                   (a.p_value != null ? PG.pText(a.p_value) + " · " : "") + "id " + a.id + whereSiblings(a)]);
      });
    });
    if (!rows.length) return PG.el("p", {class: "muted", text: list.length ? "No change point or alert in these series." : ""});
    var tb = PG.el("tbody");
    rows.forEach(function (r) {
      tb.appendChild(PG.el("tr", {}, PG.el("td", {class: r[0], text: r[1]}), PG.el("td", {text: r[2]}),
        PG.el("td", {}, PG.commitNode(P.repo_url, r[3], 12)), PG.el("td", {class: "num " + r[0], text: r[4]}),
        PG.el("td", {class: "num", text: r[5]}), PG.el("td", {text: r[6]})));
    });
    return PG.el("div", {class: "table-scroll"}, PG.el("table", {class: "evidence"}, PG.el("thead", {}, PG.el("tr", {},
      PG.el("th", {text: "what"}), PG.el("th", {text: "branch @ testbed"}), PG.el("th", {text: "first commit"}),
      PG.el("th", {class: "num", text: "change [CI]"}), PG.el("th", {class: "num", text: "before → after"}),
      PG.el("th", {text: "evidence"}))), tb));
  }
})();
