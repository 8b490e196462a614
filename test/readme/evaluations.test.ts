/**
 * The "Evaluations" snippet of docs/evaluations.md runs verbatim against the local service and a wrapped `openai` client whose
 * model knows capitals (a loopback stand-in), and records what the section says: the summary it prints, one
 * evaluation with a row × trial per dataset row.
 */
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import OpenAI from "openai";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ROOT } from "../../scripts/markdown.mjs";
import { TracingClient } from "../../src/api/index.js";
import * as evalModule from "../../src/eval/index.js";
import { init, type TracewireHandle } from "../../src/index.js";
import { wrapOpenAI } from "../../src/instrument/index.js";
import { PROJECT, startService, type TestService } from "../server/helpers.js";
import { docBlock, runBlock } from "./snippets.js";

const CAPITALS: Record<string, string> = { France: "Paris", Japan: "Tokyo" };
let service: TestService;
let tracing: TracewireHandle;
let standIn: Server;

beforeAll(async () => {
  service = await startService({ storage: "memory" });
  tracing = init({ baseUrl: service.url, project: PROJECT, env: {}, scheduledDelayMillis: 20 });
  // A model that knows two capitals, answering "Tokyo." with a period for Japan.
  standIn = createServer(async (req, res) => {
    let raw = "";
    for await (const chunk of req) raw += chunk;
    const country = /Capital of (\w+)/.exec(JSON.parse(raw).messages[0].content)![1]!;
    const content = country === "Japan" ? `${CAPITALS[country]}.` : CAPITALS[country];
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        id: "c1",
        object: "chat.completion",
        created: 1,
        model: "gpt-4o-mini",
        choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
        usage: { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11 },
      }),
    );
  });
  await new Promise<void>((resolve) => standIn.listen(0, "127.0.0.1", resolve));
});
afterAll(async () => {
  await tracing.shutdown();
  await new Promise((resolve) => standIn.close(resolve));
  await service.close();
});

it("the Evaluations snippet runs verbatim and records one evaluation", async () => {
  const client = wrapOpenAI(
    new OpenAI({ apiKey: "sk-test", baseURL: `http://127.0.0.1:${(standIn.address() as AddressInfo).port}/v1` }),
  );
  const printed: unknown[][] = [];
  const stderr: string[] = [];
  await runBlock(
    docBlock("docs/evaluations.md", "# Evaluations (`tracewire/eval`)"),
    {
      client,
      console: { log: (...args: unknown[]) => printed.push(args) },
      process: { ...process, stderr: { write: (t: string) => stderr.push(t), isTTY: false } },
    },
    { "tracewire/eval": evalModule },
  );
  expect(printed).toHaveLength(1);
  const [summary, url] = printed[0]!;
  expect(summary).toEqual({ true_count: 2, true_fraction: 0.5 });
  expect(url).toMatch(new RegExp(`^${service.url}/#project=acme%2Fdemo&view=evals&eval=[0-9a-f]{16}$`));

  const reader = new TracingClient({ baseUrl: service.url, project: PROJECT, env: {} });
  const id = /eval=(\w+)/.exec(String(url))![1]!;
  const root = (await reader.calls.read({ id })).call!;
  expect(root.output).toMatchObject({ exact_match: summary, brief: { true_count: 4, true_fraction: 1 } });
  const rows = [];
  for await (const call of reader.calls.streamQuery({ filter: { parent_ids: [id] } }))
    if (call.op_name.includes("predict_and_score")) rows.push(call);
  expect(rows).toHaveLength(4);
  await reader.close();
});

it("the Options paragraph names every option evaluate() reads", async () => {
  const base = { name: "options", dataset: [{ a: 1 }], task: () => 1, scorers: [] };
  const error = (await evalModule.evaluate({ ...base, nope: 1 } as never).catch((err: unknown) => err)) as Error;
  const known = /The options are (.*)\.$/.exec(error.message)?.[1]?.split(", ");
  expect(known?.length).toBeGreaterThan(10);
  const page = readFileSync(join(ROOT, "docs/evaluations.md"), "utf8");
  const paragraph = page.slice(page.indexOf("- **Options.**"), page.indexOf("- **What is recorded**"));
  const named = new Set([...paragraph.matchAll(/`(\w+)/g)].map((m) => m[1]));
  expect(known!.filter((option) => !named.has(option))).toEqual([]);
});
