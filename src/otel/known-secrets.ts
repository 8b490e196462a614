/**
 * Registers known secrets: the exact credential strings `scrubText` masks wherever they occur (see secrets.ts
 * `maskKnownSecrets` for why patterns are not enough). Registered are tracewire's own API key (the processor), the API
 * keys of the LLM clients tracewire wraps, and at `init()` the values of the environment variables whose name the
 * redactor matches (`OPENAI_API_KEY`, `ANTHROPIC_API_KEY`, `GEMINI_API_KEY`, …): the keys an app's clients are most
 * often built from, wrapped or not (the AI SDK's providers, LangChain's models). LangChain models also register the
 * credentials they declare in `lc_secrets` when they send a request (genai/langchain-secrets.ts).
 */
import { type KeyRedactor, knownSecretValue, MAX_KNOWN_SECRETS } from "../secrets.js";
import { globalState } from "./state.js";

/**
 * Registers `value` as a known secret when it is one (a string of 8 to 4096 characters, trimmed; see
 * `knownSecretValue`); the oldest goes when the list is full. Cheap when `value` is known already. Never throws.
 */
export function rememberSecret(value: unknown): void {
  const secret = knownSecretValue(value);
  if (secret === undefined) return;
  const state = globalState();
  const current = state.knownSecrets ?? [];
  if (current.includes(secret)) return;
  // A new list, never the old one changed: see TracewireGlobal.knownSecrets.
  const next =
    current.length >= MAX_KNOWN_SECRETS ? current.slice(current.length - MAX_KNOWN_SECRETS + 1) : [...current];
  next.push(secret);
  state.knownSecrets = next;
}

/**
 * Registers the credentials an SDK client holds under `keys` (`apiKey`, `authToken`). Each is read guarded: a getter
 * that throws, or a Proxy, costs that key only, and never the wrapping of the client.
 */
export function rememberClientSecrets(client: object, keys: readonly string[]): void {
  for (const key of keys) {
    try {
      rememberSecret((client as Record<string, unknown>)[key]);
    } catch {
      // An unreadable key is one we cannot mask; the client itself is unaffected.
    }
  }
}

/** Registers the values of the variables of `env` whose name `redactor` matches (`OPENAI_API_KEY`, `DB_PASSWORD`). */
export function rememberEnvSecrets(env: Record<string, string | undefined>, redactor: KeyRedactor): void {
  if (!redactor.active) return;
  try {
    for (const name of Object.keys(env)) if (redactor.matches(name)) rememberSecret(env[name]);
  } catch {
    // An env object whose getters throw (a Proxy over a secrets manager): nothing more to register from it.
  }
}

/** Request headers that carry a credential (an `Authorization` value is registered without its scheme). */
const CREDENTIAL_HEADER = /^(?:authorization|proxy-authorization|x-api-key|x-goog-api-key|api-key)$/i;

function rememberHeader(name: unknown, value: unknown): void {
  if (typeof name !== "string" || !CREDENTIAL_HEADER.test(name) || typeof value !== "string") return;
  rememberSecret(/authorization$/i.test(name) ? value.replace(/^\S+\s+/, "") : value);
}

/**
 * Registers the credentials among request headers an SDK is given or builds (a plain record, a `Headers`, a list of
 * pairs, or the SDKs' `{values: Headers}`): a key sent in one request's own headers is masked like the client's.
 * Never throws.
 */
export function rememberHeaderSecrets(headers: unknown): void {
  try {
    if (typeof headers !== "object" || headers === null) return;
    const values = (headers as { values?: unknown }).values;
    const source = values instanceof Headers ? values : headers;
    if (source instanceof Headers) {
      for (const [name, value] of source) rememberHeader(name, value);
    } else if (Array.isArray(source)) {
      for (const pair of source) if (Array.isArray(pair)) rememberHeader(pair[0], pair[1]);
    } else for (const [name, value] of Object.entries(source)) rememberHeader(name, value);
  } catch {
    // Unreadable headers (a Proxy, a throwing getter): nothing registered from them; the request is unaffected.
  }
}
