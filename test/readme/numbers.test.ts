/**
 * Numbers the docs quote, against where they come from: bench/RESULTS.md for measurements, the code's constants for
 * limits, sizes and timeouts. A bench run or a changed constant that leaves a page behind fails here.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { docFiles, ROOT } from "../../scripts/markdown.mjs";
import { USAGE_AFTER_FINISH_MS } from "../../src/genai/chat-stream.js";
import { GZIP_MIN_BYTES } from "../../src/http/transport.js";
import { knownSecretValue, MAX_KNOWN_SECRETS } from "../../src/secrets.js";
import { DEFAULT_KEEP, DEFAULT_MAX_CALLS } from "../../src/server/retention.js";

/** A page's text with its line breaks and runs of spaces as one space (sentences wrap anywhere). */
const page = (file: string) => readFileSync(join(ROOT, file), "utf8").replace(/\s+/g, " ");

describe("numbers quoted from bench/RESULTS.md", () => {
  const results = page("bench/RESULTS.md");

  it("docs/concepts.md quotes the redaction cost RESULTS.md measured", () => {
    const ratio =
      /Default credential redaction on this payload \(no credential keys\): op-on ÷ op-on with `redactKeys: \[\]` = ([\d.]+)×/.exec(
        results,
      )?.[1];
    const row = (label: string) =>
      Number(
        new RegExp(`\\| ${label.replace(/[()[\]|`*.:]/g, "\\$&")} \\| [^|]+ \\| [^|]+ \\| ([\\d.]+) \\|`).exec(
          results,
        )?.[1],
      );
    const on = row("**`op(fn)`, tracing on (calls route, to the sink)**");
    const off = row("`op(fn)`, tracing on, `redactKeys: []` (no credential-key redaction)");
    expect(ratio).toBeDefined();
    expect(on).toBeGreaterThan(0);
    expect(off).toBeGreaterThan(0);
    expect(page("docs/concepts.md")).toContain(
      `bench/RESULTS.md reads ${ratio}× (${on.toFixed(1)} against ${off.toFixed(1)} µs of CPU per traced call)`,
    );
  });
});

describe("numbers quoted from the code", () => {
  it("docs/openai.md: the wait for the usage chunk after a break", () => {
    expect(page("docs/openai.md")).toContain(`(for at most ${USAGE_AFTER_FINISH_MS} ms;`);
  });

  it("gzip starts at 1 KiB (docs/concepts.md, docs/configuration.md)", () => {
    expect(GZIP_MIN_BYTES).toBe(1024);
    expect(page("docs/concepts.md")).toContain("gzip for bodies of 1 KiB or more");
    expect(page("docs/configuration.md")).toContain("bodies under 1 KiB are always sent plain");
  });

  it("docs/concepts.md: known secrets of 8 characters or more, at most the newest 128", () => {
    expect(knownSecretValue("1234567")).toBeUndefined();
    expect(knownSecretValue("12345678")).toBe("12345678");
    expect(page("docs/concepts.md")).toContain(
      `values of 8 characters or more, at most the newest ${MAX_KNOWN_SECRETS}`,
    );
  });

  it("docs/local-service.md: the retention defaults", () => {
    const text = page("docs/local-service.md");
    expect(text).toContain(`(default \`${DEFAULT_KEEP}\`;`);
    expect(text).toContain(`(default ${DEFAULT_MAX_CALLS.toLocaleString("en-US")};`);
  });
});

describe("versions quoted from package.json", () => {
  const { peerDependencies: peers, engines } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
    peerDependencies: Record<string, string>;
    engines: { node: string };
  };

  it("each integration page names the peer range package.json declares", () => {
    expect(peers["@anthropic-ai/sdk"]).toBe(">=0.137.0 <2");
    expect(page("docs/anthropic.md")).toContain("`@anthropic-ai/sdk` 1.x and 0.x from 0.137");
    expect(peers.openai).toBe(">=5.0.0 <8");
    expect(page("docs/openai.md")).toContain("the `openai` package v5, v6 and v7");
    expect(peers["@google/genai"]).toBe(">=3.0.0 <4");
    expect(page("docs/google.md")).toContain("`@google/genai` 3.x");
    expect(peers["@opentelemetry/api"]).toBe(">=1.9.0 <1.10.0");
    expect(page("README.md")).toContain("`@opentelemetry/api` `>=1.9.0 <1.10.0`");
    expect(engines.node).toBe(">=20.18.1");
    expect(page("README.md")).toContain("Supported Node.js versions: 20.18.1 and later");
  });
});

it("no page cites a tracker number (#27) that a reader of the docs cannot open", () => {
  for (const file of docFiles()) expect(page(file), file).not.toMatch(/\(#\d+[;,)]/);
});
