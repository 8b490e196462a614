/**
 * Part of the viewer script (see `script.ts`): the trace list, newest first, and its filters. The op filter
 * matches the root's name (`summary.weave.trace_name`, part of it, any case), the status filter the service's
 * derived `summary.weave.status`; both go to `/calls/stream_query` as a query. The text filter finds the traces in
 * which any call mentions the text (op name, inputs, output or exception, any case) with one query over all calls,
 * then lists those traces' roots. The filters live in the URL hash (`op`, `status`, `q`). A trace's tokens and models
 * are its root's `summary.usage` (which holds the whole trace's: usage is rolled up the call tree).
 */
export const TRACE_LIST_SCRIPT = String.raw`
  var LIST_LIMIT = 100;
  var TEXT_FIELDS = ["op_name", "display_name", "inputs", "output", "exception"];
  var seenOps = {};

  function containsQuery(field, text) {
    return { $contains: { input: { $getField: field }, substr: { $literal: text }, case_insensitive: true } };
  }
  function rootQuery() {
    var parts = [];
    if (state.op) parts.push(containsQuery("summary.weave.trace_name", state.op));
    if (state.status) parts.push({ $eq: [{ $getField: "summary.weave.status" }, { $literal: state.status }] });
    if (!parts.length) return undefined;
    return { $expr: parts.length === 1 ? parts[0] : { $and: parts } };
  }
  // The ids of the traces with a call that mentions the text, or null without a text filter.
  function tracesMentioning(project) {
    if (!state.q) return Promise.resolve(null);
    return rows("/calls/stream_query", {
      project_id: project, columns: ["trace_id"],
      query: { $expr: { $or: TEXT_FIELDS.map(function (f) { return containsQuery(f, state.q); }) } }
    }).then(function (calls) {
      var ids = {};
      calls.forEach(function (c) { ids[c.trace_id] = true; });
      return Object.keys(ids);
    });
  }

  function loadTraces() {
    if (!state.project || state.view !== "traces") return Promise.resolve();
    var project = state.project;
    var filterKey = [state.op, state.status, state.q].join("\u0000");
    return tracesMentioning(project).then(function (traceIds) {
      if (traceIds && !traceIds.length) return [];
      var filter = { trace_roots_only: true };
      if (traceIds) filter.trace_ids = traceIds;
      return rows("/calls/stream_query", {
        project_id: project, filter: filter, query: rootQuery(),
        sort_by: [{ field: "started_at", direction: "desc" }], limit: LIST_LIMIT
      });
    }).then(function (roots) {
      if (!roots.length) return { roots: roots, calls: [] };
      return rows("/calls/stream_query", {
        project_id: project, filter: { trace_ids: roots.map(function (r) { return r.trace_id; }) },
        columns: ["parent_id", "summary", "exception", "ended_at", "attributes"]
      }).then(function (calls) { return { roots: roots, calls: calls }; });
    }).then(function (data) {
      if (project !== state.project || filterKey !== [state.op, state.status, state.q].join("\u0000")) return;
      var key = filterKey + JSON.stringify(data);
      if (key === state.listKey) return;
      state.listKey = key;
      renderTraces(data.roots, data.calls);
    });
  }

  // A trace's tokens and models come from its root's summary.usage, which holds the usage of every call below it
  // (tracewire, like the vendor's SDKs, rolls usage up the call tree). A root without usage (another
  // instrumentation's span, a trace written without rollup) counts its topmost calls with usage instead: each holds
  // its own subtree, so no request is counted twice. Models named only in call attributes show when none has usage.
  function hasUsage(c) {
    return Boolean(c.summary && c.summary.usage && Object.keys(c.summary.usage).length);
  }
  function usageTotals(root, calls) {
    var byId = {};
    calls.forEach(function (c) { byId[c.id] = c; });
    function underUsage(c) {
      for (var p = byId[c.parent_id], hops = 0; p && hops < 1000; p = byId[p.parent_id], hops++) {
        if (hasUsage(p)) return true;
      }
      return false;
    }
    var tops = hasUsage(root) ? [root] : calls.filter(function (c) { return hasUsage(c) && !underUsage(c); });
    var tokens = 0, models = {};
    tops.forEach(function (c) {
      var usage = c.summary.usage;
      Object.keys(usage).forEach(function (model) {
        var u = usage[model] || {};
        var total = u.total_tokens;
        if (total === undefined || total === null) total = (u.prompt_tokens || u.input_tokens || 0) + (u.completion_tokens || u.output_tokens || 0);
        tokens += total;
        models[model] = true;
      });
    });
    if (!tops.length) {
      calls.forEach(function (c) {
        if (c.attributes && typeof c.attributes.model === "string") models[c.attributes.model] = true;
      });
    }
    return { tokens: tokens, models: Object.keys(models) };
  }

  function filtering() { return Boolean(state.op || state.status || state.q); }

  function renderTraces(roots, calls) {
    var box = $("trace-rows");
    box.textContent = "";
    roots.forEach(function (r) { seenOps[opLabel(r)] = true; });
    var names = Object.keys(seenOps).sort();
    var list = $("op-names");
    list.textContent = "";
    names.forEach(function (n) { list.appendChild(el("option", { value: n })); });
    $("trace-count").textContent = roots.length >= LIST_LIMIT ? "newest " + LIST_LIMIT : roots.length + (roots.length === 1 ? " trace" : " traces");
    if (!roots.length) {
      box.appendChild(filtering()
        ? el("div", { class: "empty" }, ["No traces match these filters. ", el("button", { type: "button", text: "Clear filters", onclick: clearFilters })])
        : el("div", { class: "empty" }, ["No traces in " + state.project + " yet. Point tracewire at this service: ",
          el("code", { text: "TRACEWIRE_BASE_URL=" + location.origin })]));
      return;
    }
    var byTrace = {};
    calls.forEach(function (c) { (byTrace[c.trace_id] = byTrace[c.trace_id] || []).push(c); });
    var body = el("tbody");
    roots.forEach(function (root) {
      var inTrace = byTrace[root.trace_id] || [root];
      var totals = usageTotals(root, inTrace);
      body.appendChild(el("tr", {
        "data-trace-id": root.trace_id, class: root.trace_id === state.traceId ? "selected" : "",
        onclick: function () { navigate({ traceId: root.trace_id, callId: null }); }
      }, [
        el("td", { text: fmtTime(root.started_at), title: root.started_at }),
        el("td", { class: "op", text: opLabel(root), title: root.op_name }),
        el("td", {}, [statusBadge(statusOf(root))]),
        el("td", { class: "num", text: fmtLatency(root) }),
        el("td", { class: "num", text: totals.tokens ? String(totals.tokens) : "" }),
        el("td", { class: "model", text: totals.models.join(", "), title: totals.models.join(", ") }),
        el("td", { class: "num", text: String(inTrace.length) })
      ]));
    });
    var head = el("thead", {}, [el("tr", {}, ["Started", "Op", "Status", "Latency", "Tokens", "Model", "Calls"].map(function (h) {
      return el("th", { text: h });
    }))]);
    box.appendChild(el("table", { id: "trace-list" }, [head, body]));
  }

  function markSelectedRow() {
    Array.prototype.forEach.call(document.querySelectorAll("#trace-list tbody tr"), function (tr) {
      tr.className = tr.getAttribute("data-trace-id") === state.traceId ? "selected" : "";
    });
  }

  // ---- the filter bar: inputs mirror the hash. A choice pushes a history entry; so does an edit of a text
  // field, once: its further changes update that entry until another navigation (state.editing, see navigate). ----
  var typing = null;
  function syncFilterInputs() {
    // The field being typed in keeps its text (trimmed in the hash); back and forward rewrite every field.
    if (state.editing !== "op") $("filter-op").value = state.op || "";
    if (state.editing !== "q") $("filter-q").value = state.q || "";
    $("filter-status").value = state.status || "";
  }
  function clearFilters() { navigate({ op: null, status: null, q: null }); }
  function wireFilters() {
    function typed(field) {
      return function (e) {
        var value = e.target.value.trim() || null;
        clearTimeout(typing);
        typing = setTimeout(function () {
          var c = {};
          c[field] = value;
          navigate(c, state.editing === field, field);
        }, 250);
      };
    }
    $("filter-op").addEventListener("input", typed("op"));
    $("filter-q").addEventListener("input", typed("q"));
    $("filter-status").addEventListener("change", function (e) { navigate({ status: e.target.value || null }); });
    $("filter-clear").addEventListener("click", clearFilters);
  }
`;
