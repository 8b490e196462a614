/**
 * Usage rolled up the call tree (issue #22): on the calls route, a call's `summary.usage` is its own usage plus that
 * of every descendant that ended before it, keyed by model, every numeric field summed (`requests` too, so each
 * request counts once). The service reads a trace's tokens and cost from its root's summary, as the vendor's SDKs
 * write it (Python's `finish_call` sums its children's summaries).
 *
 * How: at a span's start the processor links it to its parent's node (found on the parent span itself, through the
 * context given to `startSpan`); at its end, its total is added to the node of its nearest ancestor still open. So
 * every call's usage is its own plus the totals of its children as they were recorded — the vendor's rule — and no
 * request is counted twice: a total moves up one node at a time and is taken out of a node when that node ends.
 * - A child that ends after its parent leaves the parent's summary as it was sent; its usage goes to the nearest
 *   ancestor still open (a stream an op handed back and its caller read to the end counts in the caller). A span
 *   that never ends counts nowhere.
 * - A span that is not a call of ours on the service (an OTLP-route span, a filtered one) passes on what its
 *   descendants used, so a foreign span between two of our calls does not cut the chain. Its own GenAI usage
 *   (`gen_ai.usage.*`) counts only when nothing below it reported usage: a foreign LLM span over a traced request
 *   reports the same request. The service computes such a span's own summary itself; it is not changed.
 * - A call whose start or end tracewire dropped (a full queue) still passes its usage on: it was used.
 *
 * Memory stays bounded: a node lives on its span (nothing global; it goes with the span, or with the last open
 * descendant that links to it), is emptied when the span ends, and keeps at most {@link MAX_MODELS} models of
 * {@link MAX_FIELDS} fields each, so a parent that never ends holds a few hundred numbers at most however many
 * children it has.
 */
import type { Context } from "@opentelemetry/api";
import { trace } from "@opentelemetry/api";
import type { ReadableSpan, Span } from "@opentelemetry/sdk-trace-base";
import type { LlmUsage } from "../api/types/common.js";
import { usageFromAttributes } from "../wire/span-to-call.js";

/** `summary.usage`: usage keyed by model. */
export type UsageByModel = Record<string, LlmUsage>;

/** Models one call's rolled-up usage keeps; a tree with more distinct model names loses the rest in its ancestors. */
export const MAX_MODELS = 64;
/** Fields summed per model (nested objects of numbers count their own fields, two levels deep at most). */
export const MAX_FIELDS = 32;

/** A span's place in the rollup while it runs. */
interface Node {
  /** The parent's node (kept after this span ends: a descendant that ends later passes its usage up through it). */
  parent: Node | undefined;
  /** What the descendants that ended so far used; taken (and cleared) at this span's end. */
  usage: UsageByModel | undefined;
  open: boolean;
}

type Fields = Record<string, unknown>;

const isFields = (value: unknown): value is Fields =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Adds a key to one of our sums objects. Plain objects (fast to fill and to serialise), so a key named `__proto__`
 * (a model name is whatever the server answered) is defined, never assigned: assigning it would set the prototype.
 * Keys are only ever read back through `Object.hasOwn`, so inherited members (`constructor`) are never mistaken for
 * sums.
 */
function put(target: Fields, key: string, value: unknown): void {
  if (key === "__proto__")
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/**
 * Adds the numeric leaves of `from` into `into` (nested objects of numbers too, two levels deep), at most
 * {@link MAX_FIELDS} fields per object. Fields are counted only when one would be added: most adds only sum.
 */
function addFields(into: Fields, from: Fields, depth: number): void {
  let fields = -1;
  for (const key in from) {
    const value = from[key];
    const numeric = typeof value === "number";
    if (numeric ? !Number.isFinite(value) : depth >= 2 || !isFields(value)) continue;
    if (Object.hasOwn(into, key)) {
      const current = into[key];
      if (numeric) {
        if (typeof current === "number") into[key] = current + (value as number);
      } else if (isFields(current)) addFields(current, value as Fields, depth + 1);
      continue;
    }
    if (fields < 0) fields = Object.keys(into).length;
    if (fields >= MAX_FIELDS) continue;
    fields++;
    if (numeric) put(into, key, value);
    else {
      const nested: Fields = {};
      addFields(nested, value as Fields, depth + 1);
      put(into, key, nested);
    }
  }
}

/** Adds `from` into `into` (created when undefined; `from` is never aliased), keyed by model; returns `into`. */
export function addUsage(into: UsageByModel | undefined, from: UsageByModel): UsageByModel {
  const target: UsageByModel = into ?? {};
  let models = -1;
  for (const model in from) {
    const usage = from[model];
    if (!isFields(usage)) continue;
    let entry: LlmUsage;
    if (Object.hasOwn(target, model)) entry = target[model] as LlmUsage;
    else {
      if (models < 0) models = Object.keys(target).length;
      if (models >= MAX_MODELS) continue;
      models++;
      entry = {};
      put(target, model, entry);
    }
    addFields(entry, usage, 0);
  }
  return target;
}

/** The rollup of one processor (see the module comment). */
export class UsageRollup {
  /** Where this processor keeps a span's node: on the span, under a key of its own. */
  private readonly key: symbol = Symbol("tracewire.usageRollup");

  /** `enabled: false` (no span can take the calls route): nothing is tracked, every call records its own usage. */
  constructor(private readonly enabled = true) {}

  /** A span starts (`parentContext` is what `startSpan` got): it joins its parent's chain, if the parent is open. */
  started(span: Span, parentContext: Context): void {
    if (!this.enabled) return;
    let parent: Node | undefined;
    const parentSpan = trace.getSpan(parentContext);
    if (parentSpan !== undefined) {
      const node = this.nodeOf(parentSpan);
      // The context's span is the parent the SDK recorded, unless `root: true` or another provider made it.
      if (node !== undefined && parentSpan.spanContext().spanId === span.parentSpanContext?.spanId) parent = node;
    }
    (span as unknown as Record<symbol, Node>)[this.key] = { parent, usage: undefined, open: true };
  }

  /**
   * A call of ours ends with `own` usage: returns what its summary records (own plus what its descendants used, or
   * `own` itself when they used nothing) and passes that on to its parent.
   */
  callEnded(span: ReadableSpan, own: UsageByModel | undefined): UsageByModel | undefined {
    const node = this.nodeOf(span);
    if (node === undefined) return own;
    const below = this.close(node);
    const total = below === undefined ? own : own === undefined ? below : addUsage(addUsage(undefined, own), below);
    if (total !== undefined) this.passOn(node, total);
    return total;
  }

  /**
   * Any other span ends (OTLP route, filtered): what its descendants used passes on to its parent, else its own
   * GenAI usage (see the module comment).
   */
  spanEnded(span: ReadableSpan): void {
    const node = this.nodeOf(span);
    if (node === undefined) return;
    const below = this.close(node);
    if (node.parent === undefined) return;
    const total = below ?? usageFromAttributes(span.attributes);
    if (total !== undefined) this.passOn(node, total);
  }

  private nodeOf(span: object): Node | undefined {
    return (span as Record<symbol, Node | undefined>)[this.key];
  }

  /** Marks the node ended; returns what its descendants used (no longer held by the node). */
  private close(node: Node): UsageByModel | undefined {
    node.open = false;
    const below = node.usage;
    node.usage = undefined;
    return below;
  }

  /** Adds `total` to the nearest ancestor of `node` still open, if any. */
  private passOn(node: Node, total: UsageByModel): void {
    let ancestor = node.parent;
    while (ancestor !== undefined && !ancestor.open) ancestor = ancestor.parent;
    if (ancestor !== undefined) ancestor.usage = addUsage(ancestor.usage, total);
  }
}
