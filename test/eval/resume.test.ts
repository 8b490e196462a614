/**
 * Resume: an evaluation interrupted by its signal, or by a process killed mid-run (a real child process, SIGKILL),
 * started again with `resume` runs only the rows × trials not yet scored, and the service ends up with one
 * evaluation — one root call, each row × trial once, the summary of all of them.
 */
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { evaluate } from "../../src/eval/index.js";
import { buildCli, removeBuilt } from "../server/cli-process.js";
import { resumableOptions } from "./fixtures/resumable.js";
import { childrenOf, opName, setupEval } from "./support.js";

const setup = setupEval("acme/resume");
/**
 * The evaluation of fixtures/resumable.ts; rows from `hangFrom` on hang until cancelled. With a controller, it is
 * aborted once `abortAfter` rows are scored.
 */
function options(hangFrom: number, controller?: AbortController, resume?: string | boolean, abortAfter = 4) {
  let scored = 0;
  const abort = () => {
    if (++scored === abortAfter) setTimeout(() => controller?.abort(), 30);
  };
  return resumableOptions("resumable", {
    hangFrom,
    ...(controller ? { signal: controller.signal, onScored: abort } : {}),
    ...(resume === undefined ? {} : { resume }),
  });
}

async function treeOf(traceId: string, rootId: string) {
  const calls = await setup.trace(traceId);
  const roots = calls.filter((c) => c.parent_id === null);
  const root = calls.find((c) => c.id === rootId)!;
  const rows = childrenOf(calls, root).filter((c) => opName(c) === "Evaluation.predict_and_score");
  const keys = rows.map(
    (r) => `${r.inputs.example}#${(r.attributes as { tracewire: { eval: { trial: number } } }).tracewire.eval.trial}`,
  );
  return { calls, roots, root, rows, keys };
}

describe("resume after a cancelled run", () => {
  it("runs only what was not scored, under the same root, and ends it with the summary of every row", async () => {
    const first = await evaluate(options(6, new AbortController()));
    expect(first.cancelled).toBe(true);
    const scoredFirst = first.counts.ok;
    expect(scoredFirst).toBeGreaterThanOrEqual(4);
    expect(scoredFirst).toBeLessThan(24);

    const second = await evaluate(options(-1, undefined, first.callId));
    expect(second.callId).toBe(first.callId);
    expect(second.traceId).toBe(first.traceId);
    expect(second.cancelled).toBe(false);
    expect(second.counts).toMatchObject({
      total: 24,
      resumed: scoredFirst,
      ok: 24 - scoredFirst,
      failed: 0,
      cancelled: 0,
    });
    expect(second.summary).toMatchObject({
      even: { true_count: 24, true_fraction: 1 },
      model_latency: { mean: expect.any(Number) },
    });

    const tree = await treeOf(second.traceId, second.callId);
    expect(tree.roots.map((r) => r.id)).toEqual([second.callId]);
    // Each row × trial exactly once: the cancelled rows of the first run were replaced, not duplicated.
    expect(tree.keys).toHaveLength(24);
    expect(new Set(tree.keys).size).toBe(24);
    expect(tree.calls.filter((c) => !c.ended_at)).toEqual([]);
    expect(tree.root.output).toEqual(second.summary);
    expect(tree.root.summary!.tracewire).toBeUndefined(); // no longer cancelled
    expect(tree.root.display_name).toMatch(/^resumable · /);
    expect(childrenOf(tree.calls, tree.root).filter((c) => opName(c) === "Evaluation.summarize")).toHaveLength(1);
    // The earlier run's rows kept their calls.
    const keptIds = second.rows.filter((r) => r.status === "resumed").map((r) => r.callId);
    expect(keptIds.every((id) => tree.rows.some((r) => r.id === id))).toBe(true);
  });

  it("resume: true finds the latest unfinished evaluation of that name; a finished one is not run again", async () => {
    const first = await evaluate(options(3, new AbortController(), undefined, 3));
    expect(first.cancelled).toBe(true);
    const second = await evaluate(options(-1, undefined, true));
    expect(second.callId).toBe(first.callId);
    expect(second.counts.ok + second.counts.resumed).toBe(24);
    // Resuming the finished evaluation by id: nothing runs, nothing is written, the result is read back.
    const before = (await setup.trace(second.traceId)).length;
    const third = await evaluate(options(0, undefined, second.callId));
    expect(third.counts).toMatchObject({ resumed: 24, ok: 0 });
    expect(third.summary).toMatchObject({ even: { true_count: 24 } });
    expect((await setup.trace(second.traceId)).length).toBe(before);
    // And resume: true with nothing unfinished starts a fresh evaluation.
    const fresh = await evaluate(options(-1, undefined, true));
    expect(fresh.callId).not.toBe(second.callId);
    expect(fresh.counts.ok).toBe(24);
  });

  it("refuses to resume an evaluation whose scorers changed, saying what changed", async () => {
    const first = await evaluate(options(1, new AbortController(), undefined, 1));
    const changed = {
      ...options(-1, undefined, first.callId),
      scorers: [
        function odd({ output }: { output: number }) {
          return output % 2 === 1;
        },
      ],
    };
    await expect(evaluate(changed)).rejects.toThrow(/resume: the evaluation .* changed since call/);
  });
});

describe("resume with repeated rows", () => {
  it("keeps one scored run per occurrence of a row that appears twice in the dataset", async () => {
    const options = (resume?: string) => ({
      name: "repeated",
      dataset: [{ n: 1 }, { n: 1 }, { n: 2 }],
      task: function same(row: { n: number }) {
        return row.n;
      },
      progress: false as const,
      captureCode: false,
      ...(resume ? { resume } : {}),
    });
    const first = await evaluate(options());
    expect(first.rows[0]!.rowDigest).toBe(first.rows[1]!.rowDigest);
    const again = await evaluate(options(first.callId));
    expect(again.counts).toMatchObject({ total: 3, resumed: 3, ok: 0 });
    expect(again.rows.map((r) => [r.index, r.status])).toEqual([
      [0, "resumed"],
      [1, "resumed"],
      [2, "resumed"],
    ]);
  });
});

describe("resume after the process was killed", () => {
  it("continues an evaluation whose process died mid-run (SIGKILL), leaving no call open", async () => {
    const script = buildCli(new URL("./fixtures/killed-run.ts", import.meta.url).pathname);
    try {
      const child = spawn(process.execPath, [script], {
        env: { ...process.env, SERVICE_URL: setup.service.url, PROJECT: setup.project },
        stdio: ["ignore", "pipe", "inherit"],
      });
      let out = "";
      const ready = new Promise<string>((resolve, reject) => {
        child.stdout!.on("data", (chunk: Buffer) => {
          out += chunk.toString();
          const m = /READY (\w+)/.exec(out);
          if (m) resolve(m[1]!);
        });
        child.once("exit", (code) => reject(new Error(`the child exited (${code}) before it was killed: ${out}`)));
      });
      const rootId = await ready;
      child.kill("SIGKILL");
      await new Promise((resolve) => child.once("exit", resolve));

      const before = await treeOf((await setup.client.calls.read({ id: rootId })).call!.trace_id, rootId);
      expect(before.root.ended_at).toBeNull(); // the killed process never ended it
      expect(before.calls.some((c) => !c.ended_at && opName(c) === "Evaluation.predict_and_score")).toBe(true);

      const resumed = await evaluate(resumableOptions("killed", { resume: true }));
      expect(resumed.callId).toBe(rootId);
      expect(resumed.counts.resumed).toBeGreaterThanOrEqual(3);
      expect(resumed.counts.ok + resumed.counts.resumed).toBe(24);
      const after = await treeOf(resumed.traceId, rootId);
      expect(after.roots.map((r) => r.id)).toEqual([rootId]);
      expect(new Set(after.keys).size).toBe(24);
      expect(after.keys).toHaveLength(24);
      expect(after.calls.filter((c) => !c.ended_at)).toEqual([]);
      expect(after.root.output).toEqual(resumed.summary);
    } finally {
      removeBuilt(script);
    }
  }, 60_000);
});
