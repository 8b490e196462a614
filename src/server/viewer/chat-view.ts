/**
 * Part of the viewer script (see `script.ts`): an LLM call's detail drawn as a conversation — the request's
 * messages (system, user, assistant, tool) with their tool calls and results, the answer (one block per choice),
 * and a line with model, tokens, time to first chunk and finish reasons. The raw inputs and output stay one click
 * away as the JSON tree. Reads what `conversation.ts` derives.
 */
export const CHAT_VIEW_SCRIPT = `
  function fmtSeconds(s) { return s < 1 ? Math.round(s * 1000) + " ms" : s.toFixed(2) + " s"; }

  function llmMetaLine(call) {
    var f = llmFacts(call);
    var bits = [];
    if (f.model) bits.push(el("span", { class: "model", text: f.model }));
    if (f.hasTokens) bits.push(el("span", { class: "tokens", text: f.total + " tokens (" + f.input + " in, " + f.output + " out)" }));
    if (f.ttfc !== null) bits.push(el("span", { class: "ttfc", text: "first chunk " + fmtSeconds(f.ttfc) }));
    if (f.finish) bits.push(el("span", { class: "finish", text: "finish: " + f.finish }));
    return bits.length ? el("div", { class: "llm-meta" }, bits) : null;
  }

  function valueBlock(value) {
    return typeof value === "string" ? el("div", { class: "text", text: value }) : jsonBlock(value);
  }

  function partNode(part) {
    if (part.kind === "text") return el("div", { class: "text", text: part.text });
    if (part.kind === "reasoning") {
      return el("details", { class: "reasoning" }, [el("summary", { text: "reasoning" }), el("div", { class: "text", text: part.text })]);
    }
    if (part.kind === "tool_call") {
      return el("div", { class: "tool-call", "data-tool": part.name || "" }, [
        el("div", { class: "tool-head" }, [el("span", { class: "badge", text: "tool call" }), " " + (part.name || "?") + (part.id ? " " : ""),
          part.id ? el("span", { class: "ids", text: part.id }) : null]),
        valueBlock(part.args)
      ]);
    }
    if (part.kind === "tool_result") {
      return el("div", { class: "tool-result" }, [
        el("div", { class: "tool-head" }, [el("span", { class: "badge", text: "tool result" }), part.name ? " " + part.name : "",
          part.id ? " " : "", part.id ? el("span", { class: "ids", text: part.id }) : null]),
        valueBlock(part.content)
      ]);
    }
    return jsonBlock(part.value);
  }

  function messageNode(m) {
    var onlyResults = m.parts.length > 0 && m.parts.every(function (p) { return p.kind === "tool_result"; });
    var role = onlyResults ? "tool" : String(m.role);
    return el("div", { class: "msg role-" + role.replace(/[^a-z_-]/gi, ""), "data-role": role }, [
      el("div", { class: "role", text: role }),
      el("div", { class: "parts" }, m.parts.length ? m.parts.map(partNode) : [el("div", { class: "ids", text: "(empty)" })])
    ]);
  }

  function conversationNodes(call, convo) {
    var nodes = [];
    var meta = llmMetaLine(call);
    if (meta) nodes.push(meta);
    if (convo.tools.length) nodes.push(el("div", { class: "ids tools", text: "tools offered: " + convo.tools.join(", ") }));
    nodes.push(el("h3", { text: "Messages" }), el("div", { class: "conversation" }, convo.messages.map(messageNode)));
    if (call.exception) return nodes; // the exception box above says why there is no answer
    nodes.push(el("h3", { text: "Answer" }));
    if (!convo.answer) {
      nodes.push(call.ended_at ? jsonBlock(call.output) : el("div", { class: "ids", text: "running…" }));
      return nodes;
    }
    nodes.push(el("div", { class: "answer" }, convo.answer.map(function (choice, i) {
      return el("div", { class: "choice" }, [
        convo.answer.length > 1 ? el("div", { class: "ids", text: "choice " + i + (choice.finish ? " · " + choice.finish : "") }) : null
      ].concat(choice.messages.map(messageNode)));
    })));
    return nodes;
  }

  function rawPayloads(call) {
    return el("details", { class: "raw" }, [
      el("summary", { text: "Raw inputs and output (JSON)" }),
      el("h3", { text: "Inputs" }), jsonBlock(call.inputs),
      el("h3", { text: "Output" }), jsonBlock(call.output)
    ]);
  }
`;
