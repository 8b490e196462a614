/**
 * Runtimes whose environment refuses to be read: Deno without `--allow-env` (every read of `process.env` throws),
 * a locked-down edge whose `process.env` getter throws, a `process.env` that is a Proxy over a secrets manager that
 * throws, and a runtime with no `process` at all. tracewire, bundled from the sources as the edge build is, with the
 * real `openai`, `@anthropic-ai/sdk` and `@google/genai` packages, runs in Vercel's edge runtime: every wrapper, the
 * service clients and `init()` with their defaults must not throw (an unreadable environment is an empty one).
 * The SDK clients themselves are built before the environment starts refusing: their own reading of it is theirs.
 */
import { EdgeRuntime } from "edge-runtime";
import { beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs build script without types.
import { runtimeVariants } from "../../scripts/runtime-variants.mjs";
import { bundle, ROOT } from "./harness.js";

const ENTRY = `
import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import { init, op } from "./src/index.ts";
import { wrapOpenAI } from "./src/instrument/index.ts";
import { wrapAnthropic } from "./src/instrument/anthropic-entry.ts";
import { wrapGoogleGenAI } from "./src/instrument/google-entry.ts";
import { InferenceClient, TracingClient } from "./src/api/index.ts";

const clients = {
  openai: new OpenAI({ apiKey: "k", baseURL: "http://127.0.0.1:9/v1", organization: null, project: null, webhookSecret: null }),
  anthropic: new Anthropic({ apiKey: "k", baseURL: "http://127.0.0.1:9" }),
  google: new GoogleGenAI({ apiKey: "k" }),
};
globalThis.startRefusing(); // from here on, the environment refuses

const attempt = async (name, fn) => {
  try {
    await fn();
    return [name, "ok"];
  } catch (err) {
    return [name, String(err && err.message)];
  }
};
globalThis.result = (async () => Object.fromEntries([
  await attempt("wrapOpenAI", () => wrapOpenAI(clients.openai)),
  await attempt("wrapAnthropic", () => wrapAnthropic(clients.anthropic)),
  await attempt("wrapGoogleGenAI", () => wrapGoogleGenAI(clients.google)),
  await attempt("TracingClient", () => new TracingClient({ baseUrl: "http://127.0.0.1:9", project: "acme/demo" })),
  await attempt("InferenceClient", () => new InferenceClient({ baseUrl: "http://127.0.0.1:9/v1" })),
  await attempt("init", async () => {
    const tracing = init();
    if (tracing.enabled) throw new Error("tracing on without settings");
    const traced = op(async function traced(x) { return x + 1; });
    if ((await traced(1)) !== 2) throw new Error("op changed the result");
    await tracing.flush();
    await tracing.shutdown();
  }),
]))();
`;

/**
 * The environments that refuse once `flag.refuse` is set, as the sandbox's `process` (undefined: no `process` at
 * all). Before that they read as empty, so the SDK clients can be built.
 */
const refusing = (flag: { refuse: boolean }): Record<string, unknown> => ({
  "process.env getter throws": {
    get env() {
      if (flag.refuse) throw new Error("env access refused");
      return {};
    },
  },
  "every read of process.env throws (Deno without --allow-env)": {
    env: new Proxy(
      {},
      {
        get(_, key) {
          if (flag.refuse) throw new Error(`Requires env access to "${String(key)}"`);
          return undefined;
        },
        ownKeys() {
          if (flag.refuse) throw new Error("Requires env access");
          return [];
        },
      },
    ),
  },
  "no process at all": undefined,
});

let code: string;
beforeAll(async () => {
  const result = await bundle({ contents: ENTRY, resolveDir: ROOT }, "edge", {
    plugins: [runtimeVariants(["edge"])],
  });
  code = result.code;
}, 60_000);

describe("every wrapper, the service clients and init() with their defaults, where the environment refuses", () => {
  it.each(Object.keys(refusing({ refuse: false })))("%s: nothing throws", async (name) => {
    const flag = { refuse: false };
    const processLike = refusing(flag)[name];
    const runtime = new EdgeRuntime({
      extend(context) {
        const startRefusing = () => {
          flag.refuse = true;
        };
        Object.assign(context, { startRefusing, console: { ...console, warn: () => {} } });
        if (processLike === undefined) delete (context as { process?: unknown }).process;
        else Object.assign(context, { process: processLike });
        return context;
      },
    });
    runtime.evaluate(code.replace(/^export\s*\{[^}]*\};?\s*$/m, ""));
    const result = await runtime.evaluate("globalThis.result");
    expect(result).toEqual({
      wrapOpenAI: "ok",
      wrapAnthropic: "ok",
      wrapGoogleGenAI: "ok",
      TracingClient: "ok",
      InferenceClient: "ok",
      init: "ok",
    });
  });
});
