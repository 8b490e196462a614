/**
 * A wrapped stream behaves exactly like the unwrapped one wherever the app stops it (issue #22): abort before
 * reading, after the first chunk, mid-stream and after the last chunk; `break` at the same places; `tee()`;
 * `toReadableStream()` read, aborted and cancelled — for chat completions and Responses (openai 5, 6, and 7 on
 * Node ≥ 22) and Anthropic Messages (`@anthropic-ai/sdk` 0.x and 1.x). Each position is run on an unwrapped and a
 * wrapped client against the same loopback stand-in, and what the app observes — every chunk, then how the loop
 * ended (done, or the thrown error's class and message) — must be identical. The stand-in is paced (Pacer): it
 * writes the next event only once the app has handled the previous one, so what happens at a position depends on
 * the client alone, not on how the events happened to be cut into TCP reads. Each wrapped stream ends its call
 * exactly once, as cancelled when it was aborted or left before its end.
 */
import { describe, expect, it } from "vitest";
import { callOf } from "../../src/index.js";
import { wrapAnthropic } from "../../src/instrument/anthropic.js";
import { wrapOpenAI } from "../../src/instrument/index.js";
import { Pacer } from "../support/pacer.js";
import { setupSession } from "../support/tracing-session.js";
import { ANTHROPIC_VERSIONS, makeAnthropic, setupAnthropicServer, TEXT_REQUEST } from "./anthropic-support.js";
import { MESSAGES, makeClient, setupOpenAIServer, VERSIONS } from "./support.js";

const openai = setupOpenAIServer();
const anthropic = setupAnthropicServer();
const session = setupSession();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The parts of an SDK `Stream` the positions use. */
interface SdkStream extends AsyncIterable<unknown> {
  controller: AbortController;
  tee(): [SdkStream, SdkStream];
  toReadableStream(): ReadableStream<Uint8Array>;
}

/** What the app observed: each chunk (a JSON round trip), then how reading ended. */
interface Observed {
  chunks: unknown[];
  end: string;
  /** A second branch (tee) or reader outcome, when the position has one. */
  other?: Observed;
}

const ended = (err: unknown): string => {
  const e = err as { constructor?: { name?: string }; message?: unknown } | undefined;
  return `threw ${e?.constructor?.name ?? typeof err}: ${String(e?.message ?? err)}`;
};

/** Reads `iterable` with `for await`; `after(n)` runs after the n-th chunk and may ask to `break`. */
async function drain(iterable: AsyncIterable<unknown>, after: (n: number) => "break" | undefined): Promise<Observed> {
  const chunks: unknown[] = [];
  try {
    for await (const chunk of iterable) {
      chunks.push(JSON.parse(JSON.stringify(chunk)));
      if (after(chunks.length) === "break") return { chunks, end: "break" };
    }
    return { chunks, end: "done" };
  } catch (err) {
    return { chunks, end: ended(err) };
  }
}

/** Reads a `toReadableStream()` reader; `after(n)` runs after the n-th read and may cancel the reader. */
async function readBytes(
  stream: ReadableStream<Uint8Array>,
  after: (n: number, reader: ReadableStreamDefaultReader<Uint8Array>) => Promise<"cancelled" | undefined>,
): Promise<Observed> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  const chunks: unknown[] = [];
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { chunks, end: "done" };
      chunks.push(decoder.decode(value));
      if ((await after(chunks.length, reader)) === "cancelled") return { chunks, end: "cancelled" };
    }
  } catch (err) {
    return { chunks, end: ended(err) };
  }
}

/** Where the app stops: `run` reads the stream as an app would; `cancelled` is how the wrapped call must end. */
interface Position {
  name: string;
  /** The position splits the stream with `tee()` (the SDKs' stream helpers have none). */
  tee?: true;
  /** `last` is the number of chunks a whole read yields. */
  run(stream: SdkStream, pacer: Pacer, last: number): Promise<Observed>;
  cancelled: boolean;
}

/** Reads on, letting the stand-in send one more event after each chunk; at chunk `at`, `act` instead. */
const at =
  (k: number, pacer: Pacer, act: () => "break" | undefined) =>
  (n: number): "break" | undefined => {
    if (n === k) return act();
    pacer.allow();
    return undefined;
  };

/**
 * Waits until the stand-in wrote its first event and it had time to reach the client (nothing read yet). The wait is
 * generous because what an abort does next depends on whether the bytes arrived: 30 ms was not always enough on a
 * loaded machine, and then the wrapped and unwrapped runs of one position could differ by timing alone.
 */
async function firstEventArrived(pacer: Pacer): Promise<void> {
  await pacer.tookTurns(1);
  await sleep(150);
}

const POSITIONS: Position[] = [
  {
    name: "read to the end",
    run: (s, p) =>
      drain(
        s,
        at(0, p, () => undefined),
      ),
    cancelled: false,
  },
  {
    name: "abort before reading",
    run: async (s, p) => {
      await firstEventArrived(p);
      s.controller.abort();
      return drain(
        s,
        at(0, p, () => undefined),
      );
    },
    cancelled: true,
  },
  ...(
    [
      ["after the first chunk", () => 1],
      ["mid-stream", () => 3],
      ["after the last chunk", (last: number) => last],
    ] as const
  ).flatMap(([where, k]): Position[] => [
    {
      name: `abort ${where}`,
      run: (s, p, last) =>
        drain(
          s,
          at(k(last), p, () => {
            s.controller.abort();
            return undefined;
          }),
        ),
      cancelled: true,
    },
    {
      name: `break ${where}`,
      run: (s, p, last) =>
        drain(
          s,
          at(k(last), p, () => "break"),
        ),
      // A break after the last chunk leaves a stream that had nothing more to say: the call completes.
      cancelled: where !== "after the last chunk",
    },
  ]),
  {
    name: "tee(): both branches read to the end",
    tee: true,
    run: async (s, p) => {
      const [left, right] = s.tee();
      const observed = await drain(
        left,
        at(0, p, () => undefined),
      );
      return { ...observed, other: await drain(right, () => undefined) };
    },
    cancelled: false,
  },
  {
    name: "tee(): abort after the first chunk of one branch",
    tee: true,
    run: async (s, p) => {
      const [left, right] = s.tee();
      const observed = await drain(
        left,
        at(1, p, () => {
          s.controller.abort();
          return undefined;
        }),
      );
      return { ...observed, other: await drain(right, () => undefined) };
    },
    cancelled: true,
  },
  {
    name: "tee(): abort before reading",
    tee: true,
    run: async (s, p) => {
      const [left, right] = s.tee();
      await firstEventArrived(p);
      s.controller.abort();
      const observed = await drain(
        left,
        at(0, p, () => undefined),
      );
      return { ...observed, other: await drain(right, () => undefined) };
    },
    cancelled: true,
  },
  {
    name: "toReadableStream(): read to the end",
    run: (s, p) =>
      readBytes(s.toReadableStream(), async () => {
        p.allow();
        return undefined;
      }),
    cancelled: false,
  },
  {
    name: "toReadableStream(): abort before reading",
    run: async (s, p) => {
      const bytes = s.toReadableStream();
      await firstEventArrived(p);
      s.controller.abort();
      return readBytes(bytes, async () => {
        p.allow();
        return undefined;
      });
    },
    cancelled: true,
  },
  {
    name: "toReadableStream(): abort after the first read",
    run: (s, p) =>
      readBytes(s.toReadableStream(), async (n) => {
        if (n === 1) s.controller.abort();
        p.allow();
        return undefined;
      }),
    cancelled: true,
  },
  {
    name: "toReadableStream(): the reader cancelled after the first read",
    run: (s, p) =>
      readBytes(s.toReadableStream(), async (n, reader) => {
        if (n !== 1) {
          p.allow();
          return undefined;
        }
        // toReadableStream() already asked for the next chunk: the cancel waits for it, as it does unwrapped.
        const cancelling = reader.cancel();
        p.allow();
        await cancelling;
        return "cancelled";
      }),
    cancelled: true,
  },
];

/** One kind of stream: how to open it on an unwrapped or a wrapped client, on a stand-in that takes a pacer. */
interface Source {
  name: string;
  opName: string;
  /** An SDK stream helper (it reads the stream itself, and has no `tee()`). */
  helper?: true;
  versions: { name: string; plain(): object; wrapped(): object }[];
  setPacer(pacer: Pacer | undefined): void;
  open(client: object): Promise<SdkStream>;
}

type OpenAIClient = ReturnType<typeof makeClient>;
type AnthropicClient = ReturnType<typeof makeAnthropic>;

const openaiVersions = VERSIONS.map((version) => ({
  name: version.name,
  plain: () => makeClient(version, openai.server),
  wrapped: () => wrapOpenAI(makeClient(version, openai.server)),
}));

const SOURCES: Source[] = [
  {
    name: "chat completions",
    opName: "openai.chat.completions.create",
    versions: openaiVersions,
    setPacer: (pacer) => {
      openai.server.pacer = pacer;
    },
    open: async (client) =>
      (await (client as OpenAIClient).chat.completions.create({
        model: "gpt-4o-mini",
        messages: MESSAGES,
        stream: true,
      })) as unknown as SdkStream,
  },
  {
    name: "Responses",
    opName: "openai.responses.create",
    versions: openaiVersions,
    setPacer: (pacer) => {
      openai.server.pacer = pacer;
    },
    open: async (client) =>
      (await (client as OpenAIClient).responses.create({
        model: "gpt-4o-mini",
        input: "Say hello.",
        stream: true,
      })) as unknown as SdkStream,
  },
  {
    name: "Anthropic Messages",
    opName: "anthropic.messages.create",
    versions: ANTHROPIC_VERSIONS.map((version) => ({
      name: version.name,
      plain: () => makeAnthropic(version, anthropic.server),
      wrapped: () => wrapAnthropic(makeAnthropic(version, anthropic.server)),
    })),
    setPacer: (pacer) => {
      anthropic.server.pacer = pacer;
    },
    open: async (client) =>
      (await (client as AnthropicClient).messages.create({ ...TEXT_REQUEST, stream: true })) as unknown as SdkStream,
  },
  {
    name: "openai chat.completions.stream()",
    opName: "openai.chat.completions.stream",
    helper: true,
    versions: openaiVersions,
    setPacer: (pacer) => {
      openai.server.pacer = pacer;
    },
    open: async (client) =>
      (client as OpenAIClient).chat.completions.stream({
        model: "gpt-4o-mini",
        messages: MESSAGES,
      }) as unknown as SdkStream,
  },
  {
    name: "Anthropic messages.stream()",
    opName: "anthropic.messages.stream",
    helper: true,
    versions: ANTHROPIC_VERSIONS.map((version) => ({
      name: version.name,
      plain: () => makeAnthropic(version, anthropic.server),
      wrapped: () => wrapAnthropic(makeAnthropic(version, anthropic.server)),
    })),
    setPacer: (pacer) => {
      anthropic.server.pacer = pacer;
    },
    open: async (client) => (client as AnthropicClient).messages.stream(TEXT_REQUEST) as unknown as SdkStream,
  },
];

describe.each(SOURCES)("$name", (source) => {
  describe.each(source.versions)("$name", (version) => {
    /** Runs `position` on a fresh stream of `client`, the stand-in paced for it. */
    const observe = async (client: object, position: Position, last: number) => {
      const pacer = new Pacer(1);
      source.setPacer(pacer);
      try {
        const stream = await source.open(client);
        return { stream, observed: await position.run(stream, pacer, last) };
      } finally {
        source.setPacer(undefined);
      }
    };

    const positions = POSITIONS.filter((position) => !(source.helper && position.tee));
    it.each(positions)("$name: the app observes what the unwrapped client gives", async (position) => {
      const whole = await observe(version.plain(), POSITIONS[0] as Position, 0);
      const last = whole.observed.chunks.length;
      expect(last).toBeGreaterThan(3);
      const expected = await observe(version.plain(), position, last);
      const got = await observe(version.wrapped(), position, last);
      expect(got.observed).toStrictEqual(expected.observed);

      const handle = callOf(got.stream);
      expect(handle, "the wrapped stream leads to its call").toBeDefined();
      await expect
        .poll(async () => {
          await session.tracing.flush();
          return session.double.calls.get(handle!.id)?.ends;
        })
        .toBe(1);
      const call = session.double.calls.get(handle!.id)!;
      expect(call.start!.op_name).toBe(source.opName);
      const summary = call.end!.summary as { tracewire?: { status?: string } };
      // A helper aborts its request when the app breaks out of it; the wrapper notes the break first, so the call ends
      // as the break does (complete after the last event), not as the caller's abort.
      expect(summary.tracewire?.status === "cancelled", JSON.stringify(summary)).toBe(position.cancelled);
      expect(call.end!.exception).toBeUndefined();
    });
  });
});
