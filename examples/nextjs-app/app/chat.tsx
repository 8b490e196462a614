"use client";
import { useState } from "react";
import { sendFeedback } from "./actions";

export function Chat() {
  const [question, setQuestion] = useState("What is the weather in Lisbon?");
  const [answer, setAnswer] = useState("");
  const [callId, setCallId] = useState<string | null>(null);
  const [thanks, setThanks] = useState(false);

  async function ask() {
    setAnswer("");
    setThanks(false);
    const response = await fetch("/api/chat", { method: "POST", body: JSON.stringify({ question }) });
    setCallId(response.headers.get("x-tracewire-call-id"));
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      setAnswer((text) => text + value);
    }
  }

  return (
    <div>
      <input value={question} onChange={(e) => setQuestion(e.target.value)} style={{ width: "100%" }} />
      <button type="button" onClick={ask}>
        Ask
      </button>
      <p>{answer}</p>
      {callId && !thanks && (
        <button type="button" onClick={async () => setThanks((await sendFeedback(callId, "👍")).ok)}>
          👍
        </button>
      )}
      {thanks && <p>Thanks for the feedback.</p>}
    </div>
  );
}
