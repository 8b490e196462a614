/**
 * Known secrets: the exact credential strings `scrubText` masks wherever they occur. Which values `init()` registers
 * from its environment (credential-named variables, 8 characters or more), that tracewire's own key is masked in its
 * log lines only when long enough to mask (a key `k` once masked every letter k), that the list is bounded, that
 * one value containing another is masked whole, that a value is matched literally, and that the list lives in the
 * process-wide state (a second copy of secrets.ts masks what this one registered).
 */
import { randomUUID } from "node:crypto";
import { trace } from "@opentelemetry/api";
import { afterEach, describe, expect, it } from "vitest";
import { op, REDACTED } from "../../src/index.js";
import { TracewireSpanProcessor } from "../../src/otel/index.js";
import { rememberSecret } from "../../src/otel/known-secrets.js";
import { globalState } from "../../src/otel/state.js";
import { knownSecrets, MAX_KNOWN_SECRETS, scrubText } from "../../src/secrets.js";
import { allSpans, decodeTraceRequest } from "../support/otlp.js";
import { type Session, startSession } from "../support/tracing-session.js";

/** A value no other test registered (the list is process-wide). */
const unique = (prefix: string) => `${prefix}-${randomUUID()}`;

let session: Session | undefined;
afterEach(async () => {
  await session?.stop();
  session = undefined;
});

describe("init() registers the values of credential-named variables of its environment", () => {
  it("OPENAI_API_KEY, ANTHROPIC_API_KEY, DB_PASSWORD, GITHUB_TOKEN: masked; other names and short values: kept", async () => {
    const values = {
      OPENAI_API_KEY: unique("sk-openai"),
      ANTHROPIC_API_KEY: unique("sk-ant"),
      DB_PASSWORD: unique("pw"),
      GITHUB_TOKEN: `${unique("ghp")}\n`, // read from a file, newline and all
      SHORT_SECRET: "abc1234",
      HOME_DIRECTORY: unique("/home/user"),
    };
    session = await startSession({ env: values });
    const text = Object.values(values).join(" | ");
    expect(scrubText(text)).toBe(
      [REDACTED, REDACTED, REDACTED, `${REDACTED}\n`, "abc1234", values.HOME_DIRECTORY].join(" | "),
    );
  });

  it("the names are those the configured redactor matches (redactKeys)", async () => {
    const ssn = unique("ssn-value");
    const openai = unique("sk-openai");
    session = await startSession({ env: { EMPLOYEE_SSN: ssn, OPENAI_API_KEY: openai }, redactKeys: ["ssn"] });
    expect(scrubText(`${ssn} ${openai}`)).toBe(`${REDACTED} ${openai}`);
  });
});

describe("a TracewireSpanProcessor on the app's own provider registers them too", () => {
  it("OPENAI_API_KEY of its environment is masked, as under init()", async () => {
    const openai = unique("sk-openai");
    const processor = new TracewireSpanProcessor({
      baseUrl: "http://127.0.0.1:9",
      project: "acme/demo",
      env: { OPENAI_API_KEY: openai },
      exitHooks: false,
    });
    try {
      expect(scrubText(`Incorrect API key provided: ${openai}`)).toBe(`Incorrect API key provided: ${REDACTED}`);
    } finally {
      await processor.shutdown();
    }
  });
});

describe("tracewire's own API key in its log lines", () => {
  it("a long key is masked wherever a warning quotes it", async () => {
    const apiKey = unique("tw-key");
    session = await startSession({ apiKey });
    session.tracing.processor!.diagnostics.warn("test", `the service said: invalid key ${apiKey}`);
    expect(session.logs.map((l) => l.message)).toContain(`[tracewire] the service said: invalid key ${REDACTED}`);
  });

  it("a key of one letter masks nothing (it would turn every k of every line into REDACTED)", async () => {
    session = await startSession({ apiKey: "k" });
    session.tracing.processor!.diagnostics.warn("test", "check the key (apiKey / TRACEWIRE_API_KEY)");
    expect(session.logs.map((l) => l.message)).toContain("[tracewire] check the key (apiKey / TRACEWIRE_API_KEY)");
  });
});

describe("the list", () => {
  it(`keeps the newest ${MAX_KNOWN_SECRETS}: the oldest goes first, the newest is masked`, () => {
    const first = unique("first");
    rememberSecret(first);
    const later = Array.from({ length: MAX_KNOWN_SECRETS }, (_, i) => unique(`later-${i}`));
    for (const value of later) rememberSecret(value);
    expect(knownSecrets()).toHaveLength(MAX_KNOWN_SECRETS);
    expect(knownSecrets()).not.toContain(first);
    expect(scrubText(`${first} ${later.at(-1)}`)).toBe(`${first} ${REDACTED}`);
  });

  it("registering a value twice keeps one entry", () => {
    const value = unique("twice");
    rememberSecret(value);
    const before = knownSecrets();
    rememberSecret(value);
    expect(knownSecrets()).toBe(before);
  });

  it("a value that contains another is masked whole, whichever came first", () => {
    const short = unique("prefix");
    const long = `${short}-and-more-${randomUUID()}`;
    rememberSecret(short);
    rememberSecret(long);
    expect(scrubText(`a ${long} b ${short} c`)).toBe(`a ${REDACTED} b ${REDACTED} c`);
  });

  it("a value is matched literally, regex characters and all", () => {
    const value = `a.b*c+d?(e)[f]{g}|h\\${randomUUID()}`;
    rememberSecret(value);
    expect(scrubText(`x ${value} y`)).toBe(`x ${REDACTED} y`);
    expect(scrubText(`x ${value.replace(".", "Z")} y`)).toBe(`x ${value.replace(".", "Z")} y`);
  });

  it("none known is one list, the same every time (the OTLP encoder re-checks its cached values when it changes)", () => {
    const state = globalState();
    const saved = state.knownSecrets;
    state.knownSecrets = undefined;
    try {
      expect(knownSecrets()).toHaveLength(0);
      expect(knownSecrets()).toBe(knownSecrets());
    } finally {
      state.knownSecrets = saved;
    }
  });

  it("lives in the process-wide state: another copy of secrets.ts masks what this copy registered", async () => {
    const value = unique("shared");
    rememberSecret(value);
    expect(globalState().knownSecrets).toContain(value);
    // A second instance of the module, as a second bundled copy of tracewire has.
    // @ts-expect-error -- the query makes Vite load the module again; TypeScript knows no such file
    const copy = (await import("../../src/secrets.js?copy")) as typeof import("../../src/secrets.js");
    expect(copy.scrubText).not.toBe(scrubText);
    expect(copy.scrubText(`quoted: ${value}`)).toBe(`quoted: ${REDACTED}`);
  });
});

describe("a known secret as a whole value in what is recorded", () => {
  it("is masked in payloads, whatever key holds it, on the calls route", async () => {
    const key = unique("sk-proj");
    session = await startSession({ env: { OPENAI_API_KEY: key } });
    // `openaiKey` is no credential name the redactor knows, but its value is the key the process holds.
    const configure = op(function configure(settings: { openaiKey: string; model: string; keys: string[] }) {
      return { connected: true, usedKey: settings.openaiKey, note: `not a key: ${key.slice(0, 6)}` };
    });
    // Whitespace around it as `trim()` sees it (a file's newline, a no-break space, a line separator): still the key.
    const padded = [`${key}\n`, ` \u00a0${key}\u2028`, `\t\r\n${key} `, `${key.slice(0, -1)} `, "kept "];
    configure({ openaiKey: key, model: "gpt-4o-mini", keys: padded });
    const call = await session.only("configure");
    expect(call.start.inputs).toEqual({
      arg0: {
        openaiKey: REDACTED,
        model: "gpt-4o-mini",
        keys: [REDACTED, REDACTED, REDACTED, `${key.slice(0, -1)} `, "kept "],
      },
    });
    expect(call.end?.output).toEqual({ connected: true, usedKey: REDACTED, note: `not a key: ${key.slice(0, 6)}` });
    expect(JSON.stringify(call)).not.toContain(key);
  });

  it("is masked in span attributes other code sets, on the calls route", async () => {
    const key = unique("sk-ant");
    session = await startSession({ env: { ANTHROPIC_API_KEY: key }, export: "calls" });
    trace
      .getTracer("app")
      .startSpan("configure", { attributes: { "app.client.key": key, "app.model": "claude" } })
      .end();
    const call = await session.only("configure");
    expect(call.start.attributes).toEqual({ "app.client.key": REDACTED, "app.model": "claude" });
  });

  it.each(["http/protobuf", "http/json"] as const)(
    "is masked in span attributes on the OTLP route (%s), also where a value was cached before it became known",
    async (otlpProtocol) => {
      const late = unique("late-key");
      const key = unique("sk-ant");
      session = await startSession({ env: { ANTHROPIC_API_KEY: key }, export: "otlp", otlpProtocol });
      const tracer = trace.getTracer("app");
      const emit = (name: string, value: string) =>
        tracer.startSpan(name, { attributes: { "app.client.key": value, "app.model": "claude" } }).end();
      // The second span of a value is written from the encoder's cached pair.
      emit("env-1", key);
      emit("env-2", key);
      emit("before-1", late);
      emit("before-2", late);
      await session.tracing.flush();
      rememberSecret(late);
      emit("after", late);
      await session.tracing.flush();
      const spans = session.double.otlpRequests.flatMap((r) =>
        allSpans(decodeTraceRequest(r.body, r.headers["content-type"] ?? "")),
      );
      const byName = new Map(spans.map((span) => [span.name, span.attributes]));
      expect(byName.get("before-2")?.["app.client.key"]).toBe(late);
      for (const name of ["env-1", "env-2", "after"])
        expect(byName.get(name), name).toMatchObject({ "app.client.key": REDACTED, "app.model": "claude" });
    },
  );
});
