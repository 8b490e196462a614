/**
 * What the `@google/genai` instrumentation tests share: the real SDK (3.x, which requires Node ≥ 22: loaded only
 * there, the tests skip below it), clients pointed at the loopback {@link GeminiServer}, the requests the tests send
 * and a `CallableTool` for automatic function calling.
 */
import type * as GenAI from "@google/genai";
import { afterAll, beforeAll } from "vitest";
import { FUNCTION_CALLS, GeminiServer } from "../support/google-server.js";

/** `@google/genai` 3 requires Node ≥ 22 (`engines`); its tests run on Node 24 in CI. */
export const HAS_GOOGLE = Number(process.versions.node.split(".")[0]) >= 22;

/** The SDK module, loaded only where it runs. */
export const genai: typeof GenAI = HAS_GOOGLE ? await import("@google/genai") : (undefined as unknown as typeof GenAI);

export type Client = GenAI.GoogleGenAI;

/** A Gemini Developer API client on the stand-in (`vertex`: a Vertex AI express-mode client). */
export function makeGoogle(server: GeminiServer, options: { vertex?: boolean } = {}): Client {
  return new genai.GoogleGenAI({
    apiKey: "gemini-test-key",
    ...(options.vertex ? { vertexai: true } : {}),
    httpOptions: { baseUrl: server.baseUrl },
  });
}

/** The file's loopback {@link GeminiServer}, started in `beforeAll` and closed in `afterAll`. */
export function setupGeminiServer(): { readonly server: GeminiServer } {
  let server: GeminiServer | undefined;
  beforeAll(async () => {
    server = await GeminiServer.start();
  });
  afterAll(async () => {
    await server?.close();
    server = undefined;
  });
  return {
    get server() {
      if (!server) throw new Error("setupGeminiServer: the server starts in beforeAll");
      return server;
    },
  };
}

export const MODEL = "gemini-2.5-flash";
export const SYSTEM = "Be brief.";
export const QUESTION = "What is the weather and the time in Paris?";
export const FUNCTION_DECLARATIONS = [
  {
    name: "get_weather",
    description: "Weather of a city",
    parametersJsonSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
  {
    name: "get_time",
    description: "Local time",
    parametersJsonSchema: { type: "object", properties: { tz: { type: "string" } }, required: ["tz"] },
  },
];
/** A text request with sampling settings. */
export const TEXT_REQUEST = {
  model: MODEL,
  contents: "Say hello.",
  config: { temperature: 0.2, topP: 0.9, topK: 5, maxOutputTokens: 256, stopSequences: ["\n\nUser:"] },
};
/** A request with a system instruction and function declarations (the model answers with two function calls). */
export const TOOL_REQUEST = {
  model: MODEL,
  contents: [{ role: "user", parts: [{ text: QUESTION }] }],
  config: { systemInstruction: SYSTEM, tools: [{ functionDeclarations: FUNCTION_DECLARATIONS }] },
};

/** What the {@link callableTool} answers for each function. */
export const TOOL_RESULTS: Record<string, Record<string, unknown>> = {
  get_weather: { forecast: "sunny", celsius: 21 },
  get_time: { time: "14:05" },
};

/** A secret a CallableTool holds (as an MCP client holds its stdio server's environment). */
export const TOOL_SECRET = "pat-secret-0123456789";

/**
 * A `CallableTool` (what `mcpToTool()` returns): the SDK declares its functions and runs them itself (automatic
 * function calling). Like an MCP tool it holds a server's settings, a secret among them. `calls` records what it
 * was asked; `during` runs inside each call (to see the active context).
 */
export class WeatherTools implements GenAI.CallableTool {
  readonly calls: string[] = [];
  readonly server = { command: "weather-mcp", env: { WEATHER_PAT: TOOL_SECRET } };
  constructor(private readonly during: () => void = () => {}) {}
  async tool(): Promise<GenAI.Tool> {
    return { functionDeclarations: FUNCTION_DECLARATIONS };
  }
  async callTool(functionCalls: GenAI.FunctionCall[]): Promise<GenAI.Part[]> {
    this.during();
    return functionCalls.map((call) => {
      this.calls.push(call.name ?? "?");
      return { functionResponse: { id: call.id, name: call.name, response: TOOL_RESULTS[call.name ?? ""] ?? {} } };
    });
  }
}

export const callableTool = (during?: () => void) => new WeatherTools(during);

export { FUNCTION_CALLS };

/** A JSON round trip: what a value looks like on the wire (drops undefined and non-enumerable properties). */
export const plain = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** A response as tracewire records it: its own fields without the SDK's `sdkHttpResponse` headers. */
export function recorded(response: unknown): Record<string, unknown> {
  const { sdkHttpResponse: _headers, ...rest } = plain(response) as Record<string, unknown>;
  return rest;
}

export { collect } from "../support/collect.js";

export const errorOf = (promise: PromiseLike<unknown>) =>
  Promise.resolve(promise).then(
    () => undefined,
    (e: unknown) => e,
  );
