import { expect } from "vitest";
import { ConfigError } from "../../src/errors.js";

/** Runs `make`, expects it to throw a ConfigError, and returns that error (for its `setting` and message). */
export function configError(make: () => unknown): ConfigError {
  try {
    make();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error("expected a ConfigError, nothing was thrown");
}
