// `npm run example:eval`: an evaluation, offline, in one command. It starts the local tracing service (unless
// TRACEWIRE_BASE_URL names one), a quiz stand-in for an OpenAI model, and runs `evaluate()` over 20 questions ×
// 2 trials with three scorers (see quiz.mjs). It prints progress, the summary table and the link to the evaluation
// in the viewer. `--serve` keeps the service running afterwards so you can browse it (Ctrl+C to stop).
import { pathToFileURL } from "node:url";
import OpenAI from "openai";
import { init } from "tracewire";
import { evaluate } from "tracewire/eval";
import { wrapOpenAI } from "tracewire/openai";
import { quizEvaluation } from "./quiz.mjs";
import { startQuizStandIn } from "./stand-in.mjs";

/** Runs the example; resolves with the evaluation's result. */
export async function main({ serve = false, port = 4319 } = {}) {
  let service;
  if (!process.env.TRACEWIRE_BASE_URL) {
    const { startDevServer } = await import("../../dist/cli.js");
    service = await startDevServer({ port: serve ? port : 0, storage: "memory" });
  }
  const standIn = await startQuizStandIn();
  const tracing = init({
    serviceName: "example-eval",
    ...(service ? { baseUrl: service.url, project: "demo/evals", env: {} } : {}),
  });
  const client = wrapOpenAI(new OpenAI({ apiKey: "sk-local-stand-in", baseURL: standIn.url, maxRetries: 0 }));
  const result = await evaluate(quizEvaluation(client));
  await tracing.shutdown();
  await standIn.close();
  console.log(`viewer: ${result.url ?? "(no viewer for this service)"}`);
  if (service && serve) {
    console.log("The service keeps running so you can browse the evaluation. Press Ctrl+C to stop.");
    process.once("SIGINT", () => service.close().then(() => process.exit(0)));
  } else {
    if (service) console.log("(the service stops now: run with `-- --serve` to keep it up and browse the evaluation)");
    await service?.close();
  }
  return result;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main({ serve: process.argv.includes("--serve") });
}
