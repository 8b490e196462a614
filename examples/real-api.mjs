// What the examples share when they talk to a real model API (its key is set, so no local stand-in runs): a request
// that fails there — a wrong key, model or base URL — is said in two lines, with the way back to the offline run,
// instead of an SDK stack trace; the example then still shuts tracing down (the failed call is sent) and exits 1.
// Offline (`standIn` set) a failure is a bug of the example, and is rethrown as is.

/**
 * For `.catch()` on an example's run: rethrows when `standIn` ran; else reports `err` naming `keyVariable` and
 * resolves with `{}` (no answer), setting the exit code to 1.
 */
export function realApiFailure(standIn, keyVariable) {
  return (err) => {
    if (standIn) throw err;
    const status = typeof err?.status === "number" ? ` (HTTP ${err.status})` : "";
    console.error(`The model API request failed${status}: ${err?.message ?? String(err)}`);
    console.error(
      `${keyVariable} is set, so this example talks to the real API: check the key, the model and the base URL, ` +
        `or unset ${keyVariable} to run it offline against the local stand-in.`,
    );
    process.exitCode = 1;
    return {};
  };
}
