import OpenAI from "openai";
import { wrapOpenAI } from "tracewire/openai";

let client: OpenAI | undefined;

/** The app's one traced OpenAI client (OPENAI_BASE_URL and OPENAI_API_KEY come from the environment). */
export function openai(): OpenAI {
  client ??= wrapOpenAI(new OpenAI({ apiKey: process.env.OPENAI_API_KEY ?? "unset" }));
  return client;
}

export const MODEL = process.env.OPENAI_MODEL ?? "gpt-4o-mini";
