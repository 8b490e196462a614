/**
 * The viewer's script, plain browser JavaScript served inline by `page.ts`. It reads only the service's JSON
 * endpoints (`/calls/stream_query`, `/threads/stream_query`, plus `/local/projects` for the project picker), polls
 * every 2 s, and builds the DOM with `textContent` only, so no traced value is ever interpreted as HTML.
 *
 * One script in parts that share its scope: this file (helpers, the URL hash, polling), `trace-list.ts`,
 * `trace-view.ts`, `call-kind.ts`, `conversation.ts`, `chat-view.ts`, `thread-view.ts`, and the Evaluations view
 * (`evals-view.ts`, `evals-compare.ts`; hash keys `eval`, `compare`, `rows`). The URL hash holds the whole selection
 * (`project`, `view`, the list filters `op`/`status`/`q`, `trace`, `call`, `thread`): choices push a history entry
 * and `hashchange` applies it, so back and forward move through them and a link reopens the same view.
 *
 * Kept as strings (no template literal syntax inside) so the bin bundles them without asset handling.
 */
import { CALL_KIND_SCRIPT } from "./call-kind.js";
import { CHAT_VIEW_SCRIPT } from "./chat-view.js";
import { CONVERSATION_SCRIPT } from "./conversation.js";
import { EVALS_COMPARE_SCRIPT } from "./evals-compare.js";
import { EVALS_VIEW_SCRIPT } from "./evals-view.js";
import { THREAD_VIEW_SCRIPT } from "./thread-view.js";
import { TRACE_LIST_SCRIPT } from "./trace-list.js";
import { TRACE_VIEW_SCRIPT } from "./trace-view.js";

const CORE = String.raw`
  var POLL_MS = 2000;
  var HASH_KEYS = { project: "project", view: "view", op: "op", status: "status", q: "q", traceId: "trace", callId: "call", threadId: "thread",
    evalId: "eval", compareId: "compare", rowFilter: "rows" };
  var state = {
    project: null, view: "traces", op: null, status: null, q: null, traceId: null, callId: null, threadId: null,
    evalId: null, compareId: null, rowFilter: null, evalsKey: "", evalKey: "",
    editing: null, ownHash: null, listKey: "", traceKey: "", threadsKey: "", turnsKey: "", key: localStorage.getItem("tracewire.dev.key")
  };
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
  function opLabel(call) { return call.display_name || (call.summary && call.summary.weave && call.summary.weave.trace_name) || call.op_name; }
  function feedbackOf(call) { return (call.summary && call.summary.weave && call.summary.weave.feedback) || []; }

  // ---- the URL hash holds the selection ----
  function readHash() {
    var params = new URLSearchParams(location.hash.slice(1));
    var out = {};
    Object.keys(HASH_KEYS).forEach(function (k) { out[k] = params.get(HASH_KEYS[k]) || null; });
    out.view = out.view === "threads" || out.view === "evals" ? out.view : "traces";
    return out;
  }
  function hashOf(selection) {
    var params = new URLSearchParams();
    Object.keys(HASH_KEYS).forEach(function (k) {
      var v = selection[k];
      if (v && !(k === "view" && v === "traces")) params.set(HASH_KEYS[k], v);
    });
    return "#" + params.toString();
  }
  // Moves to a new selection: a new history entry (applied by the hashchange handler), or with replace an
  // update of the current one. editing names the text field whose edit made this entry (later keystrokes in it
  // replace the entry instead of stacking one per pause); any other navigation ends that edit.
  function navigate(changes, replace, editing) {
    state.editing = editing || null;
    var next = {};
    Object.keys(HASH_KEYS).forEach(function (k) { next[k] = k in changes ? changes[k] : state[k]; });
    if ("traceId" in changes && !("callId" in changes)) next.callId = null;
    var hash = hashOf(next);
    if (hash === (location.hash || "#")) return;
    state.ownHash = hash;
    if (replace) { history.replaceState(null, "", hash); applyHash(); }
    else location.hash = hash;
  }
  function onHashChange() {
    if (location.hash !== state.ownHash) state.editing = null; // back, forward, or a link: not our edit
    applyHash();
  }
  function applyHash() {
    var wanted = readHash();
    if (!wanted.project) wanted.project = state.project;
    if (wanted.project !== state.project) localStorage.setItem("tracewire.dev.project", wanted.project);
    if (wanted.project !== state.project || wanted.op !== state.op || wanted.status !== state.status || wanted.q !== state.q) state.listKey = "";
    Object.keys(HASH_KEYS).forEach(function (k) { state[k] = wanted[k]; });
    state.traceKey = "";
    state.turnsKey = "";
    state.threadsKey = "";
    state.evalsKey = "";
    state.evalKey = "";
    showView();
    refresh();
  }

  function showView() {
    var threads = state.view === "threads";
    document.querySelector("main").setAttribute("data-view", state.view);
    $("tab-traces").className = state.view === "traces" ? "active" : "";
    $("tab-threads").className = threads ? "active" : "";
    $("tab-evals").className = state.view === "evals" ? "active" : "";
    syncFilterInputs();
    markSelectedRow();
    if (!state.traceId) clearTrace();
    if (!state.threadId) {
      $("thread").textContent = "";
      $("thread").appendChild(el("div", { class: "empty", text: "Select a thread to see its turns." }));
    }
  }

  function loadProjects() {
    return request("GET", "/local/projects").then(function (text) {
      var projects = JSON.parse(text).projects.map(function (p) { return p.project_id; });
      var wanted = state.project || new URLSearchParams(location.search).get("project") || localStorage.getItem("tracewire.dev.project");
      if (wanted && projects.indexOf(wanted) === -1) projects.unshift(wanted);
      if (!state.project && (wanted || projects[0])) {
        state.project = wanted || projects[0];
        history.replaceState(null, "", location.pathname + location.search + hashOf(state));
      }
      var picker = $("project");
      var current = Array.prototype.map.call(picker.options, function (o) { return o.value; }).join("\n");
      if (current !== projects.join("\n")) {
        picker.textContent = "";
        projects.forEach(function (p) { picker.appendChild(el("option", { value: p, text: p })); });
      }
      picker.value = state.project || "";
      if (!state.project) {
        $("trace-rows").textContent = "";
        $("trace-rows").appendChild(el("div", { class: "empty" }, ["No traces yet. Point tracewire at this service: ",
          el("code", { text: "TRACEWIRE_BASE_URL=" + location.origin + " TRACEWIRE_PROJECT=me/demo" })]));
      }
    });
  }

  function refresh() {
    return loadProjects().then(function () {
      return Promise.all([loadTraces(), loadTrace(), loadThreads(), loadTurns(), loadEvals()]);
    }).then(function () {
      $("live").className = "on";
      $("live").textContent = "live · " + new Date().toLocaleTimeString();
    }, function (err) {
      $("live").className = "";
      $("live").textContent = "offline: " + err.message;
    });
  }
`;

const START = `
  $("project").addEventListener("change", function (e) {
    navigate({ project: e.target.value, traceId: null, callId: null, threadId: null, evalId: null, compareId: null });
  });
  $("tab-traces").addEventListener("click", function () { navigate({ view: "traces" }); });
  $("tab-threads").addEventListener("click", function () { navigate({ view: "threads" }); });
  $("tab-evals").addEventListener("click", function () { navigate({ view: "evals" }); });
  $("auth-form").addEventListener("submit", function (e) {
    e.preventDefault();
    state.key = $("auth-key").value;
    localStorage.setItem("tracewire.dev.key", state.key);
    $("auth").hidden = true;
    refresh();
  });
  wireFilters();
  window.addEventListener("hashchange", onHashChange);
  Object.assign(state, readHash());
  showView();
  refresh();
  setInterval(refresh, POLL_MS);
`;

/** The whole script: the parts in one strict-mode function scope, started last. */
export const VIEWER_SCRIPT = `
(function () {
  "use strict";
${CORE}${TRACE_LIST_SCRIPT}${TRACE_VIEW_SCRIPT}${CALL_KIND_SCRIPT}${CONVERSATION_SCRIPT}${CHAT_VIEW_SCRIPT}${THREAD_VIEW_SCRIPT}${EVALS_VIEW_SCRIPT}${EVALS_COMPARE_SCRIPT}${START}
})();
`;
