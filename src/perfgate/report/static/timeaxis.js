// Ticks of a date axis at regular calendar steps (every 6 hours, every other day, Mondays, the
// first of every third month, …), in the reader's time zone as ECharts draws dates.  ECharts' own
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

  // The local calendar day a time falls on, counted from 1970-01-05 (a Monday): steps of days and
  // weeks count from one fixed day, not from each month's first (which made the uneven gaps).
  function dayNumber(d) {
    return Math.round((Date.UTC(d.getFullYear(), d.getMonth(), d.getDate()) - Date.UTC(1970, 0, 5)) / DAY);
  }

  // Whether a local time that starts its unit (a whole minute, hour, day, month or year) is a tick.
  function onStep(d, unit, every) {
    switch (unit) {
      case "minute": return d.getMinutes() % every === 0;
      case "hour": return d.getHours() % every === 0;
      case "day": return dayNumber(d) % every === 0;
      case "week": return dayNumber(d) % (7 * every) === 0;
      case "month": return d.getMonth() % every === 0;
      default: return d.getFullYear() % every === 0;
    }
  }

  // The start of the unit after d's (local time; Date normalises a 32nd day or a 13th month).
  function next(d, unit) {
    var y = d.getFullYear(), m = d.getMonth(), day = d.getDate();
    switch (unit) {
      case "minute": return new Date(y, m, day, d.getHours(), d.getMinutes() + 1);
      case "hour": return new Date(y, m, day, d.getHours() + 1);
      case "day": case "week": return new Date(y, m, day + 1);
      case "month": return new Date(y, m + 1, 1);
      default: return new Date(y + 1, 0, 1);
    }
  }

  function start(t, unit) {
    var d = new Date(t);
    switch (unit) {
      case "minute": return new Date(d.getFullYear(), d.getMonth(), d.getDate(), d.getHours(), d.getMinutes());
      case "hour": return new Date(d.getFullYear(), d.getMonth(), d.getDate(), d.getHours());
      case "day": case "week": return new Date(d.getFullYear(), d.getMonth(), d.getDate());
      case "month": return new Date(d.getFullYear(), d.getMonth(), 1);
      default: return new Date(d.getFullYear(), 0, 1);
    }
  }

  // The ticks between lo and hi (epoch ms) at the shortest step that gives at most ``most`` of
  // them: {unit, every, values}.
  function ticks(lo, hi, most) {
    most = Math.max(most, 2);
    var step = STEPS.filter(function (s) { return (hi - lo) / s[2] <= most; })[0] || STEPS[STEPS.length - 1];
    var unit = step[0], every = step[1], values = [];
    for (var d = start(lo, unit); d.getTime() <= hi && values.length <= 4 * most; d = next(d, unit)) {
      if (d.getTime() >= lo && onStep(d, unit, every)) values.push(d.getTime());
    }
    return {unit: unit, every: every, values: values};
  }

  // A tick's text: "2024", "Mar 2024", "Mar 5" (", 2024" on the first tick and where the year
  // changes), "14:00" ("Mar 5" at midnight, and the day on the first tick and where it changes).
  function label(unit, values, i) {
    var v = values[i], before = i > 0 ? new Date(values[i - 1]) : null, d = new Date(v);
    var f = echarts.time.format;
    if (unit === "year") return f(v, "{yyyy}", false);
    if (unit === "month") return f(v, "{MMM} {yyyy}", false);
    if (unit === "day" || unit === "week") {
      return f(v, "{MMM} {d}", false) + (!before || before.getFullYear() !== d.getFullYear() ? ", " + d.getFullYear() : "");
    }
    if (!before || before.toDateString() !== d.toDateString()) {
      return f(v, d.getHours() || d.getMinutes() ? "{MMM} {d} {HH}:{mm}" : "{MMM} {d}", false);
    }
    return f(v, "{HH}:{mm}", false);
  }

  return {ticks: ticks, label: label};
})();
