/**
 * A full garbage collection, for tests that watch what happens when an object is collected (FinalizationRegistry
 * callbacks, a heap that must stay flat). Vitest runs without `--expose-gc`, so the flag is switched on at run time
 * and V8's `gc` taken from a fresh context; undefined where the engine refuses, and tests that need it skip.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

function exposeGc(): (() => void) | undefined {
  try {
    setFlagsFromString("--expose-gc");
    return runInNewContext("gc") as () => void;
  } catch {
    return undefined;
  }
}

export const gc = exposeGc();
