/**
 * The fault table on the calls route (`/call/upsert_batch`): every kind of service misbehaviour in test/fault/support.ts, applied to
 * this route's path only, while the app keeps calling traced code. See `runRow` for the invariants each row keeps.
 * (The other route runs alongside, unfaulted, and must be just as complete.)
 */
import { it } from "vitest";
import { FAULTS, runRow, setupFaultSession } from "./support.js";

const ctx = setupFaultSession();

it.each(FAULTS)(
  "$name: the app's calls return at once, and after recovery every call arrives exactly once",
  async (row) => {
    await runRow("calls", row, ctx.session);
  },
);
