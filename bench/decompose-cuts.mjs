/**
 * The cuts bench/decompose.mjs measures: each takes one piece of a wrapped chat call's work out, by source edits that
 * its esbuild plugin applies to src/ while bundling. Every edit keeps the original code behind a flag read per call,
 * so one bundle runs every variant. A cut changes what is recorded; it exists only to weigh the piece, never to ship.
 *
 * The format (also of a `--cuts=<file>` list, which exports `CUTS` the same way): `{ name, title, edits }`, `name`
 * unique (not `all`), `title` what the row says is missing ("without <title>"), `edits` a list of `{ file, find,
 * replace }` — `file` relative to the repository, `find` occurring exactly once in it (after the edits listed before
 * it), `replace` inserted literally, with {@link on}(name) as the condition. The variant must still send two call
 * records per call (a start and an end), as the bench checks. Measured on non-streaming chat completions only.
 */

/** The TypeScript expression that is true while the cut `name` is on (the bench switches the set per block). */
export const on = (name) => `(globalThis as { __twCut?: Set<string> }).__twCut?.has(${JSON.stringify(name)})`;

export const CUTS = [
  {
    name: "hooks",
    // Valid for non-streaming calls only (a stream would be recorded as the Stream object).
    title: "the APIPromise hooks (the call ends from one `then` on the promise instead)",
    edits: [
      {
        file: "src/instrument/api-promise.ts",
        find: "    let settled = false;\n    const settle = (value: unknown) => {",
        replace: `    if (${on("hooks")}) {
      (promise as unknown as PromiseLike<unknown>).then(
        (v) => call.complete(v),
        (e: unknown) => call.fail(e),
      );
      return;
    }
    let settled = false;
    const settle = (value: unknown) => {`,
      },
    ],
  },
  {
    // Both payloads of this bench are plain JSON (the walk says yes to them), so the cut skips the walk alone, not a copy.
    name: "walk",
    title: "the payload walk (request and answer taken as they are)",
    edits: [
      {
        file: "src/tracing/serialize-shared.ts",
        find: "    if (plainEnough(value, options)) return value as JsonValue;",
        replace: `    if (${on("walk")} || plainEnough(value, options)) return value as JsonValue;`,
      },
    ],
  },
  {
    name: "payloads",
    title: "the request and the answer (recorded as `{}`: no walk, no JSON)",
    edits: [
      {
        file: "src/genai/span-record.ts",
        find: 'inputs = preparePayload(params, "inputs", opName, true);',
        replace: `inputs = ${on("payloads")} ? {} : preparePayload(params, "inputs", opName, true);`,
      },
      {
        file: "src/genai/span-record.ts",
        find: '    payload = preparePayload(format.recordedOutput(output.value, options), "output", opName, true);',
        replace: `    payload = ${on("payloads")} ? {} : preparePayload(format.recordedOutput(output.value, options), "output", opName, true);`,
      },
    ],
  },
  {
    name: "attributes",
    title: "the GenAI request and response attributes (and so the usage, summary and record attributes)",
    edits: [
      {
        file: "src/genai/span-record.ts",
        find: "  const attributes = format.requestAttributes(params, spec.endpoint, spec.streaming ?? params.stream === true);",
        replace: `  const attributes = ${on("attributes")} ? ({} as Attributes) : format.requestAttributes(params, spec.endpoint, spec.streaming ?? params.stream === true);`,
      },
      {
        file: "src/genai/span-record.ts",
        find: "  if (output) format.responseAttributes(output.value, attributes);",
        replace: `  if (output && !${on("attributes")}) format.responseAttributes(output.value, attributes);`,
      },
    ],
  },
  {
    name: "link",
    title: "the `callOf()` link and the call handle",
    edits: [
      {
        file: "src/genai/chat-call.ts",
        find: "    if (this.ended) return;\n    this.link(completion);",
        replace: `    if (this.ended) return;\n    if (!${on("link")}) this.link(completion);`,
      },
      {
        file: "src/genai/chat-call.ts",
        find: "      this.handle ??= callOfSpan(span);",
        replace: `      if (!${on("link")}) this.handle ??= callOfSpan(span);`,
      },
    ],
  },
  {
    name: "rollup",
    title: "the usage rollup's bookkeeping at a span's start",
    edits: [
      {
        file: "src/otel/processor.ts",
        find: "      this.rollup.started(span, parentContext);",
        replace: `      if (!${on("rollup")}) this.rollup.started(span, parentContext);`,
      },
    ],
  },
];
