/**
 * `evaluate()` against a hand-written promise pool: 1,000 rows × 3 scorers at concurrency 16, the task one
 * non-streaming chat completion of the real `openai` package (v6) against the loopback OpenAI-compatible server
 * (bench/openai-server.mjs), the evaluation recorded into the local tracing service (bench/eval-service.mjs); both
 * servers are child processes, so their CPU is not charged here. Three variants, interleaved in rounds in one
 * process, wall time and CPU (user + system) of each run:
 *
 * - `pool`: a promise pool of 16 workers calling an unwrapped client and the three scorer functions (nothing
 *   traced, nothing recorded) — the floor;
 * - `pool + wrapped client`: the same pool with `wrapOpenAI()` (each LLM call traced, natively);
 * - `evaluate()`: the same calls through `evaluate({ concurrency: 16 })`, which also publishes the dataset and the
 *   objects, records a predict_and_score, a model and three scorer calls per row, score feedback and the summary,
 *   and waits for the service to acknowledge everything before it resolves.
 *
 * Run: node bench/eval-overhead.mjs [--rows=1000] [--rounds=5]
 */
import OpenAI from "openai";
import { init } from "tracewire";
import { evaluate } from "tracewire/eval";
import { wrapOpenAI } from "tracewire/openai";
import { arg, cpuMicros, fmt, median, report, startServer, table } from "./lib.mjs";

const ROWS = Number(arg("rows", "1000"));
const ROUNDS = Number(arg("rounds", "5"));
const CONCURRENCY = 16;

const chat = await startServer("./openai-server.mjs");
const service = await startServer("./eval-service.mjs");
const tracing = init({
  baseUrl: `http://127.0.0.1:${service.port}`,
  project: "bench/evals",
  env: {},
  logger: { warn: (m) => console.error(m), error: (m) => console.error(m) },
});

const clientOptions = { apiKey: "sk-bench", baseURL: `http://127.0.0.1:${chat.port}/v1`, maxRetries: 0 };
const plain = new OpenAI(clientOptions);
const wrapped = wrapOpenAI(new OpenAI(clientOptions));
const DATASET = Array.from({ length: ROWS }, (_, i) => ({
  question: `Question ${i}: what is the capital of country number ${i % 50}?`,
  expected: "pieces",
}));

const task = (client) =>
  async function answer(row) {
    const completion = await client.chat.completions.create({
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: row.question }],
      max_tokens: 64,
    });
    return completion.choices[0].message.content;
  };
const scorers = [
  function mentions({ output, row }) {
    return output.includes(row.expected);
  },
  function length({ output }) {
    return output.length;
  },
  function words({ output }) {
    const n = output.split(" ").length;
    return { count: n, short: n < 40 };
  },
];

/** The hand-written pool: 16 workers over the rows, the task then the scorers, results kept. */
async function pool(client) {
  const run = task(client);
  const results = new Array(ROWS);
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < ROWS) {
        const i = next++;
        const row = DATASET[i];
        const output = await run(row);
        const scores = {};
        for (const scorer of scorers) scores[scorer.name] = await scorer({ output, row, trial: 0, index: i });
        results[i] = { output, scores };
      }
    }),
  );
  return results;
}

const variants = {
  pool: () => pool(plain),
  "pool + wrapped client": async () => {
    const r = await pool(wrapped);
    await tracing.flush();
    return r;
  },
  "evaluate()": () =>
    evaluate({
      name: "bench-eval",
      dataset: DATASET,
      task: task(wrapped),
      scorers,
      concurrency: CONCURRENCY,
      progress: false,
    }),
};

async function measure(fn) {
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  const result = await fn();
  return { wall: performance.now() - t0, cpu: cpuMicros(cpu) / 1000, result };
}

const samples = Object.fromEntries(Object.keys(variants).map((k) => [k, { wall: [], cpu: [] }]));
// One warm-up run of each (JIT, sockets, the first publish of the objects), then interleaved rounds.
for (const fn of Object.values(variants)) await fn();
let checked = false;
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, fn] of Object.entries(variants)) {
    const m = await measure(fn);
    samples[name].wall.push(m.wall);
    samples[name].cpu.push(m.cpu);
    if (name === "evaluate()" && !checked) {
      checked = true;
      if (m.result.counts.ok !== ROWS) throw new Error(`evaluate() scored ${m.result.counts.ok} of ${ROWS} rows`);
    }
  }
  console.error(`round ${round + 1}/${ROUNDS} done`);
}
const stats = tracing.stats();
await tracing.shutdown();
const requests = await chat.stats();
await chat.stop();
await service.stop();

const med = (name, key) => median(samples[name][key]);
const base = { wall: med("pool", "wall"), cpu: med("pool", "cpu") };
const rows = Object.keys(variants).map((name) => [
  name,
  fmt.ratio(med(name, "wall") / base.wall),
  fmt.ratio(med(name, "cpu") / base.cpu),
  `${fmt.int(med(name, "wall"))} ms`,
  `${fmt.int(med(name, "cpu"))} ms`,
  `${fmt.num((med(name, "cpu") * 1000) / ROWS, 0)} µs`,
]);
const evalCpu = med("evaluate()", "cpu");
const wrappedCpu = med("pool + wrapped client", "cpu");
const perRowEval = ((evalCpu - wrappedCpu) * 1000) / ROWS;
const perRowLlm = ((wrappedCpu - base.cpu) * 1000) / ROWS;
const markdown = `### \`evaluate()\`: ${fmt.int(ROWS)} rows × 3 scorers at concurrency ${CONCURRENCY}

Each row: one non-streaming chat completion (real \`openai\` v6, loopback server in a child process) and three
scorer functions; the evaluation recorded into the local tracing service (a child process). Medians of ${ROUNDS}
interleaved rounds after a warm-up round; ratios against the untraced pool.

${table(["variant", "wall ratio", "CPU ratio", "wall", "CPU", "CPU per row"], rows)}

Where the time goes (CPU per row, medians): the wrapped client's tracing of the LLM call costs
${fmt.num(perRowLlm, 0)} µs over the untraced pool; \`evaluate()\` adds ${fmt.num(perRowEval, 0)} µs on top — five
more calls per row (predict_and_score, the model's call, a call per scorer: start and end records each, with the
row and the output serialised into their inputs), a batched \`wandb.runnable\` feedback row per score, the summary
and statistics, and once per run the dataset (a ${fmt.int(ROWS)}-row table), the ops and objects. Wall time also
includes waiting for the service to acknowledge every call before \`evaluate()\` resolves (the pool does not wait
for anything). Model requests served: ${fmt.int(requests.requests)}; calls route: ${fmt.int(stats.calls.sent)} items
sent, ${stats.calls.dropped} dropped, ${stats.calls.rejected} rejected.`;

report({ title: "evaluate() overhead", markdown, checks: [] });
