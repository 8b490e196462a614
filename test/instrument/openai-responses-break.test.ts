/**
 * A Responses stream the app leaves with `break` once the output is complete — right after
 * `response.output_text.done`, `response.content_part.done` or the last `response.output_item.done` — is a finished
 * call with the usage of the `response.completed` that follows (real `openai` 5, 6, and 7 on Node ≥ 22, against the
 * loopback stand-in), as a chat stream left right after its last `finish_reason` is: the wrapper reads on past the
 * `break` for that event, the app's `break` waits for it at most the same grace, and the stream is then closed as
 * the SDK closes it. A `break` before the end (another item follows) and a `response.completed` that does not come
 * in time are recorded as before: cancelled, with what the app read.
 */
import { afterEach, describe, expect, it } from "vitest";
import { RETURN_GRACE_MS } from "../../src/genai/stream-tap.js";
import { op } from "../../src/index.js";
import { wrapOpenAI } from "../../src/instrument/index.js";
import {
  RESPONSES_CREATE as CREATE,
  RESPONSES_MODEL as MODEL,
  REASONING_PIECES,
  RESPONSE_ID,
  RESPONSES_ANSWER_MODEL as RESPONSE_MODEL,
  RESPONSE_TEXT,
  responseUsageSummary,
} from "../support/openai-responses-server.js";
import { Pacer } from "../support/pacer.js";
import { setupSessionPerTest } from "../support/tracing-session.js";
import { type Client, collect, makeClient, plain, setupOpenAIServer, summaryOf, VERSIONS } from "./support.js";

const PARAMS = { model: MODEL, input: [{ role: "user" as const, content: "Say hello." }], stream: true as const };
const USAGE_SUMMARY = responseUsageSummary(RESPONSE_MODEL);
/** The reasoning item as `response.output_item.done` closes it (the first of the stand-in's two items). */
const REASONING_DONE = {
  id: "rs_standin",
  type: "reasoning",
  summary: [{ type: "summary_text", text: REASONING_PIECES.join("") }],
};

const ctx = setupOpenAIServer();
const session = setupSessionPerTest();
afterEach(() => {
  ctx.server.pacer = undefined;
});

/** An event as the app sees it (typed loosely: the fields differ per event type). */
type Event = { type: string; output_index?: number; delta?: string; response?: unknown };

/** Where the app breaks: after the first event `stop` accepts. */
type Stop = (event: Event) => boolean;
const afterEvent =
  (type: string, outputIndex?: number): Stop =>
  (event) =>
    event.type === type && (outputIndex === undefined || event.output_index === outputIndex);

/** The events of a stream up to and including the one `stop` accepts, then `break`; `each` runs per event. */
async function readUntil(stream: AsyncIterable<unknown>, stop: Stop, each = () => {}): Promise<Event[]> {
  const events: Event[] = [];
  for await (const value of stream) {
    const event = value as Event;
    events.push(event);
    if (stop(event)) break;
    each();
  }
  return events;
}

/** A {@link Stop} at the first event of `type` that notes when it broke (`performance.now()`). */
function timedStop(type: string): { stop: Stop; at: number } {
  const timed = {
    at: 0,
    stop: (event: Event) => {
      if (event.type !== type) return false;
      timed.at = performance.now();
      return true;
    },
  };
  return timed;
}

const textOf = (events: Event[]) =>
  events.map((e) => (e.type === "response.output_text.delta" ? (e.delta ?? "") : "")).join("");

/** Flushes until the call of `opName` has ended, then returns it. */
async function ended(opName: string) {
  await expect
    .poll(async () => {
      await session.tracing.flush();
      return session.double.callsNamed(opName)[0]?.ends;
    })
    .toBe(1);
  return session.only(opName);
}

describe.each(VERSIONS)("$name", (version) => {
  let client: Client;
  let whole: Event[];
  const wrapped = () => wrapOpenAI(makeClient(version, ctx.server));
  const completedResponse = () => whole.at(-1)!.response;

  it.each([
    ["response.output_text.done", afterEvent("response.output_text.done")],
    ["response.content_part.done", afterEvent("response.content_part.done")],
    ["the last response.output_item.done", afterEvent("response.output_item.done", 1)],
  ] as const)("break right after %s: finished, with the usage, rolled up to the op", async (_name, stop) => {
    client = wrapped();
    whole = (await collect(await makeClient(version, ctx.server).responses.create(PARAMS))) as unknown as Event[];
    const answer = op(async function answer() {
      return readUntil(await client.responses.create(PARAMS), stop);
    });
    const events = await answer();
    // The app got the unwrapped events, up to its break.
    expect(events).toStrictEqual(whole.slice(0, events.length));
    expect(textOf(events)).toBe(RESPONSE_TEXT);

    const call = await session.only(CREATE);
    expect(call.end!.exception).toBeUndefined();
    expect(call.ends).toBe(1);
    expect(call.end!.output).toEqual(plain(completedResponse()));
    const summary = summaryOf(call);
    expect(summary.tracewire).toBeUndefined();
    expect(summary.usage).toEqual(USAGE_SUMMARY);
    expect(summary.gen_ai).toEqual({
      response_id: RESPONSE_ID,
      response_model: RESPONSE_MODEL,
      finish_reasons: ["stop"],
      time_to_first_chunk: expect.any(Number),
    });
    // The call ended before the op around it did, so the op's usage counts it.
    const parent = await session.only("answer");
    expect(summaryOf(parent).usage).toEqual(USAGE_SUMMARY);
  });

  it("response.completed after the break: the app's break waits at most the grace; the stream is closed after", async () => {
    client = wrapped();
    whole = (await collect(await makeClient(version, ctx.server).responses.create(PARAMS))) as unknown as Event[];
    const pacer = new Pacer(1);
    ctx.server.pacer = pacer;
    const closedBefore = ctx.server.closedEarly;
    const breaking = timedStop("response.output_text.done");
    const events = await readUntil(await client.responses.create(PARAMS), breaking.stop, () => pacer.allow());
    const waited = performance.now() - breaking.at;
    expect(events.at(-1)!.type).toBe("response.output_text.done");
    // Nothing more left the server before the break returned: it waited the grace, not for the event.
    expect(waited).toBeGreaterThanOrEqual(RETURN_GRACE_MS - 2);
    expect(waited).toBeLessThan(250);
    // content_part.done, output_item.done, response.completed — not the end of the body.
    pacer.allow(3);
    const call = await ended(CREATE);
    expect(summaryOf(call).tracewire).toBeUndefined();
    expect(summaryOf(call).usage).toEqual(USAGE_SUMMARY);
    expect(call.end!.output).toEqual(plain(completedResponse()));
    // Then the stream is closed, as the SDK closes it on `break`.
    await expect.poll(() => ctx.server.closedEarly).toBe(closedBefore + 1);
  });

  it("no response.completed within the wait: cancelled (break) as before, the stream closed", async () => {
    client = wrapped();
    const pacer = new Pacer(1);
    ctx.server.pacer = pacer;
    const closedBefore = ctx.server.closedEarly;
    const breaking = timedStop("response.output_text.done");
    await readUntil(await client.responses.create(PARAMS), breaking.stop, () => pacer.allow());
    // The break returned after the grace; the wrapper waits on for response.completed behind the app's back.
    expect(performance.now() - breaking.at).toBeLessThan(250);
    const call = await ended(CREATE);
    expect(summaryOf(call).tracewire).toEqual({ status: "cancelled", cancel_reason: "break" });
    expect(summaryOf(call).usage).toBeUndefined();
    expect(call.end!.exception).toBeUndefined();
    const output = call.end!.output as { id: string; status: string; output: Record<string, unknown>[] };
    expect(output.id).toBe(RESPONSE_ID);
    expect(output.status).toBe("in_progress");
    expect(output.output).toEqual([
      REASONING_DONE,
      {
        id: "msg_standin",
        type: "message",
        status: "in_progress",
        role: "assistant",
        content: [{ type: "output_text", text: RESPONSE_TEXT, annotations: [] }],
      },
    ]);
    await expect.poll(() => ctx.server.closedEarly).toBe(closedBefore + 1);
  });

  it("break after an item that is not the last stays cancelled, with only what the app read", async () => {
    client = wrapped();
    // The reasoning item's output_item.done: the message follows.
    const events = await readUntil(await client.responses.create(PARAMS), afterEvent("response.output_item.done", 0));
    expect(events.at(-1)!.output_index).toBe(0);
    const call = await ended(CREATE);
    expect(summaryOf(call).tracewire).toEqual({ status: "cancelled", cancel_reason: "break" });
    expect(summaryOf(call).usage).toBeUndefined();
    const output = call.end!.output as { status: string; output: unknown[] };
    expect(output.status).toBe("in_progress");
    expect(output.output).toEqual([REASONING_DONE]);
  });

  it("responses.stream(): break right after response.output_text.done records what the runner had read", async () => {
    client = wrapped();
    const answer = op(async function answer() {
      const runner = client.responses.stream({ model: MODEL, input: PARAMS.input });
      return readUntil(runner, afterEvent("response.output_text.done"));
    });
    expect(textOf(await answer())).toBe(RESPONSE_TEXT);
    const call = await session.only("openai.responses.stream");
    expect(call.end!.exception).toBeUndefined();
    if (version.name === "openai v7") {
      // The runner aborts its request on `break` (the SDK's behaviour, kept), and openai 7 yields nothing after an
      // abort, not even events whose bytes had arrived: the call ends as the break alone, not as an abort.
      expect(summaryOf(call).tracewire).toEqual({ status: "cancelled", cancel_reason: "break" });
      return;
    }
    // openai 5 and 6 hand the runner what it had read before the abort: response.completed came with the rest.
    expect(summaryOf(call).tracewire).toBeUndefined();
    expect(summaryOf(call).usage).toEqual(USAGE_SUMMARY);
    expect((call.end!.output as { status: string }).status).toBe("completed");
    expect(summaryOf(await session.only("answer")).usage).toEqual(USAGE_SUMMARY);
  });
});
