/**
 * docs/troubleshooting.md quotes the lines tracewire logs, so that a user can find the line they saw. Here each line
 * is made to happen for real (a loopback tracing double, the hooks and values the page names) and must match a
 * quoted line of the page: `…`, `<name>`, `N` and `entity/project` in a quote stand for any text, everything else is
 * literal.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { trace } from "@opentelemetry/api";
import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ROOT } from "../../scripts/markdown.mjs";
import { frameworkError } from "../../src/genai/framework-runs.js";
import { init, op, withAttributes, withThread } from "../../src/index.js";
import { register } from "../../src/next/index.js";
import { globalState } from "../../src/otel/state.js";
import { type Session, startSession } from "../support/tracing-session.js";
import { withEnv } from "./snippets.js";

const PAGE = readFileSync(join(ROOT, "docs/troubleshooting.md"), "utf8");

/** The quoted lines of the page's tables (their first column), as written. */
const QUOTED = PAGE.split("\n")
  .filter((line) => line.startsWith("| `"))
  .flatMap((line) => [...line.split(" | ")[0]!.matchAll(/``\s?(.+?)\s?``|`([^`]+)`/g)].map((m) => (m[1] ?? m[2])!));

const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** A quoted line as a pattern: its placeholders match any text, the rest only itself. */
function patternOf(quote: string): RegExp {
  const parts = quote.split(/(…|<[a-z ]+>|\bN\b|entity\/project)/);
  return new RegExp(`^${parts.map((part, i) => (i % 2 ? "[\\s\\S]+?" : literal(part))).join("")}$`);
}

/** The quoted line a logged line is (its `[tracewire]` prefix and suppressed-count suffix aside), or undefined. */
function quoteOf(logged: string): string | undefined {
  const text = logged.replace(/^\[tracewire\] /, "").replace(/ \(\d+ similar messages? suppressed\)$/, "");
  return QUOTED.find((quote) => patternOf(quote).test(text));
}

/** Every logged line is quoted on the page; returns the quotes, in order. */
function expectQuoted(lines: { message: string }[]): string[] {
  const unquoted = lines.map((l) => l.message).filter((m) => quoteOf(m) === undefined);
  expect(unquoted, "lines docs/troubleshooting.md does not quote").toEqual([]);
  return lines.map((l) => quoteOf(l.message)!);
}

function recording() {
  const lines: { message: string }[] = [];
  const logger = {
    warn: (message: string) => lines.push({ message }),
    error: (message: string) => lines.push({ message }),
  };
  return { lines, logger };
}

describe("docs/troubleshooting.md: setup", () => {
  beforeEach(() => globalState().warned.clear());

  it("quotes the lines init() logs when tracing is off, disabled, or the sampler settings are wrong", async () => {
    const { lines, logger } = recording();
    await init({ env: {}, logger }).shutdown();
    await init({ env: { TRACEWIRE_DISABLED: "true" }, logger }).shutdown();
    expect(expectQuoted(lines)).toEqual([
      expect.stringMatching(/^Tracing is off: /),
      expect.stringMatching(/^Tracing is disabled /),
    ]);
    const session = await startSession({
      env: { OTEL_TRACES_SAMPLER: "always_onn", OTEL_TRACES_SAMPLER_ARG: "2" },
    });
    try {
      expect(expectQuoted(session.logs)).toEqual([expect.stringMatching(/^OTEL_TRACES_SAMPLER="…" is not a sampler/)]);
    } finally {
      await session.stop();
    }
  });

  it("quotes the lines register() from tracewire/next logs outside Next and on the edge", async () => {
    const lines: { message: string }[] = [];
    const warn = vi.spyOn(console, "warn").mockImplementation((message: string) => void lines.push({ message }));
    try {
      await withEnv({ NEXT_RUNTIME: undefined }, () => register());
      await withEnv({ NEXT_RUNTIME: "edge" }, () => register());
    } finally {
      warn.mockRestore();
    }
    expect(expectQuoted(lines)).toEqual([
      expect.stringMatching(/^register\(\) from tracewire\/next is meant for/),
      expect.stringMatching(/^The edge runtime is not traced/),
    ]);
  });

  it("quotes the line init() logs when the app registered its own tracer provider", async () => {
    const foreign = new BasicTracerProvider();
    trace.setGlobalTracerProvider(foreign);
    const { lines, logger } = recording();
    try {
      await init({ baseUrl: "http://127.0.0.1:9", project: "acme/demo", env: {}, logger }).shutdown();
    } finally {
      trace.disable();
    }
    expect(expectQuoted(lines)).toEqual([
      expect.stringMatching(/^An OpenTelemetry tracer provider is already registered/),
    ]);
  });
});

describe("docs/troubleshooting.md: delivery, hooks and values", () => {
  const traced = op(async function traced() {
    return 1;
  });
  let session: Session | undefined;
  afterEach(async () => {
    await session?.stop();
    session = undefined;
  });

  it("quotes the 401 and 403 lines", async () => {
    session = await startSession();
    session.double.fail("/call/upsert_batch", { status: 401 });
    await traced();
    await session.tracing.flush();
    expect(expectQuoted(session.logs)).toEqual([expect.stringMatching(/^The tracing service answered 401 /)]);
    expect(session.logs[0]!.message).toContain("answered 401 (no API key is set);");
    await session.stop();
    session = await startSession();
    session.double.fail("/call/upsert_batch", { status: 403 });
    await traced();
    await session.tracing.flush();
    expect(expectQuoted(session.logs)).toEqual([expect.stringMatching(/^The tracing service answered 403 /)]);
  });

  it("quotes the retry line", async () => {
    session = await startSession();
    session.double.down(["/call/upsert_batch"], { status: 503 });
    await traced();
    await vi.waitFor(() => expect(session!.logs).toHaveLength(1), { timeout: 5000 });
    session.double.recover();
    expect(expectQuoted(session.logs)).toEqual(["Sending calls failed, will retry: …"]);
  });

  it("quotes the full-queue line", async () => {
    // The default queue (2048 items, the number the line quotes): a call is two items.
    session = await startSession({ exportTimeoutMillis: 200 });
    session.double.down(["/call/upsert_batch"], "hang");
    for (let i = 0; i < 1500; i++) await traced();
    await session.tracing.shutdown();
    session.double.releaseHung();
    const quotes = expectQuoted(session.logs);
    expect(quotes).toContain("Dropped N call item(s) because the queue is full (2048).");
    // A line of its own, not held back for a minute behind the full queue's (the process is ending).
    expect(quotes).toContain("Dropped N call item(s) because they could not be sent before shutdown.");
  });

  it("quotes the line of what shutdown() could not send", async () => {
    session = await startSession({ exportTimeoutMillis: 200 });
    session.double.down(["/call/upsert_batch"], "hang");
    await traced();
    await traced();
    await session.tracing.shutdown();
    session.double.releaseHung();
    expect(expectQuoted(session.logs)).toContain(
      "Dropped N call item(s) because they could not be sent before shutdown.",
    );
  });

  it("quotes the lines of the app's hooks and values", async () => {
    session = await startSession({
      redact: () => {
        throw new TypeError("no");
      },
      route: () => {
        throw new Error("route hook");
      },
    });
    const traced = op(
      async function traced() {
        return 1;
      },
      {
        displayName: () => {
          throw new Error("name hook");
        },
      },
    );
    await withThread("", () => traced());
    await withAttributes(5 as never, () => traced());
    await session.tracing.flush();
    const quotes = expectQuoted(session.logs);
    expect(quotes).toEqual(
      expect.arrayContaining([
        "The redact hook threw a TypeError (message withheld); payload withheld.",
        "Internal error in route (tracing continues): …",
        "displayName of <op> threw: …",
        "withThread: the thread id must be a non-empty string of at most 1024 characters, got …; the function ran without a thread.",
        "withAttributes: attributes must be an object, got …; the function ran without these attributes.",
      ]),
    );
  });

  it("names an agent framework's run as the Internal errors paragraph does", async () => {
    session = await startSession();
    frameworkError("openai-agents", "flush", new Error("boom"));
    frameworkError("langchain", "flush", new Error("boom"));
    const paragraph = PAGE.slice(PAGE.indexOf("## Internal errors"), PAGE.indexOf("## Evaluations")).replace(
      /\s+/g,
      " ",
    );
    const logged = session.logs.map((l) => l.message.replace(/^\[tracewire\] /, ""));
    expect(logged).toEqual([
      "Internal error while tracing an openai-agents run (flush; the run itself is unaffected): Error: boom",
      "Internal error while tracing a langchain run (flush; the run itself is unaffected): Error: boom",
    ]);
    expect(paragraph).toContain(
      "`Internal error while tracing a chat completion / an AI SDK call (…; the call itself is unaffected)`, " +
        "`Internal error while tracing a langchain run / an openai-agents run (…; the run itself is unaffected)`",
    );
  });
});
