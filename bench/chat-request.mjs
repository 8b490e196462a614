/**
 * The chat request the OpenAI chat benches send (bench/openai-overhead.mjs, bench/peer-overhead.mjs,
 * bench/decompose.mjs, bench/cg-wrapper.mjs): a system and a user message (~330 characters), `temperature` and
 * `max_tokens`. One definition, so that their rows measure the same payload.
 */
export const CHAT_MESSAGES = [
  {
    role: "system",
    content:
      "You are the support assistant of a travel company. Answer in one short paragraph, in the customer's language, and never invent prices, dates or booking references.",
  },
  {
    role: "user",
    content:
      "Hi! I booked a train from Paris to Milan for next Friday and would like to take my bicycle with me. Is that possible, and do I need to reserve anything extra?",
  },
];

/** `chat.completions.create` parameters with {@link CHAT_MESSAGES}. */
export const CHAT_PARAMS = { model: "gpt-4o-mini", messages: CHAT_MESSAGES, temperature: 0.2, max_tokens: 256 };
