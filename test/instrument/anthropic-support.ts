/**
 * What the Anthropic instrumentation tests share: the installed majors of the real `@anthropic-ai/sdk` (1.x, and
 * 0.x through the `anthropic0` alias) with the classes the fidelity checks compare against, clients pointed at the
 * loopback {@link AnthropicServer}, and the requests the tests send.
 */
import Anthropic1 from "@anthropic-ai/sdk";
import { APIPromise as APIPromise1 } from "@anthropic-ai/sdk/core/api-promise";
import { Stream as Stream1 } from "@anthropic-ai/sdk/core/streaming";
import { MessageStream as MessageStream1 } from "@anthropic-ai/sdk/lib/MessageStream";
import Anthropic0 from "anthropic0";
import { APIPromise as APIPromise0 } from "anthropic0/core/api-promise";
import { Stream as Stream0 } from "anthropic0/core/streaming";
import { MessageStream as MessageStream0 } from "anthropic0/lib/MessageStream";
import { afterAll, beforeAll } from "vitest";
import { AnthropicServer } from "../support/anthropic-server.js";

/** Typed as 1.x; 0.x's surface used here is the same (checked at runtime by running every test against both). */
export type Client = Anthropic1;

export interface AnthropicVersion {
  name: string;
  Anthropic: typeof Anthropic1;
  APIPromise: abstract new (...args: never[]) => unknown;
  Stream: abstract new (...args: never[]) => unknown;
  MessageStream: abstract new (...args: never[]) => unknown;
}

export const ANTHROPIC_VERSIONS: AnthropicVersion[] = [
  {
    name: "@anthropic-ai/sdk 1.x",
    Anthropic: Anthropic1,
    APIPromise: APIPromise1,
    Stream: Stream1,
    MessageStream: MessageStream1,
  },
  {
    name: "@anthropic-ai/sdk 0.x",
    Anthropic: Anthropic0 as unknown as typeof Anthropic1,
    APIPromise: APIPromise0,
    Stream: Stream0,
    MessageStream: MessageStream0,
  },
];

/** A client of `version` on the stand-in: no retries, so each test request is exactly one HTTP request. */
export function makeAnthropic(version: AnthropicVersion, server: AnthropicServer, options: object = {}): Client {
  return new version.Anthropic({ apiKey: "sk-ant-test", baseURL: server.baseURL, maxRetries: 0, ...options });
}

/** The file's loopback {@link AnthropicServer}, started in `beforeAll` and closed in `afterAll`. */
export function setupAnthropicServer(): { readonly server: AnthropicServer } {
  let server: AnthropicServer | undefined;
  beforeAll(async () => {
    server = await AnthropicServer.start();
  });
  afterAll(async () => {
    await server?.close();
    server = undefined;
  });
  return {
    get server() {
      if (!server) throw new Error("setupAnthropicServer: the server starts in beforeAll");
      return server;
    },
  };
}

export const MODEL = "claude-haiku-4-5";
export const SYSTEM = "Be brief.";
export const MESSAGES = [{ role: "user" as const, content: "What is the weather and the time in Paris?" }];
export const TOOLS = [
  {
    name: "get_weather",
    description: "Weather of a city",
    input_schema: { type: "object" as const, properties: { city: { type: "string" } }, required: ["city"] },
  },
  {
    name: "get_time",
    description: "Local time",
    input_schema: { type: "object" as const, properties: { tz: { type: "string" } }, required: ["tz"] },
  },
];
/** A request with a system prompt, sampling parameters and tools. */
export const TOOL_REQUEST = {
  model: MODEL,
  max_tokens: 256,
  system: SYSTEM,
  messages: MESSAGES,
  tools: TOOLS,
  temperature: 0.2,
  top_k: 5,
  stop_sequences: ["\n\nHuman:"],
};
/** A plain text request. */
export const TEXT_REQUEST = { model: MODEL, max_tokens: 64, messages: MESSAGES };

/** A JSON round trip: what a value looks like on the wire. */
export const plain = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

export { collect } from "../support/collect.js";
