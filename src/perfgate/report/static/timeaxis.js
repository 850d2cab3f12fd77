// Ticks of a date axis at regular calendar steps (every 6 hours, every other day, Mondays, the
// first of every third month, …), in UTC: the page's dates (tooltips, tables, alerts) and the
// terminal's are UTC, and the chart is set to draw in UTC (useUTC).  In the reader's zone a run at
// 23:30 UTC sat left of the next day's tick east of Greenwich, and day ticks moved at daylight
// saving changes.  ECharts' own
// time ticks restart at each month's first day: a weekly axis read "Nov 29, Dec 1, Dec 6, Dec 8,
// Dec 15" (and 1 and 6 drew over each other), whatever the data's gaps.
"use strict";
var PG_TIME = (function () {
  var HOUR = 3600e3, DAY = 24 * HOUR;
  // [unit, every, about how long]: the steps tried, shortest first
  var STEPS = [["minute", 1, 60e3], ["minute", 5, 300e3], ["minute", 15, 900e3], ["minute", 30, 1800e3],
               ["hour", 1, HOUR], ["hour", 3, 3 * HOUR], ["hour", 6, 6 * HOUR], ["hour", 12, 12 * HOUR],
               ["day", 1, DAY], ["day", 2, 2 * DAY], ["week", 1, 7 * DAY], ["week", 2, 14 * DAY],
               ["month", 1, 30.4 * DAY], ["month", 2, 61 * DAY], ["month", 3, 91 * DAY], ["month", 6, 183 * DAY],
               ["year", 1, 365.2 * DAY], ["year", 2, 730 * DAY], ["year", 5, 1826 * DAY], ["year", 10, 3652 * DAY]];

  // The UTC calendar day a time falls on, counted from 1970-01-05 (a Monday): steps of days and
  // weeks count from one fixed day, not from each month's first (which made the uneven gaps).
  function dayNumber(d) {
    return Math.floor((d.getTime() - Date.UTC(1970, 0, 5)) / DAY);
  }

  // Whether a UTC time that starts its unit (a whole minute, hour, day, month or year) is a tick.
  function onStep(d, unit, every) {
    switch (unit) {
      case "minute": return d.getUTCMinutes() % every === 0;
      case "hour": return d.getUTCHours() % every === 0;
      case "day": return dayNumber(d) % every === 0;
      case "week": return dayNumber(d) % (7 * every) === 0;
      case "month": return d.getUTCMonth() % every === 0;
      default: return d.getUTCFullYear() % every === 0;
    }
  }

  // The start of d's unit (``after`` 1: of the unit after it), in UTC; Date.UTC normalises a
  // 32nd day or a 13th month.
  function begin(d, unit, after) {
    var y = d.getUTCFullYear(), m = d.getUTCMonth(), day = d.getUTCDate(), h = d.getUTCHours();
    switch (unit) {
      case "minute": return new Date(Date.UTC(y, m, day, h, d.getUTCMinutes() + after));
      case "hour": return new Date(Date.UTC(y, m, day, h + after));
      case "day": case "week": return new Date(Date.UTC(y, m, day + after));
      case "month": return new Date(Date.UTC(y, m + after, 1));
      default: return new Date(Date.UTC(y + after, 0, 1));
    }
  }

  // The ticks between lo and hi (epoch ms) at the shortest step that gives at most ``most`` of
  // them: {unit, every, values}.
  function ticks(lo, hi, most) {
    most = Math.max(most, 2);
    var step = STEPS.filter(function (s) { return (hi - lo) / s[2] <= most; })[0] || STEPS[STEPS.length - 1];
    var unit = step[0], every = step[1], values = [];
    for (var d = begin(new Date(lo), unit, 0); d.getTime() <= hi && values.length <= 4 * most; d = begin(d, unit, 1)) {
      if (d.getTime() >= lo && onStep(d, unit, every)) values.push(d.getTime());
    }
    return {unit: unit, every: every, values: values};
  }

  // A tick's text: "2024", "Mar 2024", "Mar 5" (", 2024" on the first tick and where the year
  // changes), "14:00" ("Mar 5" at midnight, and the day on the first tick and where it changes);
  // all in UTC, as the ticks (echarts.time.format's third argument: isUTC).
  function label(unit, values, i) {
    var v = values[i], before = i > 0 ? new Date(values[i - 1]) : null, d = new Date(v);
    var f = function (pattern) { return echarts.time.format(v, pattern, true); };
    if (unit === "year") return f("{yyyy}");
    if (unit === "month") return f("{MMM} {yyyy}");
    if (unit === "day" || unit === "week") {
      return f("{MMM} {d}") + (!before || before.getUTCFullYear() !== d.getUTCFullYear() ? ", " + d.getUTCFullYear() : "");
    }
    if (!before || dayNumber(before) !== dayNumber(d)) {
      return f(d.getUTCHours() || d.getUTCMinutes() ? "{MMM} {d} {HH}:{mm}" : "{MMM} {d}");
    }
    return f("{HH}:{mm}");
  }

  // Whether dates would crowd the runs: some tenth of the commits (3 at least) lies within a
  // fiftieth of the dates' span, so a date axis draws them five times as close as the average,
  // a tenth of the points on 2% of its width.  A history backfilled at its commits' dates and
  // then run on each new commit (a day of runs after half a year) put its newest runs, and their
  // change points, in the axis' last few pixels.  ``times``: epoch ms, ascending.
  function crowded(times) {
    var n = times.length, w = Math.max(3, Math.ceil(n / 10)), span = times[n - 1] - times[0];
    for (var i = 0; i + w <= n; i++) if (times[i + w - 1] - times[i] < span / 50 || !span) return true;
    return false;
  }

  return {ticks: ticks, label: label, crowded: crowded};
})();
