/**
 * Flush on the way out: `beforeExit` (the event loop ran dry — a script or a child process finishing its work)
 * and `SIGTERM` (a container or serverless platform stopping us). Installed once per process for all live
 * processors; nothing here keeps the process alive.
 *
 * A `beforeExit` flush waits at most the processors' `exportTimeoutMillis`; if the service is unreachable, the
 * process then exits without the rest (it is not flushed again on every later `beforeExit`).
 *
 * Not covered, by Node's design: `process.exit()` and uncaught exceptions end the process synchronously, before
 * any network I/O could finish. Call `flush()` yourself before `process.exit()`.
 */
import { globalState } from "./state.js";

/** Longest a SIGTERM waits for the flush before letting the process go. */
const SIGTERM_FLUSH_MS = 5_000;

function flushAll(): Promise<unknown> {
  return Promise.allSettled([...globalState().live].map((p) => p.forceFlush()));
}

/** Installs the hooks if they are not installed yet. */
export function installExitHooks(): void {
  const state = globalState();
  if (state.hooks) return;
  const busy = () => [...state.live].some((p) => !p.idle);
  let flushing = false;
  let gaveUp = false;
  const beforeExit = () => {
    // Flushing schedules I/O, which makes Node emit beforeExit again when it is done; only flush while there is
    // something to send, so the second round finds everything idle and the process exits. A flush that ends (at its
    // deadline) with work still queued means the service is unreachable: flushing again would keep the process
    // alive forever, so later rounds let it exit and the rest is lost.
    if (flushing || gaveUp || !busy()) return;
    flushing = true;
    void flushAll().then(() => {
      flushing = false;
      if (busy()) gaveUp = true;
    });
  };
  const sigterm = () => {
    const timeout = new Promise((resolve) => setTimeout(resolve, SIGTERM_FLUSH_MS).unref());
    void Promise.race([flushAll(), timeout]).then(() => {
      // A SIGTERM listener disables Node's default exit; restore it when we are the only listener.
      if (process.listenerCount("SIGTERM") === 1) {
        removeExitHooks();
        process.kill(process.pid, "SIGTERM");
      }
    });
  };
  process.on("beforeExit", beforeExit);
  process.on("SIGTERM", sigterm);
  state.hooks = { beforeExit, sigterm };
}

/** Removes the hooks (when the last processor shuts down). */
export function removeExitHooks(): void {
  const state = globalState();
  if (!state.hooks) return;
  process.off("beforeExit", state.hooks.beforeExit);
  process.off("SIGTERM", state.hooks.sigterm);
  state.hooks = undefined;
}
