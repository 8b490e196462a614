/**
 * LangChain records a model run's error as the run's exception. When the model's server quotes the refused key, the
 * key must not travel with it: `init()` registers the values of credential-named variables of its environment
 * (here `OPENAI_API_KEY`, which the app's client was built from and which tracewire never wrapped) as known secrets.
 * A key given in code, in no environment variable, is masked too: the credentials a model declares in `lc_secrets`
 * (ChatOpenAI's `apiKey`) are registered when it sends its request (this used to send the key to the service).
 */
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { REDACTED } from "../../src/index.js";
import { TracewireCallbackHandler } from "../../src/instrument/langchain.js";
import { freshKey, refusal, setupKeyEcho } from "../support/key-echo-server.js";
import { one, recorded, StandInChatModel } from "./support.js";

const echo = setupKeyEcho();
const HAS_NODE22 = Number(process.versions.node.split(".")[0]) >= 22;

/** A custom chat model that declares its credential the LangChain way (`lc_secrets`), as LangChain's own models do. */
class KeyedChatModel extends StandInChatModel {
  readonly apiKey: string;
  constructor(fields: ConstructorParameters<typeof StandInChatModel>[0] & { apiKey: string }) {
    super(fields);
    this.apiKey = fields.apiKey;
  }
  override get lc_secrets(): Record<string, string> {
    return { apiKey: "KEYED_API_KEY" };
  }
}

/** Runs `invoke` (which must fail with the quoted key) and checks the key reached neither the service nor a log line. */
async function expectMasked(key: string, invoke: () => Promise<unknown>, opName: string) {
  const session = await echo.start({ env: {} });
  await expect(invoke()).rejects.toThrow(key);
  const chat = one(await recorded(session), opName);
  expect(String(chat.end.exception)).toContain(refusal(REDACTED));
  expect(session.double.wireText()).not.toContain(key);
  expect(session.logs.map((l) => l.message).join("\n")).not.toContain(key);
}

describe("LangChain: a model error that quotes the API key", () => {
  it("is recorded with the key masked, the key known from init()'s environment", async () => {
    const key = freshKey();
    const session = await echo.start({ env: { OPENAI_API_KEY: key } });
    const model = new StandInChatModel({
      client: new OpenAI({ apiKey: key, baseURL: `${echo.url}/v1`, maxRetries: 0 }),
      model: "gpt-4o-mini",
    });
    await expect(model.invoke("hi", { callbacks: [new TracewireCallbackHandler()] })).rejects.toThrow(key);
    const chat = one(await recorded(session), "StandInChatModel");
    expect(String(chat.end.exception)).toContain(refusal(REDACTED));
    expect(session.double.wireText()).not.toContain(key);
    expect(session.logs.map((l) => l.message).join("\n")).not.toContain(key);
  });

  it("a key given in code, declared in the model's lc_secrets, is masked too", async () => {
    const key = freshKey();
    const model = new KeyedChatModel({
      apiKey: key,
      client: new OpenAI({ apiKey: key, baseURL: `${echo.url}/v1`, maxRetries: 0 }),
      model: "gpt-4o-mini",
    });
    await expectMasked(
      key,
      () => model.invoke("hi", { callbacks: [new TracewireCallbackHandler()] }),
      "KeyedChatModel",
    );
  });

  it.skipIf(!HAS_NODE22)("@langchain/openai's ChatOpenAI with apiKey in code: masked", async () => {
    const { ChatOpenAI } = await import("@langchain/openai");
    const key = freshKey();
    const chat = new ChatOpenAI({
      model: "gpt-4o-mini",
      apiKey: key,
      configuration: { baseURL: `${echo.url}/v1` },
      maxRetries: 0,
    });
    await expectMasked(key, () => chat.invoke("hi", { callbacks: [new TracewireCallbackHandler()] }), "ChatOpenAI");
  });
});
