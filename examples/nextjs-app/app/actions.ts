"use server";
import { callById } from "tracewire";
import { withTracing } from "tracewire/next";

// A server action, traced as its own call; the reaction lands on the chat request's call.
// Production builds minify function names: name the call explicitly.
export const sendFeedback = withTracing(
  async function sendFeedback(callId: string, emoji: string) {
    try {
      await callById(callId).react(emoji);
      return { ok: true };
    } catch {
      // Tracing off (no TRACEWIRE_BASE_URL): nothing to react to.
      return { ok: false };
    }
  },
  { name: "action sendFeedback" },
);
