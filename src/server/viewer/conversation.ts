/**
 * Part of the viewer script (see `script.ts`): reading an LLM call as a conversation. Decided by the shape of the
 * stored record, not by op name, so every dialect the service stores reads the same:
 *
 * - inputs: a `messages` list of role-bearing messages (OpenAI chat, Anthropic with `system`, AI SDK model calls),
 *   a Responses `input` (text or items; the OpenAI Agents SDK's own items, such as `function_call_result`, too) with
 *   `instructions`, an AI SDK `prompt` with `system`, Gemini `contents` (text, parts or turns) with
 *   `config.systemInstruction`, or the GenAI `gen_ai.input.messages` of an OTLP span (`parts`);
 * - output: a chat completion (`choices[].message`), a Responses response (`output` items), an Anthropic message
 *   (`content` blocks), a Gemini response (`candidates[].content`; with automatic function calling its
 *   `automaticFunctionCallingHistory` is the conversation), an AI SDK result (`text`, `toolCalls`), GenAI output
 *   messages, or plain text.
 *
 * A bare `input`/`prompt` counts only on a call with GenAI facts (model, operation, `summary.gen_ai`), so an op
 * that merely has a parameter called `input` keeps its JSON view.
 */
export const CONVERSATION_SCRIPT = String.raw`
  function isObj(v) { return v !== null && typeof v === "object" && !Array.isArray(v); }
  function parseArgs(v) {
    if (typeof v !== "string") return v;
    try { return JSON.parse(v); } catch (e) { return v; }
  }
  function firstDefined() {
    for (var i = 0; i < arguments.length; i++) if (arguments[i] !== undefined && arguments[i] !== null) return arguments[i];
    return undefined;
  }
  // A tool result's content: text blocks joined, an AI SDK {type, value} unwrapped, anything else as is.
  function resultValue(v) {
    if (Array.isArray(v) && v.every(function (b) { return isObj(b) && typeof b.text === "string"; })) {
      return v.map(function (b) { return b.text; }).join("");
    }
    if (isObj(v) && "value" in v && typeof v.type === "string") return v.value;
    if (isObj(v) && v.type === "text" && typeof v.text === "string") return v.text;
    return parseArgs(v);
  }
  function summaryText(summary) {
    if (!Array.isArray(summary)) return typeof summary === "string" ? summary : "";
    return summary.map(function (s) { return isObj(s) ? s.text || "" : String(s); }).join("\n");
  }

  // One content part → { kind: text | reasoning | tool_call | tool_result | other, ... }.
  function partOf(p) {
    if (typeof p === "string") return { kind: "text", text: p };
    if (!isObj(p)) return { kind: "other", value: p };
    var t = p.type;
    if (t === "refusal") return { kind: "text", text: String(p.refusal) };
    if (t === "reasoning" || t === "thinking" || t === "redacted_thinking") {
      return { kind: "reasoning", text: firstDefined(p.text, p.thinking, p.content, summaryText(p.summary), "") };
    }
    if (t === "tool_use" || t === "tool-call" || t === "tool_call" || t === "function_call" || t === "server_tool_use") {
      return {
        kind: "tool_call", id: firstDefined(p.id, p.toolCallId, p.call_id, p.callId), name: firstDefined(p.name, p.toolName),
        args: parseArgs(firstDefined(p.input, p.arguments, p.args))
      };
    }
    if (t === "tool_result" || t === "tool-result" || t === "tool_call_response" || t === "function_call_output" || t === "function_call_result") {
      return {
        kind: "tool_result", id: firstDefined(p.tool_use_id, p.toolCallId, p.call_id, p.callId, p.id), name: firstDefined(p.toolName, p.name),
        content: resultValue(firstDefined(p.content, p.output, p.result, p.response))
      };
    }
    // Gemini parts carry no type: a function call or response, or text that may be a thought.
    if (isObj(p.functionCall)) {
      return { kind: "tool_call", id: p.functionCall.id, name: p.functionCall.name, args: parseArgs(p.functionCall.args) };
    }
    if (isObj(p.functionResponse)) {
      var fr = p.functionResponse;
      return { kind: "tool_result", id: fr.id, name: fr.name, content: resultValue(fr.response) };
    }
    if (p.thought === true && typeof p.text === "string") return { kind: "reasoning", text: p.text };
    if (typeof p.text === "string") return { kind: "text", text: p.text };
    if (t === "text" && typeof p.content === "string") return { kind: "text", text: p.content };
    return { kind: "other", value: p };
  }
  function partsOf(content) {
    if (content === undefined || content === null) return [];
    if (Array.isArray(content)) return content.map(partOf);
    return [partOf(content)];
  }

  // One message (or a role-less Responses item) → { role, parts }.
  function messageOf(m) {
    if (!isObj(m)) return { role: "user", parts: partsOf(m) };
    if (!m.role) {
      var part = partOf(m);
      return { role: part.kind === "tool_result" ? "tool" : "assistant", parts: [part] };
    }
    var parts = partsOf(firstDefined(m.content, m.parts));
    if (m.role === "model") return { role: "assistant", parts: parts }; // Gemini's name for the assistant
    if (m.role === "tool" && m.tool_call_id) {
      parts = [{ kind: "tool_result", id: m.tool_call_id, name: m.name, content: resultValue(m.content) }];
    }
    (Array.isArray(m.tool_calls) ? m.tool_calls : []).forEach(function (c) {
      var fn = (c && c.function) || {};
      parts.push({ kind: "tool_call", id: c && c.id, name: fn.name, args: parseArgs(fn.arguments) });
    });
    if (isObj(m.function_call)) {
      parts.push({ kind: "tool_call", name: m.function_call.name, args: parseArgs(m.function_call.arguments) });
    }
    return { role: m.role, parts: parts };
  }
  // Consecutive role-less items (Responses function calls, reasoning) of one speaker read as one message.
  function messagesOf(list) {
    var out = [];
    list.forEach(function (item) {
      var m = messageOf(item);
      var last = out[out.length - 1];
      if (last && isObj(item) && !item.role && last.merge && last.role === m.role) last.parts = last.parts.concat(m.parts);
      else { if (isObj(item) && !item.role) m.merge = true; out.push(m); }
    });
    return out;
  }
  function isMessageList(v) {
    return Array.isArray(v) && v.length > 0 && v.every(function (m) { return isObj(m) && (typeof m.role === "string" || typeof m.type === "string"); });
  }

  function hasGenAiFacts(call) {
    var a = call.attributes || {}, s = call.summary || {};
    return Boolean(s.gen_ai || a.model || a.operation === "chat" || a.operation === "text_completion" || a.operation === "generate_content");
  }

  // Gemini turns: a string, a Content, or a list of Contents (a role-less one is the user's) or of parts.
  function geminiMessages(contents) {
    if (typeof contents === "string") return [{ role: "user", parts: [{ kind: "text", text: contents }] }];
    var list = Array.isArray(contents) ? contents : [contents];
    var turns = list.every(function (c) { return isObj(c) && (Array.isArray(c.parts) || typeof c.role === "string"); });
    if (!turns) return [{ role: "user", parts: partsOf(list) }];
    return list.map(function (c) { return messageOf(c.role ? c : Object.assign({}, c, { role: "user" })); });
  }

  // The request's messages, or null when the inputs hold no conversation.
  function requestMessages(call) {
    var inputs = call.inputs;
    if (!isObj(inputs)) return null;
    var list = firstDefined(inputs.messages, inputs["gen_ai.input.messages"]);
    var prompt = firstDefined(inputs.input, inputs.prompt);
    var messages;
    if (isMessageList(list)) messages = messagesOf(list);
    else if (isMessageList(prompt)) messages = messagesOf(prompt);
    else if (typeof prompt === "string" && hasGenAiFacts(call)) messages = [{ role: "user", parts: [{ kind: "text", text: prompt }] }];
    else if (inputs.contents !== undefined && inputs.contents !== null && hasGenAiFacts(call)) {
      // With automatic function calling, the SDK's history holds the request and every round before the answer.
      var history = isObj(call.output) ? call.output.automaticFunctionCallingHistory : undefined;
      messages = geminiMessages(Array.isArray(history) && history.length ? history : inputs.contents);
    }
    else return null;
    var config = isObj(inputs.config) ? inputs.config : {};
    var instruction = config.systemInstruction;
    if (isObj(instruction) && Array.isArray(instruction.parts)) instruction = instruction.parts;
    var system = firstDefined(inputs.system, inputs.instructions, inputs["gen_ai.system_instructions"], instruction);
    if (system !== undefined && system !== "") messages.unshift({ role: "system", parts: partsOf(system) });
    return messages;
  }

  // The answer: one entry per choice, each { messages, finish }; null when the output has no known shape.
  function answerOf(output) {
    if (output === null || output === undefined) return null;
    if (typeof output === "string") return [{ messages: [{ role: "assistant", parts: [{ kind: "text", text: output }] }] }];
    if (isMessageList(output)) {
      return [{ messages: messagesOf(output), finish: output[output.length - 1].finish_reason }];
    }
    if (!isObj(output)) return null;
    if (Array.isArray(output.choices)) {
      return output.choices.map(function (c) {
        var m = isObj(c) ? firstDefined(c.message, c.delta) : undefined;
        return { messages: [messageOf(m || { role: "assistant", content: isObj(c) ? c.text : c })], finish: isObj(c) ? c.finish_reason : undefined };
      });
    }
    if (Array.isArray(output.output)) return [{ messages: messagesOf(output.output), finish: output.status }];
    if (Array.isArray(output.candidates)) {
      return output.candidates.map(function (c) {
        var content = isObj(c) && isObj(c.content) ? c.content : { parts: [] };
        return { messages: [messageOf(Object.assign({ role: "model" }, content))], finish: isObj(c) ? c.finishReason : undefined };
      });
    }
    if (Array.isArray(output.content) && (output.role === "assistant" || output.type === "message")) {
      return [{ messages: [messageOf(output)], finish: output.stop_reason }];
    }
    if (typeof output.text === "string" || Array.isArray(output.toolCalls)) {
      var parts = [];
      if (output.reasoning) parts.push({ kind: "reasoning", text: String(output.reasoning) });
      if (output.text) parts.push({ kind: "text", text: output.text });
      (output.toolCalls || []).forEach(function (c) { parts.push(partOf(Object.assign({ type: "tool-call" }, c))); });
      return [{ messages: [{ role: "assistant", parts: parts }], finish: output.finishReason }];
    }
    return null;
  }

  // The call as a conversation, or null for a call that is not an LLM call.
  function conversationOf(call) {
    // An agent framework's chain, node or tool whose state holds messages is not an LLM call.
    var kind = call.attributes && call.attributes.kind;
    if (typeof kind === "string" && kind !== "llm") return null;
    var messages = requestMessages(call);
    if (!messages) return null;
    var tools = firstDefined(call.inputs.tools, isObj(call.inputs.config) ? call.inputs.config.tools : undefined);
    var toolNames = (Array.isArray(tools) ? tools : isObj(tools) ? Object.keys(tools).map(function (k) { return { name: k }; }) : [])
      // A Gemini tool declares several functions.
      .reduce(function (acc, t) { return acc.concat(isObj(t) && Array.isArray(t.functionDeclarations) ? t.functionDeclarations : [t]); }, [])
      .map(function (t) { return isObj(t) ? firstDefined(t.name, t.function && t.function.name, t.type) : String(t); })
      .filter(Boolean);
    var answer = answerOf(call.output);
    // A tool result names its tool by the id of the call it answers (OpenAI's tool messages carry only the id).
    var names = {};
    var all = messages.concat(answer ? answer.reduce(function (acc, c) { return acc.concat(c.messages); }, []) : []);
    all.forEach(function (m) { m.parts.forEach(function (p) { if (p.kind === "tool_call" && p.id) names[p.id] = p.name; }); });
    all.forEach(function (m) { m.parts.forEach(function (p) { if (p.kind === "tool_result" && !p.name) p.name = names[p.id]; }); });
    return { messages: messages, answer: answer, tools: toolNames };
  }

  // Model, tokens and time to first chunk of an LLM call, from its attributes and summary.
  function llmFacts(call) {
    var a = call.attributes || {}, s = call.summary || {}, g = s.gen_ai || {};
    var usage = s.usage || {};
    var models = Object.keys(usage);
    var out = isObj(call.output) ? call.output : {};
    var facts = { model: firstDefined(g.response_model, a.model, out.model, models[0]), input: 0, output: 0, total: 0 };
    models.forEach(function (m) {
      var u = usage[m] || {};
      var inTok = firstDefined(u.input_tokens, u.prompt_tokens, 0), outTok = firstDefined(u.output_tokens, u.completion_tokens, 0);
      facts.input += inTok; facts.output += outTok; facts.total += firstDefined(u.total_tokens, inTok + outTok);
    });
    facts.hasTokens = models.length > 0;
    facts.ttfc = typeof g.time_to_first_chunk === "number" ? g.time_to_first_chunk : null;
    facts.finish = Array.isArray(g.finish_reasons) ? g.finish_reasons.join(", ") : null;
    return facts;
  }
`;
