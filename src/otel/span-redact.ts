/**
 * The exit check of span attributes (DESIGN §3: one processor is the one exit). Other instrumentations record what
 * they see — an `http.request.header.authorization`, a `url.full` with a password, a private key, an exception
 * message quoting a `Bearer` token — and tracewire's own payloads were redacted when serialized, but span attributes
 * set by anyone are checked here, on both routes, before they are encoded.
 *
 * The span is never changed (other processors on the same provider see it as it is): when something must be masked,
 * the encoders get a view of it with redacted attributes, events and status. On the OTLP route the span's own
 * attributes are checked by the encoders as they write them ({@link redactedSpanButAttributes}; the same rules, with
 * each key's verdict and last value cached in wire/attribute-cache.ts), so a span that repeats what the one before it
 * carried pays nothing for the check; the calls route checks them here.
 */
import type { Attributes, SpanStatus } from "@opentelemetry/api";
import type { ReadableSpan, TimedEvent } from "@opentelemetry/sdk-trace-base";
import { type KeyRedactor, REDACTED, scrubText } from "../secrets.js";
import { scrubAttributeValue } from "../wire/attribute-cache.js";

/** `span`, or a view of it whose credential-bearing attributes, exception texts and status message are masked. */
export function redactedSpan(span: ReadableSpan, redactor: KeyRedactor): ReadableSpan {
  return view(span, redactAttributes(span.attributes, redactor), redactor);
}

/**
 * {@link redactedSpan} but for the span's own attributes, which the OTLP encoders check themselves as they write
 * them (wire/attribute-cache.ts keeps each key's verdict, and checks a value only when it changes): the same bytes
 * leave the process, at a fraction of the cost.
 */
export function redactedSpanButAttributes(span: ReadableSpan, redactor: KeyRedactor): ReadableSpan {
  return view(span, undefined, redactor);
}

function view(span: ReadableSpan, attributes: Attributes | undefined, redactor: KeyRedactor): ReadableSpan {
  const events = span.events.length === 0 ? undefined : redactEvents(span.events, redactor);
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
    else {
      // A string, or each string of a `string[]`.
      const scrubbed = scrubAttributeValue(value, redactor) as typeof value;
      if (scrubbed === value) continue;
      masked = scrubbed;
    }
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
