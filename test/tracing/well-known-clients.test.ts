/**
 * LLM SDK clients and undici dispatchers handed to an op are recorded as a short summary, not walked, however they
 * are named: a subclass (`class MyClient extends OpenAI`) has the SDK's class in its prototype chain, and a
 * minified bundle (every class renamed, built here with esbuild from the real packages) still has the SDK's shape.
 * Walked, a client leaks what no key name says is secret: `_options.defaultHeaders` (`Helicone-Auth: Bearer …`),
 * Anthropic's `webhookKey`. Objects that only share part of that shape are walked as before.
 */
import { EventEmitter } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import Anthropic from "@anthropic-ai/sdk";
import { build } from "esbuild";
import OpenAI from "openai";
import { Agent, ProxyAgent } from "undici";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { op } from "../../src/index.js";
import { serialize } from "../../src/tracing/serialize.js";
import { genai, HAS_GOOGLE } from "../instrument/google-support.js";
import { type Session, startSession } from "../support/tracing-session.js";

const HELICONE = "sk-helicone-0123456789abcdef";
const WEBHOOK = "whsec-anthropic-0123456789abcdef";
const PROXY_TOKEN = "Basic cHJveHktdXNlcjpwcm94eS1wYXNz";
const BASE = "http://127.0.0.1:9/v1";

type Sdks = { OpenAI: typeof OpenAI; Anthropic: typeof Anthropic; ProxyAgent: typeof ProxyAgent; Agent: typeof Agent };

const clientsOf = (sdk: Sdks) => ({
  openai: new sdk.OpenAI({ apiKey: "sk-x", baseURL: BASE, defaultHeaders: { "Helicone-Auth": `Bearer ${HELICONE}` } }),
  anthropic: new sdk.Anthropic({ apiKey: "sk-x", baseURL: BASE, webhookKey: WEBHOOK }),
  proxy: new sdk.ProxyAgent({ uri: "http://127.0.0.1:9", token: PROXY_TOKEN }),
  agent: new sdk.Agent(),
});

describe("subclasses: the SDK's class is in the prototype chain", () => {
  class MyOpenAI extends OpenAI {}
  class MyAnthropic extends Anthropic {}
  class MyProxyAgent extends ProxyAgent {}
  class MyAgent extends Agent {}
  const sdk = { OpenAI: MyOpenAI, Anthropic: MyAnthropic, ProxyAgent: MyProxyAgent, Agent: MyAgent };

  it("are summarised by their own class name, with the base URL", () => {
    const clients = clientsOf(sdk);
    expect(serialize(clients)).toEqual({
      openai: { _type: "MyOpenAI", baseURL: BASE },
      anthropic: { _type: "MyAnthropic", baseURL: BASE },
      proxy: { _type: "MyProxyAgent" },
      agent: { _type: "MyAgent" },
    });
  });

  describe("passed to an op", () => {
    let session: Session | undefined;
    afterEach(async () => {
      await session?.stop();
      session = undefined;
    });

    it("nothing of their options reaches the tracing service", async () => {
      session = await startSession();
      const useClients = op(function useClients(_openai: unknown, _anthropic: unknown) {
        return 1;
      });
      const { openai, anthropic } = clientsOf(sdk);
      useClients(openai, anthropic);
      const call = await session.only("useClients");
      expect(Object.values(call.start.inputs as object)).toEqual([
        { _type: "MyOpenAI", baseURL: BASE },
        { _type: "MyAnthropic", baseURL: BASE },
      ]);
      expect(session.double.wireText()).not.toContain(HELICONE);
      expect(session.double.wireText()).not.toContain(WEBHOOK);
    });
  });
});

describe("a minified bundle: every class renamed", () => {
  let dir: string;
  let sdk: Sdks;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "tracewire-minified-"));
    writeFileSync(
      join(dir, "entry.mjs"),
      'export { default as OpenAI } from "openai";\nexport { default as Anthropic } from "@anthropic-ai/sdk";\nexport { ProxyAgent, Agent } from "undici";\n',
    );
    await build({
      entryPoints: [join(dir, "entry.mjs")],
      outfile: join(dir, "bundle.cjs"),
      bundle: true,
      minify: true,
      platform: "node",
      format: "cjs",
      nodePaths: [fileURLToPath(new URL("../../node_modules", import.meta.url))],
      logLevel: "error",
    });
    sdk = createRequire(import.meta.url)(join(dir, "bundle.cjs")) as Sdks;
  }, 60_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("renames the classes (the test would prove nothing otherwise)", () => {
    const clients = clientsOf(sdk);
    for (const client of Object.values(clients)) {
      for (let p = Object.getPrototypeOf(client); p && p !== Object.prototype; p = Object.getPrototypeOf(p)) {
        const name = (p as { constructor: { name: string } }).constructor.name;
        expect(["OpenAI", "Anthropic", "BaseAnthropic", "ProxyAgent", "Agent", "Dispatcher"]).not.toContain(name);
      }
    }
  });

  it("summarises the clients by their shape, the dispatchers as emitters with dispatch()", () => {
    const clients = clientsOf(sdk);
    const name = (o: object) => (Object.getPrototypeOf(o) as { constructor: { name: string } }).constructor.name;
    expect(serialize(clients)).toEqual({
      openai: { _type: name(clients.openai), baseURL: BASE },
      anthropic: { _type: name(clients.anthropic), baseURL: BASE },
      proxy: { _type: name(clients.proxy) },
      agent: { _type: name(clients.agent) },
    });
  });
});

describe.skipIf(!HAS_GOOGLE)("@google/genai", () => {
  it("a subclass of GoogleGenAI is summarised; its API client is not walked", () => {
    class MyGoogle extends genai.GoogleGenAI {}
    const client = new MyGoogle({
      apiKey: "gemini-key-0123456789",
      httpOptions: { headers: { "X-Proxy-Auth": HELICONE } },
    });
    expect(serialize(client)).toEqual({ _type: "MyGoogle" });
  });
});

describe("objects that only share part of the shape are walked as before", () => {
  it("options and a base URL without buildRequest(); dispatch() without close() and destroy(), on an emitter too", () => {
    class Settings {
      _options = { retries: 2 };
      baseURL = "https://example.test";
    }
    class Router {
      dispatch() {
        return "routed";
      }
      routes = ["/a"];
    }
    class Store extends EventEmitter {
      state = { count: 1 };
      dispatch() {
        return this.state;
      }
    }
    expect(serialize({ settings: new Settings(), router: new Router(), store: new Store() })).toMatchObject({
      settings: { _type: "Settings", _options: { retries: 2 }, baseURL: "https://example.test" },
      router: { _type: "Router", routes: ["/a"] },
      store: { _type: "Store", state: { count: 1 } },
    });
  });
});
