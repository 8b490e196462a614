/**
 * The fault table on the OTLP route (`/otel/v1/traces`): every kind of service misbehaviour in test/fault/support.ts, applied to
 * this route's path only, while the app keeps calling traced code. See `runRow` for the invariants each row keeps.
 * (The other route runs alongside, unfaulted, and must be just as complete.)
 */
import { it } from "vitest";
import { FAULTS, runRow, setupFaultSession } from "./support.js";

const ctx = setupFaultSession();

it.each(FAULTS)(
  "$name: the app's calls return at once, and after recovery every span arrives exactly once (or, for 500, is counted as rejected)",
  async (row) => {
    await runRow("otlp", row, ctx.session);
  },
);
