/**
 * What the runtime tests share: bundling an app the way each platform's bundler does (esbuild with wrangler's and
 * Next's edge resolve conditions), Vercel's edge runtime set up like Next's sandbox, and the check that the traced
 * app's calls (test/runtimes/app/traced-app.mjs) arrived whole at the service.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { EdgeRuntime } from "edge-runtime";
import { build, type Plugin } from "esbuild";
import { expect } from "vitest";
import type { TracingClient } from "../../src/api/index.js";
import type { CallSchema } from "../../src/api/types/calls.js";
import { collect } from "../support/collect.js";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const APP_DIR = join(ROOT, "test/runtimes/app");

/** Resolve conditions, as wrangler (Cloudflare Workers) and Next's edge compiler use them. */
export const CONDITIONS = {
  workerd: ["workerd", "worker", "browser"],
  edge: ["edge-light", "worker", "browser"],
} as const;

/**
 * Bundles `entry` into one minified-or-not ESM file the way the platform's bundler would: browser platform (so
 * `browser` fields apply), the platform's export conditions, Node built-ins and `cloudflare:*` left to the runtime,
 * function names kept (wrangler's default). Source text is JavaScript unless its `loader` says `ts` (wrangler
 * bundles a worker.ts as is). Returns the code and esbuild's warnings (which must be none).
 */
export async function bundle(
  entry: string | { contents: string; resolveDir: string; loader?: "js" | "ts" },
  platform: keyof typeof CONDITIONS,
  options: { minify?: boolean; plugins?: Plugin[]; external?: string[] } = {},
): Promise<{ code: string; warnings: string[]; bytes: number }> {
  const result = await build({
    ...(typeof entry === "string" ? { entryPoints: [entry] } : { stdin: { loader: "js" as const, ...entry } }),
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    target: "es2022",
    conditions: [...CONDITIONS[platform]],
    external: ["node:*", "cloudflare:*", ...(options.external ?? [])],
    keepNames: true,
    minify: options.minify ?? false,
    plugins: options.plugins ?? [],
    logLevel: "silent",
  });
  const code = result.outputFiles[0]!.text;
  return {
    code,
    bytes: result.outputFiles[0]!.contents.byteLength,
    warnings: result.warnings.map((w) => `${w.text} (${w.location?.file ?? "?"})`),
  };
}

/**
 * Vercel's edge runtime set up as Next's sandbox sets it up (next/dist/server/web/sandbox/context.js): `process` is an
 * object with `env` whose every function throws ("A Node.js API is used … not supported in the Edge Runtime"), and
 * `AsyncLocalStorage` is a global. `code` is evaluated as a script (its ESM export line dropped).
 */
export function edgeSandbox(code: string, env: Record<string, string>): EdgeRuntime {
  const processPolyfill: Record<string, unknown> = { env };
  for (const key of Object.keys(process)) {
    if (key === "env") continue;
    Object.defineProperty(processPolyfill, key, {
      get() {
        if (typeof (process as unknown as Record<string, unknown>)[key] !== "function") return undefined;
        return () => {
          throw new Error(`A Node.js API is used (process.${key}) which is not supported in the Edge Runtime.`);
        };
      },
      enumerable: false,
    });
  }
  const runtime = new EdgeRuntime({
    extend(context) {
      Object.assign(context, { process: processPolyfill, AsyncLocalStorage });
      return context;
    },
  });
  runtime.evaluate(code.replace(/^export\s*\{[^}]*\};?\s*$/m, ""));
  return runtime;
}

const summary = (calls: CallSchema[]) =>
  calls.map((c) => `${c.op_name} ${c.id} <- ${c.parent_id} ${c.ended_at ? "ended" : "open"}`).join("\n");

/**
 * Waits (at most `timeoutMs`) for the app's trace from `runtime` and checks it whole: the app span `app <runtime>`
 * as the root, under it two `outer` calls, each with its own `inner` call (same question) and its wrapped chat call
 * (the stand-in's usage, keyed by model), all ended, one trace id.
 */
export async function expectAppTrace(client: TracingClient, runtime: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let calls: CallSchema[] = [];
  let problem: string | undefined = "not queried";
  while (problem && Date.now() < deadline) {
    calls = await collect(client.calls.streamQuery({}));
    problem = traceProblem(calls, runtime);
    if (problem) await new Promise((done) => setTimeout(done, 100));
  }
  expect(problem, `${runtime}: ${problem}\n${summary(calls)}`).toBeUndefined();
}

/** A call's one argument (op inputs are keyed `arg0`, … when the parameter names are not known). */
const argOf = (call: CallSchema) => Object.values((call.inputs ?? {}) as Record<string, unknown>)[0];

function traceProblem(all: CallSchema[], runtime: string): string | undefined {
  const root = all.find((c) => c.op_name === `app ${runtime}`);
  if (!root) return "no app span";
  const calls = all.filter((c) => c.trace_id === root.trace_id);
  if (root.parent_id !== null || !root.ended_at) return "app span not an ended root";
  const outers = calls.filter((c) => c.op_name === "outer" && c.parent_id === root.id);
  if (outers.length !== 2) return `${outers.length} outer calls under the app span`;
  const questions = new Set<string>();
  for (const outer of outers) {
    const question = String(argOf(outer));
    questions.add(question);
    const children = calls.filter((c) => c.parent_id === outer.id);
    const inner = children.filter((c) => c.op_name === "inner");
    const chat = children.filter((c) => c.op_name.includes("chat"));
    if (inner.length !== 1 || chat.length !== 1) return `outer ${question}: ${inner.length} inner, ${chat.length} chat`;
    if (argOf(inner[0]!) !== question) return "inner under the wrong outer";
    if (inner[0]!.output !== question.toUpperCase()) return `inner ${question}: output ${String(inner[0]!.output)}`;
    const usage = (chat[0]!.summary as { usage?: Record<string, { total_tokens?: number }> }).usage;
    const models = Object.values(usage ?? {});
    if (models.length !== 1 || models[0]!.total_tokens !== 54)
      return `chat ${question}: usage ${JSON.stringify(usage)}`;
    if (![outer, ...children].every((c) => c.ended_at)) return `outer ${question}: a call is still open`;
    expect(outer.output).toMatchObject({ shout: question.toUpperCase(), answer: "Hello from the local stand-in." });
  }
  if ([...questions].sort().join() !== "first,second") return `questions ${[...questions].join()}`;
  if (calls.length !== 7) return `${calls.length} calls in the trace, expected 7`;
  return undefined;
}
