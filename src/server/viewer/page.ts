/**
 * The viewer page served at `GET /`: static HTML with its stylesheet and script inline (no build step, no
 * dependencies). It holds no data; the script reads the service's own JSON endpoints.
 */
import { VERSION } from "../../version.js";
import { CALL_KIND_STYLE } from "./call-kind.js";
import { EVALS_STYLE } from "./evals-style.js";
import { VIEWER_SCRIPT } from "./script.js";
import { STYLE } from "./style.js";

/** The whole page. */
export function viewerPage(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>tracewire dev</title>
<style>${STYLE}${EVALS_STYLE}${CALL_KIND_STYLE}</style>
</head>
<body>
<header>
  <h1>tracewire dev</h1><span class="muted">${VERSION}</span>
  <label class="muted">project <select id="project"></select></label>
  <nav><button type="button" id="tab-traces" class="active">Traces</button><button type="button" id="tab-threads">Threads</button><button type="button" id="tab-evals">Evaluations</button></nav>
  <span id="live">live</span>
</header>
<main data-view="traces">
  <section id="traces">
    <form id="filters" onsubmit="return false">
      <input id="filter-op" list="op-names" placeholder="op name" autocomplete="off" aria-label="filter by op name">
      <datalist id="op-names"></datalist>
      <select id="filter-status" aria-label="filter by status"><option value="">any status</option>
        <option value="success">success</option><option value="error">error</option>
        <option value="descendant_error">descendant error</option><option value="running">running</option></select>
      <input id="filter-q" type="search" placeholder="text in inputs, outputs, errors" autocomplete="off" aria-label="filter by text">
      <button type="button" id="filter-clear" title="clear filters">✕</button>
      <span id="trace-count" class="muted"></span>
    </form>
    <div id="trace-rows"><div class="empty">Loading…</div></div>
  </section>
  <section id="trace"><div id="tree"></div><div id="detail"><div class="empty">Select a trace.</div></div></section>
  <section id="threads"><div class="empty">Loading…</div></section>
  <section id="thread"><div class="empty">Select a thread to see its turns.</div></section>
  <section id="evals"><div class="empty">Loading…</div></section>
  <section id="eval"><div class="empty">Select an evaluation to see its rows.</div></section>
</main>
<div id="auth" hidden>
  <form id="auth-form"><strong>This service needs its API key</strong>
    <input id="auth-key" type="password" placeholder="API key" autocomplete="off" required>
    <button type="submit">Use key</button></form>
</div>
<script>${VIEWER_SCRIPT}</script>
</body>
</html>
`;
}
