/**
 * The viewer page served at `GET /`: static HTML with its stylesheet and script inline (no build step, no
 * dependencies). It holds no data; the script reads the service's own JSON endpoints.
 */
import { VERSION } from "../../version.js";
import { VIEWER_SCRIPT } from "./script.js";

const STYLE = `
:root { --bg: #f7f7f8; --panel: #fff; --line: #e3e3e8; --text: #1d1d22; --muted: #6b6b76; --accent: #3b5bdb;
  --ok: #2b8a3e; --err: #c92a2a; --run: #e67700; --sel: #edf2ff; font: 13px/1.45 system-ui, sans-serif; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--text); height: 100vh; display: flex; flex-direction: column; }
header { display: flex; gap: 12px; align-items: center; padding: 8px 14px; background: #1d1d22; color: #fff; }
header h1 { font-size: 14px; margin: 0; font-weight: 600; }
header .muted { color: #a5a5b0; }
header select { font: inherit; padding: 2px 4px; }
#live { margin-left: auto; font-size: 12px; color: #a5a5b0; }
#live.on::before { content: "● "; color: #51cf66; }
main { flex: 1; display: grid; grid-template-columns: minmax(420px, 46%) 1fr; min-height: 0; }
section { overflow: auto; min-height: 0; }
#traces { border-right: 1px solid var(--line); background: var(--panel); }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 5px 6px; border-bottom: 1px solid var(--line); white-space: nowrap; }
th { position: sticky; top: 0; background: var(--panel); color: var(--muted); font-weight: 500; font-size: 12px; }
tbody tr { cursor: pointer; }
tbody tr:hover { background: #f1f3f5; }
tbody tr.selected { background: var(--sel); }
td.op { max-width: 120px; overflow: hidden; text-overflow: ellipsis; font-weight: 500; }
td .status.descendant_error { white-space: normal; display: inline-block; max-width: 64px; line-height: 1.1; }
td.model { max-width: 80px; overflow: hidden; text-overflow: ellipsis; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.status { font-size: 12px; font-weight: 600; }
.status.success { color: var(--ok); } .status.error { color: var(--err); } .status.running { color: var(--run); }
.status.descendant_error { color: var(--run); }
#trace { display: grid; grid-template-columns: minmax(220px, 38%) 1fr; }
#tree { border-right: 1px solid var(--line); padding: 8px 4px; overflow: auto; }
#detail { padding: 12px 16px; overflow: auto; }
ul.tree { list-style: none; margin: 0; padding-left: 14px; }
#tree > ul.tree { padding-left: 0; }
.node { display: flex; gap: 6px; align-items: baseline; padding: 2px 6px; border-radius: 4px; cursor: pointer; }
.node:hover { background: #f1f3f5; } .node.selected { background: var(--sel); }
.node .name { font-weight: 500; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.node .meta { color: var(--muted); font-size: 11px; margin-left: auto; white-space: nowrap; }
.empty { color: var(--muted); padding: 24px; }
.empty code { background: #eee; padding: 1px 4px; border-radius: 3px; }
h2 { font-size: 16px; margin: 0 0 4px; } h3 { font-size: 13px; margin: 16px 0 6px; color: var(--muted); }
.ids { color: var(--muted); font-size: 12px; font-family: ui-monospace, monospace; }
.exception { background: #fff5f5; border: 1px solid #ffc9c9; color: var(--err); padding: 8px; border-radius: 4px;
  white-space: pre-wrap; font-family: ui-monospace, monospace; }
.json { font-family: ui-monospace, monospace; font-size: 12px; }
.json .row { padding-left: 14px; } .json .k { color: #862e9c; } .json .s { color: #2b8a3e; white-space: pre-wrap; }
.json .n { color: #1864ab; } .json .b, .json .z { color: #e67700; }
.json details > summary { cursor: pointer; color: var(--muted); }
.feedback { display: flex; flex-wrap: wrap; gap: 8px; }
.fb { border: 1px solid var(--line); background: var(--panel); border-radius: 12px; padding: 2px 10px; }
.fb .emoji { font-size: 18px; }
#auth { position: fixed; inset: 0; background: rgba(0,0,0,.4); display: flex; align-items: center; justify-content: center; }
#auth[hidden] { display: none; }
#auth form { background: var(--panel); padding: 20px; border-radius: 8px; display: flex; flex-direction: column; gap: 8px; }
`;

/** The whole page. */
export function viewerPage(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>tracewire dev</title>
<style>${STYLE}</style>
</head>
<body>
<header>
  <h1>tracewire dev</h1><span class="muted">${VERSION}</span>
  <label class="muted">project <select id="project"></select></label>
  <span id="live">live</span>
</header>
<main>
  <section id="traces"><div class="empty">Loading…</div></section>
  <section id="trace"><div id="tree"></div><div id="detail"><div class="empty">Select a trace.</div></div></section>
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
