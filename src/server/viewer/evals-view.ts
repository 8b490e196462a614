/**
 * Part of the viewer script (see `script.ts`): the Evaluations view. The list holds every evaluation of the project
 * (root `Evaluation.evaluate` calls, from `tracewire/eval`, the vendor's SDKs or the v2 evaluation runs) with its
 * dataset, model, scorers, summary and date; one evaluation opens as its rows (inputs, output, every score,
 * latency, tokens), read from `/v2/{entity}/{project}/eval_results/query`, filtered to failed or low-scoring rows;
 * a row opens its trace. Comparing two evaluations is in `evals-compare.ts`. Hash: `view=evals`, `eval`, `rows`,
 * `compare`.
 */
export const EVALS_VIEW_SCRIPT = String.raw`
  var EVAL_LIMIT = 100;
  var evalCache = { roots: [], objects: {} };

  function refName(ref) {
    if (typeof ref !== "string") return "";
    var m = /\/(?:object|op)\/([^:/]+):/.exec(ref);
    return m ? m[1] : ref;
  }
  function evalResultsPath() {
    var parts = state.project.split("/");
    return "/v2/" + encodeURIComponent(parts[0]) + "/" + encodeURIComponent(parts[1]) + "/eval_results/query";
  }
  function evalStatus(root) {
    var tw = root.summary && root.summary.tracewire;
    if (tw && tw.status === "cancelled") return "cancelled";
    if (root.exception) return "error";
    return root.ended_at ? "done" : "running";
  }
  // A summary's headline numbers: per scorer, its true fraction or mean (first level below the scorer for objects).
  function headlines(summary) {
    var out = [];
    Object.keys(summary || {}).forEach(function (key) {
      if (key === "model_latency" || key === "output" || key === "model_success") return;
      var v = summary[key];
      function push(label, node) {
        if (node && typeof node.true_fraction === "number") out.push({ key: label, value: node.true_fraction, kind: "fraction" });
        else if (node && typeof node.mean === "number") out.push({ key: label, value: node.mean, kind: "mean" });
      }
      if (v && (typeof v.true_fraction === "number" || typeof v.mean === "number")) push(key, v);
      else if (v && typeof v === "object") Object.keys(v).forEach(function (k) { push(key + "." + k, v[k]); });
    });
    return out;
  }
  function fmtHeadline(h) {
    return h.kind === "fraction" ? (h.value * 100).toFixed(1) + "%" : (Math.abs(h.value) >= 100 ? h.value.toFixed(0) : h.value.toPrecision(3));
  }
  function fmtScore(v) {
    if (v === true) return "✓";
    if (v === false) return "✗";
    if (v === null || v === undefined) return "—";
    if (typeof v === "number") return Math.abs(v) >= 100 || Number.isInteger(v) ? String(v) : v.toPrecision(3);
    return typeof v === "string" ? v : JSON.stringify(v);
  }
  function short(value, n) {
    var text = typeof value === "string" ? value : JSON.stringify(value);
    if (text === undefined) return "";
    return text.length > n ? text.slice(0, n - 1) + "…" : text;
  }

  function loadEvals() {
    if (!state.project || state.view !== "evals") return Promise.resolve();
    var project = state.project;
    return rows("/calls/stream_query", {
      project_id: project,
      filter: { op_names: ["weave:///" + project + "/op/Evaluation.evaluate:*", "Evaluation.evaluate"], trace_roots_only: true },
      sort_by: [{ field: "started_at", direction: "desc" }], limit: EVAL_LIMIT
    }).then(function (roots) {
      var refs = {};
      roots.forEach(function (r) { var s = r.inputs && r.inputs.self; if (typeof s === "string" && s.indexOf("weave:///") === 0 && !(s in evalCache.objects)) refs[s] = true; });
      return Promise.all(Object.keys(refs).map(function (ref) {
        return request("POST", "/refs/read_batch", { refs: [ref] }).then(function (text) {
          evalCache.objects[ref] = JSON.parse(text).vals[0];
        }, function () { evalCache.objects[ref] = null; });
      })).then(function () { return roots; });
    }).then(function (roots) {
      if (project !== state.project) return;
      evalCache.roots = roots;
      var key = JSON.stringify(roots) + state.evalId + state.compareId;
      if (key !== state.evalsKey) {
        state.evalsKey = key;
        renderEvals(roots);
      }
      return loadEval();
    });
  }

  function evalInfo(root) {
    var obj = evalCache.objects[root.inputs && root.inputs.self] || {};
    var scorers = Array.isArray(obj.scorers) ? obj.scorers.map(refName) : [];
    return {
      name: root.display_name || refName(root.inputs && root.inputs.self) || "evaluation",
      evaluation: refName(root.inputs && root.inputs.self) || obj.name || "",
      dataset: refName(obj.dataset),
      model: refName(root.inputs && root.inputs.model),
      scorers: scorers
    };
  }

  function renderEvals(roots) {
    var box = $("evals");
    box.textContent = "";
    if (!roots.length) {
      box.appendChild(el("div", { class: "empty" }, ["No evaluations in " + state.project + " yet. Run one with ",
        el("code", { text: "evaluate()" }), " from tracewire/eval, or ", el("code", { text: "npx tracewire eval <file>" })]));
      return;
    }
    var body = el("tbody");
    roots.forEach(function (root) {
      var info = evalInfo(root);
      var chips = headlines(root.output).map(function (h) {
        return el("span", { class: "chip", title: h.key }, [el("b", { text: h.key }), " " + fmtHeadline(h)]);
      });
      var status = evalStatus(root);
      body.appendChild(el("tr", {
        "data-eval-id": root.id, class: root.id === state.evalId ? "selected" : root.id === state.compareId ? "compared" : "",
        onclick: function () { navigate({ evalId: root.id, compareId: null, rowFilter: null }); }
      }, [
        el("td", { class: "op", text: info.name, title: info.evaluation }),
        el("td", { text: info.dataset }),
        el("td", { text: info.model }),
        el("td", { class: "chips" }, chips.length ? chips : [el("span", { class: "muted", text: info.scorers.join(", ") })]),
        el("td", {}, [el("span", { class: "status " + (status === "done" ? "success" : status === "running" ? "running" : "error"), text: status })]),
        el("td", { text: fmtTime(root.started_at), title: root.started_at })
      ]));
    });
    var head = el("thead", {}, [el("tr", {}, ["Evaluation", "Dataset", "Model", "Summary", "Status", "Started"].map(function (h) {
      return el("th", { text: h });
    }))]);
    box.appendChild(el("table", { id: "eval-list" }, [head, body]));
  }

  function clearEval() {
    $("eval").textContent = "";
    $("eval").appendChild(el("div", { class: "empty", text: "Select an evaluation to see its rows." }));
  }

  function loadEval() {
    if (!state.evalId) { clearEval(); return Promise.resolve(); }
    if (state.compareId) return loadCompare();
    var evalId = state.evalId;
    return request("POST", evalResultsPath(), {
      evaluation_call_ids: [evalId], include_raw_data_rows: true, resolve_row_refs: true, include_summary: true
    }).then(function (text) {
      if (evalId !== state.evalId || state.compareId) return;
      var key = text + state.rowFilter + evalCache.roots.length;
      if (key === state.evalKey) return;
      state.evalKey = key;
      renderEval(JSON.parse(text));
    });
  }

  // Score columns: each scorer, and each key of an object scorer.
  function scoreKeys(trials) {
    var keys = [];
    function add(prefix, value) {
      if (value && typeof value === "object" && !Array.isArray(value)) Object.keys(value).forEach(function (k) { add(prefix + "." + k, value[k]); });
      else if (keys.indexOf(prefix) === -1) keys.push(prefix);
    }
    trials.forEach(function (t) { Object.keys(t.scores || {}).forEach(function (k) { add(k, t.scores[k]); }); });
    return keys;
  }
  function scoreAt(scores, key) {
    var node = scores;
    key.split(".").forEach(function (part) { node = node && typeof node === "object" ? node[part] : undefined; });
    return node;
  }
  function isFailed(t) { return Boolean(t.failed || t.exception); }

  function renderEval(data) {
    var box = $("eval");
    box.textContent = "";
    var root = evalCache.roots.filter(function (r) { return r.id === state.evalId; })[0];
    var info = root ? evalInfo(root) : { name: state.evalId, dataset: "", model: "" };
    var flat = [];
    data.rows.forEach(function (row, i) {
      (row.evaluations[0] ? row.evaluations[0].trials : []).forEach(function (t) { flat.push({ row: row, index: i, trial: t }); });
    });
    var keys = scoreKeys(flat.map(function (f) { return f.trial; }));
    var means = {};
    keys.forEach(function (k) {
      var xs = flat.map(function (f) { return scoreAt(f.trial.scores, k); }).filter(function (v) { return typeof v === "number"; });
      if (xs.length) means[k] = xs.reduce(function (a, b) { return a + b; }, 0) / xs.length;
    });
    function low(t) {
      return keys.some(function (k) {
        var v = scoreAt(t.scores, k);
        return v === false || (typeof v === "number" && means[k] !== undefined && v < means[k]);
      });
    }
    var shown = flat.filter(function (f) {
      if (state.rowFilter === "failed") return isFailed(f.trial);
      if (state.rowFilter === "low") return isFailed(f.trial) || low(f.trial);
      return true;
    });
    var others = evalCache.roots.filter(function (r) { return r.id !== state.evalId; });
    var picker = el("select", { id: "compare-with", "aria-label": "compare with", onchange: function (e) { if (e.target.value) navigate({ compareId: e.target.value }); } },
      [el("option", { value: "", text: "compare with…" })].concat(others.map(function (r) {
        var o = evalInfo(r);
        return el("option", { value: r.id, text: o.name + " · " + fmtTime(r.started_at) });
      })));
    var filter = el("select", { id: "row-filter", "aria-label": "filter rows", onchange: function (e) { navigate({ rowFilter: e.target.value || null }); } }, [
      el("option", { value: "", text: "all rows" }), el("option", { value: "failed", text: "failed rows" }),
      el("option", { value: "low", text: "failed or low-scoring rows" })
    ]);
    filter.value = state.rowFilter || "";
    box.appendChild(el("div", { class: "eval-head" }, [
      el("h2", { text: info.name }),
      el("div", { class: "ids", text: [info.dataset && "dataset " + info.dataset, info.model && "model " + info.model, root && evalStatus(root)].filter(Boolean).join(" · ") }),
      el("div", { class: "chips" }, headlines(root && root.output).map(function (h) {
        return el("span", { class: "chip" }, [el("b", { text: h.key }), " " + fmtHeadline(h)]);
      })),
      el("div", { class: "eval-tools" }, [filter, picker, el("span", { id: "eval-count", class: "muted", text: shown.length + " of " + flat.length + " rows" })])
    ]));
    var multi = flat.some(function (f) { return f.row.evaluations[0].trials.length > 1; });
    var head = el("thead", {}, [el("tr", {}, ["#"].concat(multi ? ["Trial"] : [], ["Inputs", "Output"], keys, ["Latency", "Tokens"]).map(function (h) {
      return el("th", { text: h });
    }))]);
    var body = el("tbody");
    shown.forEach(function (f) {
      var t = f.trial;
      var cells = [el("td", { class: "num", text: String(f.index + 1) })];
      if (multi) cells.push(el("td", { class: "num", text: t.trial_index === null || t.trial_index === undefined ? "" : String(t.trial_index) }));
      cells.push(el("td", { class: "inputs", text: short(f.row.raw_data_row, 80), title: JSON.stringify(f.row.raw_data_row) }));
      cells.push(isFailed(t)
        ? el("td", { class: "output failed", text: short(t.exception || "failed", 80), title: t.exception || "" })
        : el("td", { class: "output", text: short(t.model_output, 80), title: typeof t.model_output === "string" ? t.model_output : JSON.stringify(t.model_output) }));
      keys.forEach(function (k) {
        var v = scoreAt(t.scores, k);
        cells.push(el("td", { class: "score" + (v === false ? " bad" : v === true ? " good" : ""), "data-key": k, text: fmtScore(v) }));
      });
      cells.push(el("td", { class: "num", text: typeof t.model_latency_seconds === "number" ? t.model_latency_seconds.toFixed(2) + " s" : "" }));
      cells.push(el("td", { class: "num", text: t.total_tokens === null || t.total_tokens === undefined ? "" : String(t.total_tokens) }));
      body.appendChild(el("tr", {
        "data-row-digest": f.row.row_digest, "data-call-id": t.predict_and_score_call_id, class: isFailed(t) ? "failed" : "",
        title: "open this row's trace",
        onclick: function () { navigate({ view: "traces", traceId: root ? root.trace_id : null, callId: t.predict_and_score_call_id }); }
      }, cells));
    });
    box.appendChild(el("table", { id: "eval-rows" }, [head, body]));
    if (!shown.length) box.appendChild(el("div", { class: "empty", text: flat.length ? "No rows match this filter." : "No rows scored yet." }));
  }
`;
