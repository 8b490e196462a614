/**
 * Part of the viewer script (see `script.ts`): two evaluations compared row by row. Both come from one
 * `eval_results/query`, which joins their rows by row digest; per score the summary of each and the delta
 * (this evaluation − the baseline), then the rows, regressions first (the largest drop of any score first), then
 * improvements, then the rest. Hash: `eval` (this one), `compare` (the baseline).
 */
export const EVALS_COMPARE_SCRIPT = String.raw`
  function loadCompare() {
    var evalId = state.evalId, baseId = state.compareId;
    return request("POST", evalResultsPath(), {
      evaluation_call_ids: [evalId, baseId], include_raw_data_rows: true, resolve_row_refs: true, include_summary: true
    }).then(function (text) {
      if (evalId !== state.evalId || baseId !== state.compareId) return;
      var key = "compare" + text + evalCache.roots.length;
      if (key === state.evalKey) return;
      state.evalKey = key;
      renderCompare(JSON.parse(text), evalId, baseId);
    });
  }

  // Per score key, the mean of a row's trials in one evaluation (booleans as 1/0); undefined when not scored.
  function rowMeans(row, evalId) {
    var e = row.evaluations.filter(function (x) { return x.evaluation_call_id === evalId; })[0];
    if (!e) return null;
    var sums = {};
    e.trials.forEach(function (t) {
      function add(prefix, v) {
        if (v && typeof v === "object" && !Array.isArray(v)) return Object.keys(v).forEach(function (k) { add(prefix + "." + k, v[k]); });
        if (typeof v !== "number" && typeof v !== "boolean") return;
        var s = sums[prefix] || (sums[prefix] = [0, 0]);
        s[0] += v === true ? 1 : v === false ? 0 : v;
        s[1] += 1;
      }
      Object.keys(t.scores || {}).forEach(function (k) { add(k, t.scores[k]); });
    });
    var out = { _trials: e.trials };
    Object.keys(sums).forEach(function (k) { out[k] = sums[k][0] / sums[k][1]; });
    return out;
  }
  function fmtMean(v) {
    return v === undefined || v === null ? "—" : Math.abs(v) >= 100 ? v.toFixed(0) : String(Number(v.toPrecision(3)));
  }
  function fmtDelta(d) {
    if (d === undefined) return "";
    if (Math.abs(d) < 1e-12) return "±0";
    return (d > 0 ? "+" : "") + Number(d.toPrecision(3));
  }

  function renderCompare(data, evalId, baseId) {
    var box = $("eval");
    box.textContent = "";
    var byId = {};
    evalCache.roots.forEach(function (r) { byId[r.id] = r; });
    var mine = byId[evalId], base = byId[baseId];
    var nameOf = function (r, id) { return r ? evalInfo(r).name : id; };
    box.appendChild(el("div", { class: "eval-head" }, [
      el("h2", {}, [nameOf(mine, evalId), el("span", { class: "muted", text: "  vs baseline  " }), nameOf(base, baseId)]),
      el("div", { class: "eval-tools" }, [
        el("button", { type: "button", text: "✕ stop comparing", onclick: function () { navigate({ compareId: null }); } }),
        el("button", { type: "button", text: "⇄ swap", onclick: function () { navigate({ evalId: baseId, compareId: evalId }); } })
      ])
    ]));
    // Summary deltas, from the root outputs (the service's summary rules).
    var now = headlines(mine && mine.output), then = headlines(base && base.output);
    var keys = [];
    now.concat(then).forEach(function (h) { if (keys.indexOf(h.key) === -1) keys.push(h.key); });
    var find = function (list, k) { return list.filter(function (h) { return h.key === k; })[0]; };
    var sumBody = el("tbody", {}, keys.map(function (k) {
      var a = find(now, k), b = find(then, k);
      var d = a && b ? a.value - b.value : undefined;
      return el("tr", { "data-key": k, class: d === undefined ? "" : d < -1e-12 ? "regressed" : d > 1e-12 ? "improved" : "" }, [
        el("td", { text: k }), el("td", { class: "num", text: b ? fmtHeadline(b) : "—" }), el("td", { class: "num", text: a ? fmtHeadline(a) : "—" }),
        el("td", { class: "num delta", text: d === undefined ? "" : fmtDelta(a.kind === "fraction" ? d * 100 : d) + (a.kind === "fraction" ? " pts" : "") })
      ]);
    }));
    box.appendChild(el("table", { id: "compare-summary" }, [
      el("thead", {}, [el("tr", {}, ["Score", "Baseline", "This", "Δ"].map(function (h) { return el("th", { text: h }); }))]), sumBody
    ]));
    // Rows joined by digest: per score key the two means and the delta; the worst drop decides the order.
    var scoreKeysAll = [];
    var joined = data.rows.map(function (row) {
      var a = rowMeans(row, evalId), b = rowMeans(row, baseId);
      var deltas = {}, worst = 0, best = 0;
      [a, b].forEach(function (m) { if (m) Object.keys(m).forEach(function (k) { if (k !== "_trials" && scoreKeysAll.indexOf(k) === -1) scoreKeysAll.push(k); }); });
      if (a && b) Object.keys(a).forEach(function (k) {
        if (k === "_trials" || b[k] === undefined) return;
        deltas[k] = a[k] - b[k];
        worst = Math.min(worst, deltas[k]);
        best = Math.max(best, deltas[k]);
      });
      return { row: row, a: a, b: b, deltas: deltas, worst: worst, best: best };
    });
    joined.sort(function (x, y) {
      var rank = function (j) { return j.worst < -1e-12 ? 0 : j.best > 1e-12 ? 1 : j.a && j.b ? 2 : 3; };
      return rank(x) - rank(y) || x.worst - y.worst || y.best - x.best;
    });
    var regressions = joined.filter(function (j) { return j.worst < -1e-12; }).length;
    var improvements = joined.filter(function (j) { return j.worst >= -1e-12 && j.best > 1e-12; }).length;
    box.appendChild(el("div", { class: "muted", id: "compare-count", text: joined.length + " rows · " + regressions + " regressed · " + improvements + " improved" }));
    var head = el("thead", {}, [el("tr", {}, ["Inputs"].concat(scoreKeysAll.map(function (k) { return k + " (base → this)"; })).map(function (h) {
      return el("th", { text: h });
    }))]);
    var body = el("tbody", {}, joined.map(function (j) {
      var cells = [el("td", { class: "inputs", text: short(j.row.raw_data_row, 70), title: JSON.stringify(j.row.raw_data_row) })];
      scoreKeysAll.forEach(function (k) {
        var d = j.deltas[k];
        cells.push(el("td", { class: "score" + (d === undefined ? "" : d < -1e-12 ? " bad" : d > 1e-12 ? " good" : ""), "data-key": k },
          [fmtMean(j.b && j.b[k]) + " → " + fmtMean(j.a && j.a[k]), d === undefined ? "" : " (" + fmtDelta(d) + ")"]));
      });
      var trial = j.a && j.a._trials[0];
      return el("tr", {
        "data-row-digest": j.row.row_digest,
        class: j.worst < -1e-12 ? "regressed" : j.best > 1e-12 ? "improved" : !(j.a && j.b) ? "unmatched" : "",
        title: trial ? "open this row's trace" : "",
        onclick: function () { if (trial && mine) navigate({ view: "traces", traceId: mine.trace_id, callId: trial.predict_and_score_call_id }); }
      }, cells);
    }));
    box.appendChild(el("table", { id: "compare-rows" }, [head, body]));
  }
`;
