/**
 * What the instrumentation tests share: the installed majors of the real `openai` package (v6, v5 through the
 * `openai5` alias, and v7 through `openai7` on Node ≥ 22, which it requires), with the classes the fidelity checks
 * compare against, and small helpers to build clients pointed at the loopback {@link OpenAIServer}.
 */
import OpenAI6 from "openai";
import { APIPromise as APIPromise6 } from "openai/core/api-promise";
import { Stream as Stream6 } from "openai/core/streaming";
import OpenAI5 from "openai5";
import { APIPromise as APIPromise5 } from "openai5/core/api-promise";
import { Stream as Stream5 } from "openai5/core/streaming";
import { afterAll, beforeAll } from "vitest";
import { OpenAIServer, USAGE } from "../support/openai-server.js";

/** Typed as v6; v5's surface used here is the same (checked at runtime by running every test against both). */
export type Client = OpenAI6;

export interface SdkVersion {
  name: string;
  OpenAI: typeof OpenAI6;
  APIPromise: abstract new (...args: never[]) => unknown;
  Stream: abstract new (...args: never[]) => unknown;
}

/** Whether this Node.js runs openai 7 (its `engines` asks for Node ≥ 22; CI runs the suite on Node 20 and 24). */
export const HAS_OPENAI7 = Number(process.versions.node.split(".")[0]) >= 22;

async function openai7(): Promise<SdkVersion[]> {
  if (!HAS_OPENAI7) return [];
  const [sdk, promise, streaming] = await Promise.all([
    import("openai7"),
    import("openai7/core/api-promise"),
    import("openai7/core/streaming"),
  ]);
  return [
    {
      name: "openai v7",
      OpenAI: sdk.default as unknown as typeof OpenAI6,
      APIPromise: promise.APIPromise,
      Stream: streaming.Stream,
    },
  ];
}

export const VERSIONS: SdkVersion[] = [
  { name: "openai v6", OpenAI: OpenAI6, APIPromise: APIPromise6, Stream: Stream6 },
  {
    name: "openai v5",
    OpenAI: OpenAI5 as unknown as typeof OpenAI6,
    APIPromise: APIPromise5,
    Stream: Stream5,
  },
  ...(await openai7()),
];

/** A client of `version` on the stand-in: no retries, so each test request is exactly one HTTP request. */
export function makeClient(
  version: SdkVersion,
  server: OpenAIServer,
  options: { timeout?: number; baseURL?: string } = {},
): Client {
  return new version.OpenAI({ apiKey: "sk-test", baseURL: server.baseURL, maxRetries: 0, ...options });
}

/** The end summary of a recorded call, typed for field access. */
export function summaryOf(call: { end?: { summary?: unknown } | undefined }): {
  usage?: unknown;
  gen_ai?: Record<string, unknown>;
  tracewire?: Record<string, unknown>;
} {
  return (call.end?.summary ?? {}) as ReturnType<typeof summaryOf>;
}

/** The usage summary a traced call records for one request the stand-in answered as `responseModel`. */
export function usageOfOneRequest(responseModel: string) {
  return {
    [responseModel]: {
      prompt_tokens: USAGE.prompt_tokens,
      completion_tokens: USAGE.completion_tokens,
      total_tokens: USAGE.total_tokens,
      requests: 1,
      cache_read_input_tokens: USAGE.prompt_tokens_details.cached_tokens,
      reasoning_tokens: USAGE.completion_tokens_details.reasoning_tokens,
    },
  };
}

/** The file's loopback {@link OpenAIServer}: started in `beforeAll`, closed in `afterAll`; read `server` inside tests. */
export function setupOpenAIServer(): { readonly server: OpenAIServer } {
  let server: OpenAIServer | undefined;
  beforeAll(async () => {
    server = await OpenAIServer.start();
  });
  afterAll(async () => {
    await server?.close();
    server = undefined;
  });
  return {
    get server() {
      if (!server) throw new Error("setupOpenAIServer: the server starts in beforeAll");
      return server;
    },
  };
}

/** Reads a whole stream with `for await`. */
export { collect } from "../support/collect.js";

/** A JSON round trip: what a value looks like on the wire (drops undefined and non-enumerable properties). */
export const plain = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

export const MESSAGES = [
  { role: "system" as const, content: "Be brief." },
  { role: "user" as const, content: "Say hello." },
];

export const TOOLS = [
  {
    type: "function" as const,
    function: {
      name: "get_weather",
      description: "Weather of a city",
      parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    },
  },
  {
    type: "function" as const,
    function: {
      name: "get_time",
      description: "Local time",
      parameters: { type: "object", properties: { tz: { type: "string" } }, required: ["tz"] },
    },
  },
];
