/**
 * Part of the viewer script (see `script.ts`): what an agent framework's call is, as a badge in the call tree. The
 * framework integrations (OpenAI Agents SDK, LangChain / LangGraph) put a `kind` call attribute on their calls
 * (`agent`, `tool`, `handoff`, `guardrail`, `node`, …); model calls (`llm`) already read as conversations and carry
 * the LLM badge. A guardrail that tripped says so.
 */
export const CALL_KIND_SCRIPT = `
  var KIND_LABELS = {
    workflow: "workflow", agent: "agent", tool: "tool", handoff: "handoff", guardrail: "guardrail", task: "task",
    turn: "turn", custom: "span", mcp: "MCP", speech: "speech", chain: "chain", retriever: "retriever",
    graph: "graph", node: "node"
  };
  function kindBadge(call) {
    var kind = call.attributes && call.attributes.kind;
    if (typeof kind !== "string" || !Object.prototype.hasOwnProperty.call(KIND_LABELS, kind)) return null;
    var text = KIND_LABELS[kind];
    var tripped = kind === "guardrail" && call.output && call.output.triggered === true;
    if (tripped) text += " · triggered";
    return el("span", { class: "badge kind kind-" + kind + (tripped ? " tripped" : ""), title: "a " + kind + " call", text: text });
  }
`;

/** The badges' colours. */
export const CALL_KIND_STYLE = `
.badge.kind { background: #f3f0ff; color: #5f3dc4; }
.badge.kind-tool { background: #ebfbee; color: #2b8a3e; }
.badge.kind-handoff, .badge.kind-node { background: #fff4e6; color: #d9480f; }
.badge.kind.tripped { background: #fff5f5; color: #c92a2a; }
`;
