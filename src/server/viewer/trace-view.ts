/**
 * Part of the viewer script (see `script.ts`): one trace as a call tree, and the selected call's detail. An LLM
 * call (one whose record reads as a conversation, `conversation.ts`) shows its messages and answer
 * (`chat-view.ts`); any other call shows its inputs and output as a JSON tree. Both show exception, usage,
 * feedback and attributes.
 */
export const TRACE_VIEW_SCRIPT = String.raw`
  var FOLD_CHARS = 300;

  function loadTrace() {
    if (!state.traceId || state.view !== "traces") return Promise.resolve();
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

  function clearTrace() {
    $("tree").textContent = "";
    $("detail").textContent = "";
    $("detail").appendChild(el("div", { class: "empty", text: "Select a trace." }));
  }

  function renderTrace(calls) {
    var ids = {}, children = {}, roots = [];
    calls.forEach(function (c) { ids[c.id] = c; });
    calls.forEach(function (c) {
      if (c.parent_id && ids[c.parent_id]) (children[c.parent_id] = children[c.parent_id] || []).push(c);
      else roots.push(c);
    });
    var callId = state.callId && ids[state.callId] ? state.callId : roots.length ? roots[0].id : null;
    function branch(list) {
      return el("ul", { class: "tree" }, list.map(function (c) {
        var fb = feedbackOf(c).filter(function (f) { return f.payload && f.payload.emoji; }).map(function (f) { return f.payload.emoji; });
        var status = statusOf(c);
        var node = el("div", {
          class: "node" + (c.id === callId ? " selected" : ""),
          onclick: function () { navigate({ callId: c.id }); }
        }, [
          el("span", { class: "status " + status, text: status === "error" ? "✗" : status === "running" ? "…" : status === "descendant_error" ? "!" : "✓" }),
          el("span", { class: "name", text: opLabel(c), title: c.op_name }),
          kindBadge(c),
          conversationOf(c) ? el("span", { class: "badge chat-mark", title: "an LLM call: opens as a conversation", text: "LLM" }) : null,
          fb.length ? el("span", { text: fb.join("") }) : null,
          el("span", { class: "meta", text: fmtLatency(c) })
        ]);
        return el("li", { "data-call-id": c.id, "data-op": c.op_name }, [node, children[c.id] ? branch(children[c.id]) : null]);
      }));
    }
    var tree = $("tree");
    tree.textContent = "";
    tree.appendChild(branch(roots));
    renderDetail(ids[callId]);
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
    var ids = "op " + call.op_name + " · call " + call.id + " · trace " + call.trace_id;
    var parts = [
      el("h2", { text: opLabel(call) }),
      el("div", {}, [statusBadge(status), " · " + fmtLatency(call) + " · " + fmtTime(call.started_at)]),
      el("div", { class: "ids" }, [ids, call.thread_id ? " · thread " : null, call.thread_id ? el("a", {
        href: "#", class: "thread-link", text: call.thread_id,
        onclick: function (e) { e.preventDefault(); navigate({ view: "threads", threadId: call.thread_id }); }
      }) : null])
    ];
    if (call.exception) parts.push(el("h3", { text: "Exception" }), el("div", { class: "exception", text: call.exception }));
    var convo = conversationOf(call);
    if (convo) parts = parts.concat(conversationNodes(call, convo), [rawPayloads(call)]);
    else parts.push(el("h3", { text: "Inputs" }), jsonBlock(call.inputs), el("h3", { text: "Output" }), jsonBlock(call.output));
    var usage = usageTable(call.summary && call.summary.usage);
    if (usage) parts.push(el("h3", { text: "Usage" }), usage);
    var fb = feedbackList(feedbackOf(call));
    if (fb) parts.push(el("h3", { text: "Feedback" }), fb);
    if (call.attributes && Object.keys(call.attributes).length) parts.push(el("h3", { text: "Attributes" }), jsonBlock(call.attributes));
    parts.forEach(function (p) { box.appendChild(p); });
  }
`;
