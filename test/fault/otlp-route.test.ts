/**
 * The fault table on the OTLP route (`/otel/v1/traces`): every kind of service misbehaviour in test/fault/support.ts, applied to
 * this route's path only, while the app keeps calling traced code. See `runRow` for the invariants each row keeps.
 * (The other route runs alongside, unfaulted, and must be just as complete.)
 */
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from "vitest";
import { init } from "../../src/index.js";
import { TracingDouble } from "../support/tracing-double.js";
import { recordingLogger } from "../support/tracing-session.js";
import { FAST, FAULTS, type FaultSession, runRow } from "./support.js";

let session: FaultSession;
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);

beforeAll(() => {
  process.on("unhandledRejection", onUnhandled);
});
afterAll(() => {
  process.off("unhandledRejection", onUnhandled);
  expect(unhandled).toEqual([]);
});

beforeEach(async () => {
  const double = await TracingDouble.start();
  const { logger, lines } = recordingLogger();
  const tracing = init({ baseUrl: double.url, project: "acme/demo", env: {}, logger, ...FAST });
  session = { double, tracing, logs: lines };
});
afterEach(async () => {
  await session.tracing.shutdown();
  await session.double.close();
});

it.each(FAULTS)(
  "$name: the app's calls return at once, and after recovery every span arrives exactly once (or, for 500, is counted as rejected)",
  async (row) => {
    await runRow("otlp", row, session);
  },
);
