/**
 * Flush on the way out: `beforeExit` (the event loop ran dry — a script or a child process finishing its work)
 * and `SIGTERM` (a container or serverless platform stopping us). Installed once per process for all live
 * processors; nothing here keeps the process alive.
 *
 * Each exit flush waits at most the processors' `exitFlushMillis` (default 5 s), and less when the service refuses
 * connections (nothing can be sent, so there is nothing to wait for). The `beforeExit` flush runs every time the loop
 * drains with new work queued — a script that awaits `call.react()` at top level and goes on working loses nothing.
 * Only when a flush ended with work left (the service unreachable) and nothing new was offered since it began does the
 * process exit without flushing again, so a dead service never keeps it alive. The `SIGTERM` flush, when it is the
 * only listener and so ends the process, first ends the calls still running as cancelled (they could never end); so
 * does `beforeExit` once everything queued is sent (the loop ran dry: a call still running then waits on nothing).
 *
 * Not covered, by Node's design: `process.exit()` and uncaught exceptions end the process synchronously, before
 * any network I/O could finish. Call `flush()` yourself before `process.exit()`.
 *
 * Runtimes without process events (Vercel's edge, where every `process.*` call throws; Workers, where they never
 * fire) get no hooks: there the request's `waitUntil` flushes (request-flush.ts).
 */
import { processObject, unref } from "../runtime.js";
import { type ActiveProcessor, globalState } from "./state.js";

type ProcessEvents = {
  on(event: string, listener: () => void): unknown;
  off(event: string, listener: () => void): unknown;
  listenerCount(event: string): number;
  kill(pid: number, signal: string): unknown;
  pid: number;
};

/** The process, when it has Node's events (Node, Bun, Deno). */
function processEvents(): ProcessEvents | undefined {
  const p = processObject() as Partial<ProcessEvents> | undefined;
  return typeof p?.on === "function" && typeof p.off === "function" ? (p as ProcessEvents) : undefined;
}

/**
 * Flushes every live processor, each within its own `exitFlushMillis`; at that deadline an export still in flight is
 * aborted, since its socket would otherwise keep the process alive until the export timeout. `closeRunning`: the
 * process is about to end, so calls still running are ended first, as cancelled (see `exitFlush`).
 */
function flushAll(live: readonly ActiveProcessor[], closeRunning = false): Promise<unknown> {
  return Promise.allSettled(
    live.map((p) => (p.exitFlush ? p.exitFlush(closeRunning) : p.forceFlush(p.exitFlushMillis))),
  );
}

/** Installs the hooks if they are not installed yet. */
export function installExitHooks(): void {
  const state = globalState();
  if (state.hooks) return;
  const live = () => [...state.live];
  const busy = () => live().some((p) => !p.idle);
  const offered = () => live().reduce((sum, p) => sum + p.offered, 0);
  let flushing = false;
  /** Items offered when the last flush that ended with work left began; -1 while none has. */
  let gaveUpAt = -1;
  const beforeExit = () => {
    // Flushing schedules I/O, which makes Node emit beforeExit again when it is done; only flush while there is
    // something to send, so a later round finds everything idle and the process exits. A flush that ends with work
    // still queued means the service is unreachable: flushing the same work again would keep the process alive
    // forever, so the process exits — unless new work was offered since (the script went on), which gets its flush.
    if (flushing) return;
    // The loop ran dry with everything sent: a call still running now waits on nothing that can happen (the process
    // exits next), so it never ends. It ends now, as cancelled, and the flush below sends that end.
    if (!busy()) {
      for (const p of live()) {
        try {
          p.endRunning?.();
        } catch {
          // Never thrown into the exit path (the processor counts its own failures).
        }
      }
    }
    if (!busy() || offered() === gaveUpAt) return;
    flushing = true;
    // Counted when the flush starts: the script may go on while it runs (an awaited react() it settled), and work
    // offered meanwhile has not been tried yet — it gets a flush of its own when the loop drains again.
    const offeredAtStart = offered();
    void flushAll(live()).then(() => {
      flushing = false;
      gaveUpAt = busy() ? offeredAtStart : -1;
    });
  };
  const sigterm = () => {
    const processors = live();
    // Alone, this hook ends the process after its flush: calls still running never end, so they are ended now (as
    // cancelled) and sent with the rest. With the app's own listener (a graceful shutdown that lets the work in
    // flight finish), nothing is ended here.
    const events = processEvents();
    const ending = events !== undefined && events.listenerCount("SIGTERM") === 1;
    const longest = Math.max(0, ...processors.map((p) => p.exitFlushMillis));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise((resolve) => {
      timer = unref(setTimeout(resolve, longest + 100));
    });
    void Promise.race([flushAll(processors, ending), timeout]).then(() => {
      clearTimeout(timer);
      // A SIGTERM listener disables Node's default exit; restore it when we are the only listener.
      if (events && events.listenerCount("SIGTERM") === 1) {
        removeExitHooks();
        events.kill(events.pid, "SIGTERM");
      }
    });
  };
  state.hooks = { beforeExit, sigterm };
  const events = processEvents();
  if (!events) return;
  try {
    events.on("beforeExit", beforeExit);
    events.on("SIGTERM", sigterm);
  } catch {
    // A runtime whose process object refuses listeners: nothing to hook, the request flush still runs.
  }
}

/** Removes the hooks (when the last processor shuts down). */
export function removeExitHooks(): void {
  const state = globalState();
  if (!state.hooks) return;
  const { beforeExit, sigterm } = state.hooks;
  state.hooks = undefined;
  try {
    processEvents()?.off("beforeExit", beforeExit);
    processEvents()?.off("SIGTERM", sigterm);
  } catch {
    // Never installed (see installExitHooks).
  }
}
