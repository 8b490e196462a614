/**
 * LangChain records a model run's error as the run's exception. When the model's server quotes the refused key, the
 * key must not travel with it: `init()` registers the values of credential-named variables of its environment
 * (here `OPENAI_API_KEY`, which the app's client was built from and which tracewire never wrapped) as known secrets.
 */
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { REDACTED } from "../../src/index.js";
import { TracewireCallbackHandler } from "../../src/instrument/langchain.js";
import { freshKey, refusal, setupKeyEcho } from "../support/key-echo-server.js";
import { one, recorded, StandInChatModel } from "./support.js";

const echo = setupKeyEcho();

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
});
