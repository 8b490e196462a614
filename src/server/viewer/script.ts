/**
 * The viewer's script, plain browser JavaScript served inline by `page.ts`. It reads only the service's JSON
 * endpoints (`/calls/stream_query`, plus `/local/projects` for the project picker), polls every 2 s, and builds
 * the DOM with `textContent` only, so no traced value is ever interpreted as HTML.
 *
 * Kept as a string (no template literal syntax inside) so the bin bundles it without asset handling.
 */
export const VIEWER_SCRIPT = String.raw`
(function () {
  "use strict";
  var POLL_MS = 2000;
  var FOLD_CHARS = 300;
  var state = { project: null, traceId: null, callId: null, listKey: "", traceKey: "", key: localStorage.getItem("tracewire.dev.key") };
  var $ = function (id) { return document.getElementById(id); };

  function el(tag, props, children) {
    var node = document.createElement(tag);
    Object.keys(props || {}).forEach(function (k) {
      var v = props[k];
      if (v === undefined || v === null) return;
      if (k === "text") node.textContent = v;
      else if (k === "class") node.className = v;
      else if (k.slice(0, 2) === "on") node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v);
    });
    (children || []).forEach(function (c) { if (c) node.appendChild(typeof c === "string" ? document.createTextNode(c) : c); });
    return node;
  }

  function request(method, path, body) {
    var headers = { "content-type": "application/json" };
    if (state.key) headers.authorization = "Bearer " + state.key;
    return fetch(path, { method: method, headers: headers, body: body ? JSON.stringify(body) : undefined }).then(function (res) {
      if (res.status === 401) { $("auth").hidden = false; throw new Error("unauthorized"); }
      if (!res.ok) return res.text().then(function (t) { throw new Error(res.status + " " + t); });
      return res.text();
    });
  }
  function rows(path, body) {
    return request("POST", path, body).then(function (text) {
      return text.split("\n").filter(function (l) { return l.trim(); }).map(function (l) { return JSON.parse(l); });
    });
  }

  function fmtLatency(call) {
    var ms = call.summary && call.summary.weave ? call.summary.weave.latency_ms : null;
    if (ms === null || ms === undefined) return call.ended_at ? "" : "running";
    return ms < 1000 ? ms + " ms" : (ms / 1000).toFixed(2) + " s";
  }
  function fmtTime(iso) {
    // Always with the date: a list of traces spans days, and a bare time reads as today.
    var d = new Date(iso);
    var sameYear = d.getFullYear() === new Date().getFullYear();
    return d.toLocaleString(undefined, {
      year: sameYear ? undefined : "numeric", month: "short", day: "numeric",
      hour: "2-digit", minute: "2-digit", second: "2-digit", hour12: false
    });
  }
  function usageTotals(calls) {
    var tokens = 0, models = {};
    calls.forEach(function (c) {
      var usage = (c.summary && c.summary.usage) || {};
      Object.keys(usage).forEach(function (model) {
        var u = usage[model] || {};
        var total = u.total_tokens;
        if (total === undefined || total === null) total = (u.prompt_tokens || u.input_tokens || 0) + (u.completion_tokens || u.output_tokens || 0);
        tokens += total;
        models[model] = true;
      });
      if (c.attributes && typeof c.attributes.model === "string") models[c.attributes.model] = true;
    });
    return { tokens: tokens, models: Object.keys(models) };
  }
  // The status the service derived (summary.weave.status): a call whose own work failed is "error"; one with a
  // failed call below it is "descendant_error".
  function statusOf(call) {
    var weave = call.summary && call.summary.weave;
    if (weave && weave.status) return weave.status;
    return call.exception ? "error" : call.ended_at ? "success" : "running";
  }
  function statusBadge(status) {
    return el("span", { class: "status " + status, text: status.replace("_", " ") });
  }
  function opLabel(call) { return call.display_name || call.op_name; }
  function feedbackOf(call) { return (call.summary && call.summary.weave && call.summary.weave.feedback) || []; }

  // ---- trace list ----
  function loadTraces() {
    if (!state.project) return Promise.resolve();
    var project = state.project;
    return rows("/calls/stream_query", {
      project_id: project, filter: { trace_roots_only: true },
      sort_by: [{ field: "started_at", direction: "desc" }], limit: 100
    }).then(function (roots) {
      if (!roots.length) return { roots: roots, calls: [] };
      return rows("/calls/stream_query", {
        project_id: project, filter: { trace_ids: roots.map(function (r) { return r.trace_id; }) },
        columns: ["parent_id", "summary", "exception", "ended_at", "attributes"]
      }).then(function (calls) { return { roots: roots, calls: calls }; });
    }).then(function (data) {
      if (project !== state.project) return;
      var key = JSON.stringify(data);
      if (key === state.listKey) return;
      state.listKey = key;
      renderTraces(data.roots, data.calls);
    });
  }

  function renderTraces(roots, calls) {
    var box = $("traces");
    box.textContent = "";
    if (!roots.length) {
      box.appendChild(el("div", { class: "empty" }, [
        "No traces in " + state.project + " yet. Point tracewire at this service: ",
        el("code", { text: "TRACEWIRE_BASE_URL=" + location.origin })
      ]));
      return;
    }
    var byTrace = {};
    calls.forEach(function (c) { (byTrace[c.trace_id] = byTrace[c.trace_id] || []).push(c); });
    var body = el("tbody");
    roots.forEach(function (root) {
      var inTrace = byTrace[root.trace_id] || [root];
      var totals = usageTotals(inTrace);
      var tr = el("tr", {
        "data-trace-id": root.trace_id, class: root.trace_id === state.traceId ? "selected" : "",
        onclick: function () { select(root.trace_id, null); }
      }, [
        el("td", { text: fmtTime(root.started_at), title: root.started_at }),
        el("td", { class: "op", text: opLabel(root), title: root.op_name }),
        el("td", {}, [statusBadge(statusOf(root))]),
        el("td", { class: "num", text: fmtLatency(root) }),
        el("td", { class: "num", text: totals.tokens ? String(totals.tokens) : "" }),
        el("td", { class: "model", text: totals.models.join(", "), title: totals.models.join(", ") }),
        el("td", { class: "num", text: String(inTrace.length) })
      ]);
      body.appendChild(tr);
    });
    var head = el("thead", {}, [el("tr", {}, ["Started", "Op", "Status", "Latency", "Tokens", "Model", "Calls"].map(function (h) {
      return el("th", { text: h });
    }))]);
    box.appendChild(el("table", { id: "trace-list" }, [head, body]));
  }

  // ---- one trace ----
  function loadTrace() {
    if (!state.traceId) return Promise.resolve();
    var traceId = state.traceId;
    return rows("/calls/stream_query", {
      project_id: state.project, filter: { trace_ids: [traceId] }, include_feedback: true,
      sort_by: [{ field: "started_at", direction: "asc" }]
    }).then(function (calls) {
      if (traceId !== state.traceId) return;
      var key = JSON.stringify(calls) + state.callId;
      if (key === state.traceKey) return;
      state.traceKey = key;
      renderTrace(calls);
    });
  }

  function renderTrace(calls) {
    var ids = {}, children = {}, roots = [];
    calls.forEach(function (c) { ids[c.id] = c; });
    calls.forEach(function (c) {
      if (c.parent_id && ids[c.parent_id]) (children[c.parent_id] = children[c.parent_id] || []).push(c);
      else roots.push(c);
    });
    if (!state.callId || !ids[state.callId]) state.callId = roots.length ? roots[0].id : null;
    function branch(list) {
      return el("ul", { class: "tree" }, list.map(function (c) {
        var fb = feedbackOf(c).filter(function (f) { return f.payload && f.payload.emoji; }).map(function (f) { return f.payload.emoji; });
        var status = statusOf(c);
        var node = el("div", {
          class: "node" + (c.id === state.callId ? " selected" : ""),
          onclick: function () { select(state.traceId, c.id); }
        }, [
          el("span", { class: "status " + status, text: status === "error" ? "✗" : status === "running" ? "…" : status === "descendant_error" ? "!" : "✓" }),
          el("span", { class: "name", text: opLabel(c), title: c.op_name }),
          fb.length ? el("span", { text: fb.join("") }) : null,
          el("span", { class: "meta", text: fmtLatency(c) })
        ]);
        return el("li", { "data-call-id": c.id, "data-op": c.op_name }, [node, children[c.id] ? branch(children[c.id]) : null]);
      }));
    }
    var tree = $("tree");
    tree.textContent = "";
    tree.appendChild(branch(roots));
    renderDetail(ids[state.callId]);
  }

  function jsonNode(value, depth) {
    if (value === null || value === undefined) return el("span", { class: "z", text: "null" });
    if (typeof value === "string") {
      if (value.length <= FOLD_CHARS) return el("span", { class: "s", text: JSON.stringify(value) });
      return el("details", {}, [
        el("summary", { text: JSON.stringify(value.slice(0, 120)) + "… (" + value.length + " chars)" }),
        el("span", { class: "s", text: value })
      ]);
    }
    if (typeof value !== "object") return el("span", { class: typeof value === "number" ? "n" : "b", text: String(value) });
    var isList = Array.isArray(value);
    var keys = Object.keys(value);
    if (!keys.length) return el("span", { text: isList ? "[]" : "{}" });
    var rowsEl = keys.map(function (k) {
      return el("div", { class: "row" }, [el("span", { class: "k", text: (isList ? k : JSON.stringify(k)) + ": " }), jsonNode(value[k], depth + 1)]);
    });
    var count = keys.length + (isList ? (keys.length === 1 ? " item" : " items") : keys.length === 1 ? " key" : " keys");
    var details = el("details", {}, [el("summary", { text: isList ? "[" + count + "]" : "{" + count + "}" })].concat(rowsEl));
    if (depth < 2 && keys.length <= 30) details.open = true;
    return details;
  }
  function jsonBlock(value) { return el("div", { class: "json" }, [jsonNode(value, 0)]); }

  function usageTable(usage) {
    var models = Object.keys(usage || {});
    if (!models.length) return null;
    var cols = ["prompt_tokens", "completion_tokens", "input_tokens", "output_tokens", "total_tokens", "requests"].filter(function (c) {
      return models.some(function (m) { return usage[m] && usage[m][c] !== undefined && usage[m][c] !== null; });
    });
    return el("table", { class: "usage" }, [
      el("thead", {}, [el("tr", {}, [el("th", { text: "model" })].concat(cols.map(function (c) { return el("th", { text: c }); })))]),
      el("tbody", {}, models.map(function (m) {
        return el("tr", {}, [el("td", { text: m })].concat(cols.map(function (c) { return el("td", { class: "num", text: String(usage[m][c] === undefined ? "" : usage[m][c]) }); })));
      }))
    ]);
  }

  function feedbackList(items) {
    if (!items.length) return null;
    return el("div", { class: "feedback" }, items.map(function (f) {
      var p = f.payload || {};
      if (p.emoji) return el("span", { class: "fb", title: f.feedback_type }, [el("span", { class: "emoji", text: p.emoji })]);
      if (p.note) return el("span", { class: "fb", title: f.feedback_type, text: "📝 " + p.note });
      var label = f.feedback_type.replace(/^wandb\.(runnable|annotation)\./, "");
      var v = "output" in p ? p.output : "value" in p ? p.value : p;
      return el("span", { class: "fb", title: f.feedback_type, text: label + ": " + JSON.stringify(v) });
    }));
  }

  function renderDetail(call) {
    var box = $("detail");
    box.textContent = "";
    if (!call) { box.appendChild(el("div", { class: "empty", text: "Select a trace." })); return; }
    var status = statusOf(call);
    var parts = [
      el("h2", { text: opLabel(call) }),
      el("div", {}, [statusBadge(status), " · " + fmtLatency(call) + " · " + fmtTime(call.started_at)]),
      el("div", { class: "ids", text: "op " + call.op_name + " · call " + call.id + " · trace " + call.trace_id + (call.thread_id ? " · thread " + call.thread_id : "") })
    ];
    if (call.exception) parts.push(el("h3", { text: "Exception" }), el("div", { class: "exception", text: call.exception }));
    parts.push(el("h3", { text: "Inputs" }), jsonBlock(call.inputs));
    parts.push(el("h3", { text: "Output" }), jsonBlock(call.output));
    var usage = usageTable(call.summary && call.summary.usage);
    if (usage) parts.push(el("h3", { text: "Usage" }), usage);
    var fb = feedbackList(feedbackOf(call));
    if (fb) parts.push(el("h3", { text: "Feedback" }), fb);
    if (call.attributes && Object.keys(call.attributes).length) parts.push(el("h3", { text: "Attributes" }), jsonBlock(call.attributes));
    parts.forEach(function (p) { box.appendChild(p); });
  }

  // ---- navigation, projects, polling ----
  function select(traceId, callId) {
    state.traceId = traceId;
    state.callId = callId;
    state.traceKey = "";
    history.replaceState(null, "", "?project=" + encodeURIComponent(state.project) + (traceId ? "#trace=" + traceId + (callId ? "&call=" + callId : "") : ""));
    Array.prototype.forEach.call(document.querySelectorAll("#trace-list tbody tr"), function (tr) {
      tr.className = tr.getAttribute("data-trace-id") === traceId ? "selected" : "";
    });
    loadTrace();
  }

  function loadProjects() {
    return request("GET", "/local/projects").then(function (text) {
      var projects = JSON.parse(text).projects.map(function (p) { return p.project_id; });
      var wanted = new URLSearchParams(location.search).get("project") || state.project || localStorage.getItem("tracewire.dev.project");
      if (wanted && projects.indexOf(wanted) === -1) projects.unshift(wanted);
      if (!state.project) state.project = wanted || projects[0] || null;
      var picker = $("project");
      var current = Array.prototype.map.call(picker.options, function (o) { return o.value; }).join("\n");
      if (current !== projects.join("\n")) {
        picker.textContent = "";
        projects.forEach(function (p) { picker.appendChild(el("option", { value: p, text: p })); });
      }
      picker.value = state.project || "";
      if (!state.project) {
        $("traces").textContent = "";
        $("traces").appendChild(el("div", { class: "empty" }, ["No traces yet. Point tracewire at this service: ",
          el("code", { text: "TRACEWIRE_BASE_URL=" + location.origin + " TRACEWIRE_PROJECT=me/demo" })]));
      }
    });
  }

  function refresh() {
    return loadProjects().then(function () { return Promise.all([loadTraces(), loadTrace()]); }).then(function () {
      $("live").className = "on";
      $("live").textContent = "live · " + new Date().toLocaleTimeString();
    }, function (err) {
      $("live").className = "";
      $("live").textContent = "offline: " + err.message;
    });
  }

  $("project").addEventListener("change", function (e) {
    state.project = e.target.value;
    localStorage.setItem("tracewire.dev.project", state.project);
    state.listKey = "";
    select(null, null);
    refresh();
  });
  $("auth-form").addEventListener("submit", function (e) {
    e.preventDefault();
    state.key = $("auth-key").value;
    localStorage.setItem("tracewire.dev.key", state.key);
    $("auth").hidden = true;
    refresh();
  });
  var hash = new URLSearchParams(location.hash.slice(1));
  state.traceId = hash.get("trace");
  state.callId = hash.get("call");
  refresh();
  setInterval(refresh, POLL_MS);
})();
`;
