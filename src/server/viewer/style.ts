/** The viewer page's stylesheet, inlined by `page.ts`. */
export const STYLE = `
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
#traces, #threads { border-right: 1px solid var(--line); background: var(--panel); }
#traces { display: flex; flex-direction: column; overflow: hidden; }
#trace-rows { flex: 1; overflow: auto; min-height: 0; }
main[data-view="traces"] #threads, main[data-view="traces"] #thread { display: none; }
main[data-view="threads"] #traces, main[data-view="threads"] #trace { display: none; }
header nav { display: flex; gap: 2px; }
header nav button { font: inherit; background: none; color: #a5a5b0; border: 0; padding: 3px 10px; border-radius: 4px; cursor: pointer; }
header nav button.active { background: #3a3a44; color: #fff; }
#filters { display: flex; gap: 6px; align-items: center; padding: 6px; border-bottom: 1px solid var(--line); }
#filters input, #filters select, #filters button { font: inherit; padding: 2px 6px; min-width: 0; }
#filter-op { flex: 1 1 90px; } #filter-q { flex: 2 1 140px; } #filter-clear { flex: none; }
#trace-count { font-size: 12px; white-space: nowrap; }
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
.llm-meta { display: flex; flex-wrap: wrap; gap: 6px 14px; margin: 8px 0; font-size: 12px; }
.llm-meta span { background: #f1f3f5; border-radius: 10px; padding: 1px 8px; }
.llm-meta .model { font-weight: 600; }
.conversation, .answer { display: flex; flex-direction: column; gap: 6px; }
.msg { border: 1px solid var(--line); border-left: 3px solid #adb5bd; border-radius: 4px; padding: 6px 10px; background: var(--panel); }
.msg .role { font-size: 11px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); margin-bottom: 2px; }
.msg.role-system { border-left-color: #868e96; background: #f8f9fa; }
.msg.role-user { border-left-color: var(--accent); }
.msg.role-assistant { border-left-color: var(--ok); }
.msg.role-tool { border-left-color: var(--run); background: #fff9db; }
.msg .text { white-space: pre-wrap; overflow-wrap: anywhere; }
.parts { display: flex; flex-direction: column; gap: 6px; }
.tool-call, .tool-result { border: 1px dashed var(--line); border-radius: 4px; padding: 4px 8px; }
.tool-head { font-weight: 500; margin-bottom: 2px; }
.badge { font-size: 11px; background: #e7f5ff; color: #1864ab; border-radius: 8px; padding: 0 6px; }
.reasoning > summary { color: var(--muted); cursor: pointer; }
details.raw { margin-top: 14px; } details.raw > summary { cursor: pointer; color: var(--muted); }
.chat-mark { font-size: 10px; }
#thread { padding: 12px 16px; }
ol.turns { list-style: none; padding: 0; margin: 10px 0; display: flex; flex-direction: column; gap: 8px; counter-reset: turn; }
.turn { border: 1px solid var(--line); border-radius: 6px; padding: 8px 10px; background: var(--panel); cursor: pointer; counter-increment: turn; }
.turn:hover { border-color: var(--accent); }
.turn-head { display: flex; gap: 8px; align-items: baseline; }
.turn-head::before { content: counter(turn); color: var(--muted); font-size: 12px; }
.turn-head .name { font-weight: 600; } .turn-head .open { margin-left: auto; font-size: 12px; }
.turn-in, .turn-out { display: flex; gap: 8px; margin-top: 4px; white-space: pre-wrap; overflow-wrap: anywhere; }
.turn .role { font-size: 11px; color: var(--muted); text-transform: uppercase; min-width: 28px; }
#auth { position: fixed; inset: 0; background: rgba(0,0,0,.4); display: flex; align-items: center; justify-content: center; }
#auth[hidden] { display: none; }
#auth form { background: var(--panel); padding: 20px; border-radius: 8px; display: flex; flex-direction: column; gap: 8px; }
`;
