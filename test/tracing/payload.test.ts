/**
 * Payloads on the way into a call: awkward values reach the strict service as valid JSON with the serializer's
 * markers, the redact hook fails closed, and content capture can be switched off.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_REDACT_KEYS, op, REDACTION_FAILED, type RedactHook, withAttributes } from "../../src/index.js";
import { setupSession, startSession } from "../support/tracing-session.js";

const SECRET = "sk-live-0123456789-do-not-send";

describe("awkward values", () => {
  const s = setupSession();

  it("accepts circular and BigInt inputs and outputs, with markers", async () => {
    const node: Record<string, unknown> = { name: "root", size: 2n ** 70n };
    node.self = node;
    const echo = op(function circularEcho(value: unknown) {
      return value;
    });
    expect(echo(node)).toBe(node);
    const call = await s.only("circularEcho");
    expect(call.start.inputs).toEqual({ arg0: { name: "root", size: "1180591620717411303424", self: "[Circular]" } });
    expect(call.end?.output).toEqual({ name: "root", size: "1180591620717411303424", self: "[Circular]" });
    expect(s.tracing.stats().calls.rejected).toBe(0);
  });

  it("accepts a 5 MB string and a 100k-element array, truncated with visible markers", async () => {
    const huge = "x".repeat(5 * 1024 * 1024);
    const many = Array.from({ length: 100_000 }, (_, i) => i);
    const big = op(function bigPayload(text: string, items: number[]) {
      return { text, items };
    });
    const result = big(huge, many);
    expect(result.text).toBe(huge);
    expect(result.items).toBe(many);

    const call = await s.only("bigPayload");
    const inputs = call.start.inputs as { arg0: string; arg1: unknown[] };
    expect(inputs.arg0.length).toBeLessThan(200_000);
    expect(inputs.arg0).toMatch(/…\[truncated \d+ chars\]$/);
    expect(inputs.arg1).toHaveLength(1001);
    expect(inputs.arg1.slice(0, 3)).toEqual([0, 1, 2]);
    expect(inputs.arg1.at(-1)).toBe("[+99000 more items]");
    const output = call.end?.output as { text: string; items: unknown[] };
    expect(output.text).toMatch(/…\[truncated \d+ chars\]$/);
    expect(output.items.at(-1)).toBe("[+99000 more items]");
    const stats = s.tracing.stats().calls;
    expect(stats.rejected).toBe(0);
    expect(stats.dropped).toBe(0);
    expect(s.logs).toEqual([]);
  });
});

describe("a redact hook that throws", () => {
  const s = setupSession({
    redact: () => {
      throw new Error("redactor crashed");
    },
  });

  it("withholds inputs and output behind the REDACTION_FAILED marker; the op still returns its value", async () => {
    const value = { token: SECRET };
    const login = op(function loginWithSecret(password: string) {
      expect(password).toBe(SECRET);
      return value;
    });
    expect(login(SECRET)).toBe(value);
    const call = await s.only("loginWithSecret");
    expect(call.start.inputs).toEqual({ value: REDACTION_FAILED });
    expect(call.end?.output).toBe(REDACTION_FAILED);
    expect(s.double.wireText()).toContain(REDACTION_FAILED);
    expect(s.double.wireText()).not.toContain(SECRET);
    // Said once, by class only: a hook's message may quote the very data it was redacting.
    expect(s.logs.some((l) => l.message.includes("The redact hook threw an Error (message withheld)"))).toBe(true);
    expect(s.logs.some((l) => l.message.includes("redactor crashed"))).toBe(false);
  });
});

describe("a redact hook that rewrites", () => {
  const seen: { kind: string; opName: string }[] = [];
  const redact: RedactHook = (payload, context) => {
    seen.push(context);
    const scrub = (v: unknown): unknown => {
      if (typeof v === "string") return v.replaceAll(SECRET, "[secret]");
      if (Array.isArray(v)) return v.map(scrub);
      if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, scrub(x)]));
      return v;
    };
    return scrub(payload);
  };
  const s = setupSession({ redact });

  it("records what the hook returns, for inputs and output, and the raw secret never reaches the wire", async () => {
    const call = op(
      function callProvider(_headers: Record<string, string>) {
        return { echoed: `Bearer ${SECRET}`, status: 200 };
      },
      { parameterNames: ["headers"] },
    );
    // A key the default list does not know (it would mask `authorization` itself, before the hook runs).
    expect(call({ "x-trace-note": `Bearer ${SECRET}` }).echoed).toBe(`Bearer ${SECRET}`);
    const stored = await s.only("callProvider");
    expect(stored.start.inputs).toEqual({ headers: { "x-trace-note": "Bearer [secret]" } });
    expect(stored.end?.output).toEqual({ echoed: "Bearer [secret]", status: 200 });
    expect(seen).toEqual([
      { kind: "inputs", opName: "callProvider" },
      { kind: "output", opName: "callProvider" },
    ]);
    expect(s.double.wireText()).not.toContain(SECRET);
  });
});

describe("a redact hook that edits in place and returns nothing", () => {
  it("records the edited payload", async () => {
    const s = await startSession({
      redact: (payload) => {
        if (payload && typeof payload === "object" && !Array.isArray(payload)) delete payload.ssn;
      },
    });
    try {
      const login = op(function login(_form: Record<string, string>) {
        return { ok: true, ssn: SECRET };
      });
      login({ user: "ada", ssn: SECRET });
      const stored = await s.only("login");
      expect(stored.start.inputs).toEqual({ arg0: { user: "ada", ssn: SECRET } });
      expect(stored.end?.output).toEqual({ ok: true });
    } finally {
      await s.stop();
    }
  });
});

describe("an op made before init() (a module's top level)", () => {
  // Made when this file is imported, before any session starts: as an app's ops are, before its init() runs.
  const early = op(async function earlyOp() {}, {
    attributes: { ssn: "078-05-1120", apiKey: "k-0123", note: "n".repeat(40) },
  });

  it("records its attributes option under init()'s settings: redactKeys and maxStringLength apply", async () => {
    const s = await startSession({ redactKeys: [...DEFAULT_REDACT_KEYS, "ssn"], maxStringLength: 16 });
    try {
      await early();
      await withAttributes({ ssn: "078-05-1120" }, () => early());
      await s.tracing.flush();
      const calls = s.double.callsNamed("earlyOp");
      expect(calls).toHaveLength(2);
      for (const call of calls) {
        expect(call.start?.attributes).toEqual({
          ssn: "REDACTED",
          apiKey: "REDACTED",
          note: expect.stringMatching(/^n{16}…\[truncated 24 chars\]$/),
        });
      }
      expect(s.double.wireText()).not.toContain("078-05-1120");
    } finally {
      await s.stop();
    }
  });
});

describe("content capture off", () => {
  for (const [how, options] of [
    ["option captureContent: false", { captureContent: false }],
    ["env TRACEWIRE_CAPTURE_CONTENT=false", { env: { TRACEWIRE_CAPTURE_CONTENT: "false" } }],
  ] as const) {
    it(`${how}: inputs {} and no output, the call still recorded`, async () => {
      const s = await startSession(options);
      try {
        const value = { reply: SECRET };
        const chat = op(function privateChat(_prompt: string) {
          return value;
        });
        expect(chat(`tell me ${SECRET}`)).toBe(value);
        const call = await s.only("privateChat");
        expect(call.start.inputs).toEqual({});
        expect(call.end).toBeDefined();
        expect(call.end).not.toHaveProperty("output");
        expect(s.double.wireText()).not.toContain(SECRET);
      } finally {
        await s.stop();
      }
    });
  }
});

describe("a redact hook and truncation", () => {
  it("keeps the serializer's marker with the real number of chars cut (the pass after the hook does not cut it again)", async () => {
    const s = await startSession({ maxStringLength: 100, redact: () => undefined });
    try {
      const long = "y".repeat(5000);
      op(function longText(_text: string) {})(long);
      const stored = await s.only("longText");
      expect(stored.start.inputs).toEqual({ arg0: `${"y".repeat(100)}…[truncated 4900 chars]` });
    } finally {
      await s.stop();
    }
  });
});
