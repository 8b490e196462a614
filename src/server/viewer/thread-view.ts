/**
 * Part of the viewer script (see `script.ts`): the threads of a project (`/threads/stream_query`, most recently
 * updated first) and one thread's turns in order. A turn is a call whose `turn_id` is its own id; a thread
 * without marked turns shows its calls that start a trace. Each turn shows what went in and what came out, and
 * opens its trace (in the trace view, with the turn's call selected). The thread lives in the hash (`thread`).
 */
export const THREAD_VIEW_SCRIPT = String.raw`
  var PREVIEW_CHARS = 160;

  function loadThreads() {
    if (!state.project || state.view !== "threads") return Promise.resolve();
    var project = state.project;
    return rows("/threads/stream_query", { project_id: project, limit: 200 }).then(function (threads) {
      if (project !== state.project) return;
      var key = JSON.stringify(threads) + state.threadId;
      if (key === state.threadsKey) return;
      state.threadsKey = key;
      renderThreads(threads);
    });
  }

  function renderThreads(threads) {
    var box = $("threads");
    box.textContent = "";
    if (!threads.length) {
      box.appendChild(el("div", { class: "empty" }, ["No threads in " + state.project + " yet. Calls made inside ",
        el("code", { text: "withThread(id, fn)" }), " belong to a thread; its outermost ops are its turns."]));
      return;
    }
    var body = el("tbody", {}, threads.map(function (t) {
      return el("tr", {
        "data-thread-id": t.thread_id, class: t.thread_id === state.threadId ? "selected" : "",
        onclick: function () { navigate({ threadId: t.thread_id }); }
      }, [
        el("td", { class: "op", text: t.thread_id, title: t.thread_id }),
        el("td", { class: "num", text: String(t.turn_count) }),
        el("td", { text: t.start_time ? fmtTime(t.start_time) : "", title: t.start_time }),
        el("td", { text: t.last_updated ? fmtTime(t.last_updated) : "", title: t.last_updated })
      ]);
    }));
    var head = el("thead", {}, [el("tr", {}, ["Thread", "Turns", "Started", "Last updated"].map(function (h) { return el("th", { text: h }); }))]);
    box.appendChild(el("table", { id: "thread-list" }, [head, body]));
  }

  function loadTurns() {
    if (!state.threadId || state.view !== "threads") return Promise.resolve();
    var threadId = state.threadId;
    var base = { project_id: state.project, filter: { thread_ids: [threadId] }, sort_by: [{ field: "started_at", direction: "asc" }] };
    return rows("/calls/stream_query", Object.assign({
      query: { $expr: { $eq: [{ $getField: "turn_id" }, { $getField: "id" }] } }
    }, base)).then(function (turns) {
      if (turns.length) return turns;
      return rows("/calls/stream_query", Object.assign({}, base, { filter: { thread_ids: [threadId], trace_roots_only: true } }));
    }).then(function (turns) {
      if (threadId !== state.threadId) return;
      var key = JSON.stringify(turns);
      if (key === state.turnsKey) return;
      state.turnsKey = key;
      renderTurns(turns);
    });
  }

  // A short text for a turn's input or output: a lone string value, a conversation's last text, else JSON.
  function preview(value) {
    if (value === null || value === undefined) return "";
    var text = value;
    if (isObj(value)) {
      var keys = Object.keys(value);
      if (keys.length === 1 && typeof value[keys[0]] === "string") text = value[keys[0]];
    }
    if (typeof text !== "string") text = JSON.stringify(text);
    return text.length > PREVIEW_CHARS ? text.slice(0, PREVIEW_CHARS) + "…" : text;
  }
  function turnText(call, side) {
    var convo = conversationOf(call);
    var messages = convo ? (side === "in" ? convo.messages : convo.answer && convo.answer[0] && convo.answer[0].messages) : null;
    if (messages) {
      for (var i = messages.length - 1; i >= 0; i--) {
        var texts = messages[i].parts.filter(function (p) { return p.kind === "text"; });
        if (texts.length && (side !== "in" || messages[i].role === "user")) return preview(texts.map(function (p) { return p.text; }).join(" "));
      }
    }
    return preview(side === "in" ? call.inputs : call.output);
  }

  function renderTurns(turns) {
    var box = $("thread");
    box.textContent = "";
    box.appendChild(el("h2", { text: "Thread " + state.threadId }));
    box.appendChild(el("div", { class: "ids", text: turns.length + (turns.length === 1 ? " turn" : " turns") + ", oldest first; a turn opens its trace" }));
    var list = el("ol", { class: "turns" }, turns.map(function (t) {
      var open = function () { navigate({ view: "traces", traceId: t.trace_id, callId: t.id }); };
      return el("li", { class: "turn", "data-call-id": t.id, "data-trace-id": t.trace_id, onclick: open }, [
        el("div", { class: "turn-head" }, [
          el("span", { class: "name", text: opLabel(t) }), statusBadge(statusOf(t)),
          el("span", { class: "ids", text: fmtTime(t.started_at) + " · " + fmtLatency(t) }),
          el("a", { href: "#", class: "open", text: "open trace →", onclick: function (e) { e.preventDefault(); e.stopPropagation(); open(); } })
        ]),
        el("div", { class: "turn-in" }, [el("span", { class: "role", text: "in" }), el("span", { text: turnText(t, "in") })]),
        t.exception ? el("div", { class: "turn-out exception", text: t.exception.split("\n")[0] })
          : el("div", { class: "turn-out" }, [el("span", { class: "role", text: "out" }), el("span", { text: turnText(t, "out") })])
      ]);
    }));
    box.appendChild(list);
  }
`;
