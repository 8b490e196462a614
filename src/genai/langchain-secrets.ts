/**
 * The credentials of LangChain models as known secrets (secrets.ts `maskKnownSecrets`): `instrument/langchain.ts`
 * registers them when a model sends a request, so a key given in code is masked like one from the environment.
 */
import { rememberSecret } from "../otel/known-secrets.js";
import { isObj } from "./guards.js";

/** Models whose declared credentials are registered already (one lookup per request afterwards). */
const REMEMBERED = new WeakSet<object>();

/**
 * Registers as known secrets the credentials a LangChain model, LLM or retriever declares in its `lc_secrets` (field
 * path → environment variable: `{ apiKey: "OPENAI_API_KEY" }`), read from the instance. A key the app passed in code
 * rather than through the environment is then masked like one `init()` found there: a server that refuses it by
 * quoting it ("Incorrect API key provided: sk-…") would otherwise send it to the tracing service in the recorded
 * exception. Never throws; read once per instance.
 */
export function rememberModelSecrets(model: unknown): void {
  if (!isObj(model) || REMEMBERED.has(model)) return;
  REMEMBERED.add(model);
  try {
    const declared = (model as { lc_secrets?: unknown }).lc_secrets;
    if (!isObj(declared)) return;
    for (const path of Object.keys(declared)) {
      let value: unknown = model;
      for (const part of path.split(".")) value = isObj(value) ? value[part] : undefined;
      rememberSecret(value);
    }
  } catch {
    // A getter that throws: what it held cannot be masked; the model itself is unaffected.
  }
}
