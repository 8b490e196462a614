/**
 * The exit check of span attributes (DESIGN §3: one processor is the one exit). Other instrumentations record what
 * they see — an `http.request.header.authorization`, a `url.full` with a password, an exception message quoting a
 * `Bearer` token — and tracewire's own payloads were redacted when serialized, but span attributes set by anyone are
 * checked here, on both routes, before they are encoded.
 *
 * The span is never changed (other processors on the same provider see it as it is): when something must be masked,
 * the encoders get a view of it with redacted attributes, events and status. Most spans have nothing to mask and cost
 * one cached key lookup per attribute.
 */
import type { Attributes, SpanStatus } from "@opentelemetry/api";
import type { ReadableSpan, TimedEvent } from "@opentelemetry/sdk-trace-base";
import { type KeyRedactor, REDACTED, scrubText, scrubUrlString } from "../secrets.js";

/** `span`, or a view of it whose credential-bearing attributes, exception texts and status message are masked. */
export function redactedSpan(span: ReadableSpan, redactor: KeyRedactor): ReadableSpan {
  const attributes = redactAttributes(span.attributes, redactor);
  const events = redactEvents(span.events, redactor);
  const status = redactStatus(span.status);
  if (attributes === undefined && events === undefined && status === undefined) return span;
  // A view, not a copy: every other field (and method, e.g. spanContext()) is read through to the span itself.
  const view = Object.create(span) as { -readonly [K in keyof ReadableSpan]: ReadableSpan[K] };
  if (attributes) Object.defineProperty(view, "attributes", { value: attributes });
  if (events) Object.defineProperty(view, "events", { value: events });
  if (status) Object.defineProperty(view, "status", { value: status });
  return view;
}

/** A masked copy of `attributes`, or undefined when nothing in them needs masking. */
export function redactAttributes(attributes: Attributes, redactor: KeyRedactor): Attributes | undefined {
  let copy: Attributes | undefined;
  for (const key in attributes) {
    const value = attributes[key];
    let masked: typeof value;
    if (redactor.matches(key)) masked = REDACTED;
    else if (typeof value === "string") {
      const scrubbed = scrubUrlString(value);
      if (scrubbed === value) continue;
      masked = scrubbed;
    } else continue;
    copy ??= { ...attributes };
    copy[key] = masked;
  }
  return copy;
}

const TEXT_ATTRIBUTES = ["exception.message", "exception.stacktrace"];

function redactEvents(events: TimedEvent[], redactor: KeyRedactor): TimedEvent[] | undefined {
  let copy: TimedEvent[] | undefined;
  for (let i = 0; i < events.length; i++) {
    const event = events[i]!;
    if (event.attributes === undefined) continue;
    let attributes = redactAttributes(event.attributes, redactor);
    for (const key of TEXT_ATTRIBUTES) {
      const text = (attributes ?? event.attributes)[key];
      if (typeof text !== "string") continue;
      const scrubbed = scrubText(text);
      if (scrubbed === text) continue;
      attributes ??= { ...event.attributes };
      attributes[key] = scrubbed;
    }
    if (attributes === undefined) continue;
    copy ??= events.slice();
    copy[i] = { ...event, attributes };
  }
  return copy;
}

function redactStatus(status: SpanStatus): SpanStatus | undefined {
  if (!status.message) return undefined;
  const message = scrubText(status.message);
  return message === status.message ? undefined : { ...status, message };
}
