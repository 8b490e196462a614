/**
 * What the instrumentation tests share: both installed majors of the real `openai` package (v6, and v5 through
 * the `openai5` alias), with the classes the fidelity checks compare against, and small helpers to build clients
 * pointed at the loopback {@link OpenAIServer}.
 */
import OpenAI6 from "openai";
import { APIPromise as APIPromise6 } from "openai/core/api-promise";
import { Stream as Stream6 } from "openai/core/streaming";
import OpenAI5 from "openai5";
import { APIPromise as APIPromise5 } from "openai5/core/api-promise";
import { Stream as Stream5 } from "openai5/core/streaming";
import type { OpenAIServer } from "../support/openai-server.js";

/** Typed as v6; v5's surface used here is the same (checked at runtime by running every test against both). */
export type Client = OpenAI6;

export interface SdkVersion {
  name: string;
  OpenAI: typeof OpenAI6;
  APIPromise: abstract new (...args: never[]) => unknown;
  Stream: abstract new (...args: never[]) => unknown;
}

export const VERSIONS: SdkVersion[] = [
  { name: "openai v6", OpenAI: OpenAI6, APIPromise: APIPromise6, Stream: Stream6 },
  {
    name: "openai v5",
    OpenAI: OpenAI5 as unknown as typeof OpenAI6,
    APIPromise: APIPromise5,
    Stream: Stream5,
  },
];

/** A client of `version` on the stand-in: no retries, so each test request is exactly one HTTP request. */
export function makeClient(
  version: SdkVersion,
  server: OpenAIServer,
  options: { timeout?: number; baseURL?: string } = {},
): Client {
  return new version.OpenAI({ apiKey: "sk-test", baseURL: server.baseURL, maxRetries: 0, ...options });
}

/** Reads a whole stream with `for await`. */
export async function collect<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of stream) out.push(item);
  return out;
}

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
