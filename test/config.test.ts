import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { TracingClient } from "../src/api/index.js";
import { ENV, maskSecret, resolveTransport, type ServiceSpec } from "../src/config.js";
import { VERSION } from "../src/version.js";
import { configError } from "./support/errors.js";

const KEY = "tw-live-0123456789abcdef";
const spec: ServiceSpec = { client: "TracingClient", baseUrlEnv: ENV.baseUrl, nonIdempotent: "replay" };

describe("configuration precedence", () => {
  it("explicit options win over the environment, the environment over defaults", () => {
    const env = { [ENV.baseUrl]: "https://env.example.com/traces/", [ENV.timeoutMs]: "1234", [ENV.apiKey]: KEY };
    const fromEnv = resolveTransport(spec, { env });
    expect(fromEnv.baseUrl).toBe("https://env.example.com/traces");
    expect(fromEnv.timeoutMs).toBe(1234);
    expect(fromEnv.apiKey).toBe(KEY);
    expect(fromEnv.connectTimeoutMs).toBe(10_000);
    expect(fromEnv.retry.maxAttempts).toBe(4);

    const fromOptions = resolveTransport(spec, {
      env,
      baseUrl: "https://opt.example.com",
      timeoutMs: 99,
      apiKey: "other-key-1",
    });
    expect(fromOptions.baseUrl).toBe("https://opt.example.com");
    expect(fromOptions.timeoutMs).toBe(99);
    expect(fromOptions.apiKey).toBe("other-key-1");
  });

  it("a blank environment variable counts as unset", () => {
    const t = resolveTransport(spec, { env: { [ENV.baseUrl]: "https://x.example.com", [ENV.timeoutMs]: "  " } });
    expect(t.timeoutMs).toBe(60_000);
  });

  it("reads the project from the environment and validates it", () => {
    const client = new TracingClient({ env: { [ENV.baseUrl]: "https://x.example.com", [ENV.project]: "acme/demo" } });
    expect(client.defaultProject).toBe("acme/demo");
    void client.close();
  });
});

describe("configuration errors name the setting, the bad value and what was expected", () => {
  const base = { baseUrl: "https://x.example.com", env: {} };

  it.each([
    [
      "a missing base URL",
      { env: {} },
      "baseUrl (env TRACEWIRE_BASE_URL)",
      "pass { baseUrl } or set TRACEWIRE_BASE_URL",
    ],
    [
      "a malformed URL",
      { ...base, baseUrl: "not a url" },
      "baseUrl (env TRACEWIRE_BASE_URL)",
      "absolute http:// or https:// URL",
    ],
    [
      "a non-http scheme",
      { ...base, baseUrl: "ftp://x.example.com" },
      "baseUrl (env TRACEWIRE_BASE_URL)",
      "absolute http:// or https:// URL",
    ],
    [
      "a URL with a query",
      { ...base, baseUrl: "https://x.example.com/?a=1" },
      "baseUrl (env TRACEWIRE_BASE_URL)",
      "without ?query",
    ],
    ["a negative timeout", { ...base, timeoutMs: -5 }, "timeoutMs (env TRACEWIRE_TIMEOUT_MS)", "an integer >= 1"],
    ["a fractional timeout", { ...base, timeoutMs: 1.5 }, "timeoutMs (env TRACEWIRE_TIMEOUT_MS)", "an integer >= 1"],
    [
      "a zero maxAttempts",
      { ...base, retry: { maxAttempts: 0 } },
      "retry.maxAttempts (env TRACEWIRE_MAX_ATTEMPTS)",
      "an integer >= 1",
    ],
    ["a non-boolean gzip", { ...base, gzip: "yes please" as unknown as boolean }, "gzip", "true or false"],
  ])("%s", (_name, options, setting, expected) => {
    const err = configError(() => resolveTransport(spec, options));
    expect(err.setting).toBe(setting);
    expect(err.message).toContain(setting);
    expect(err.message).toContain(expected);
  });

  it("a non-numeric environment number", () => {
    const err = configError(() => resolveTransport(spec, { ...base, env: { [ENV.timeoutMs]: "10s" } }));
    expect(err.setting).toBe("timeoutMs (env TRACEWIRE_TIMEOUT_MS)");
    expect(err.value).toBe('"10s"');
  });

  it("a project that is not entity/project", () => {
    const err = configError(() => new TracingClient({ ...base, project: "just-a-name" }));
    expect(err.setting).toBe("project (env TRACEWIRE_PROJECT)");
    expect(err.message).toContain('"just-a-name"');
    expect(err.message).toContain('"entity/project"');
  });

  it("an API key over plain http to a non-loopback host, unless allowed", () => {
    const err = configError(() =>
      resolveTransport(spec, { env: {}, baseUrl: "http://traces.example.com", apiKey: KEY }),
    );
    expect(err.message).toContain("https://");
    expect(err.message).toContain("allowInsecureHttp");
    expect(() =>
      resolveTransport(spec, { env: {}, baseUrl: "http://traces.example.com", apiKey: KEY, allowInsecureHttp: true }),
    ).not.toThrow();
    expect(() =>
      resolveTransport(spec, {
        env: { [ENV.allowInsecureHttp]: "true" },
        baseUrl: "http://traces.example.com",
        apiKey: KEY,
      }),
    ).not.toThrow();
    for (const host of ["127.0.0.1:4319", "localhost:4319", "[::1]:4319"]) {
      expect(() => resolveTransport(spec, { env: {}, baseUrl: `http://${host}`, apiKey: KEY })).not.toThrow();
    }
    // Without a key there is nothing to leak.
    expect(() => resolveTransport(spec, { env: {}, baseUrl: "http://traces.example.com" })).not.toThrow();
  });
});

describe("the API key never leaks", () => {
  it("masks it in key validation errors", () => {
    const badKey = "tw-live secret-with-space-9876";
    const err = configError(() =>
      resolveTransport(spec, { env: {}, baseUrl: "https://x.example.com", apiKey: badKey }),
    );
    expect(err.message).not.toContain("secret-with-space");
    expect(err.value).toBe(maskSecret(badKey));
    expect(maskSecret(badKey)).not.toContain("secret");
  });

  it("keeps it out of URL credential errors", () => {
    const err = configError(() => resolveTransport(spec, { env: {}, baseUrl: `https://api:${KEY}@x.example.com` }));
    expect(err.message).not.toContain(KEY);
    expect(JSON.stringify(err)).not.toContain(KEY);
  });

  it("keeps it out of insecure-transport errors and their serialised form", () => {
    const err = configError(() => resolveTransport(spec, { env: {}, baseUrl: "http://x.example.com", apiKey: KEY }));
    expect(`${err.message} ${err.stack} ${JSON.stringify(err)} ${err.value}`).not.toContain(KEY);
  });

  it("maskSecret shows at most the last four characters, and nothing of a short key", () => {
    expect(maskSecret(KEY)).toBe("****cdef");
    expect(maskSecret("abc defghi")).toBe("****");
    expect(maskSecret("0123456789abcdefghi")).toBe("****");
  });

  it.each([
    ["a non-http scheme with credentials", "ftp://api:sk-SECRET-1@x.example.com"],
    ["an unparseable URL with credentials", "https://api:sk-SECRET-1@bad host"],
    ["a key in the query string", "https://x.example.com/?api_key=sk-SECRET-1"],
    ["a password holding # (the URL does not parse)", "https://api:sk-SECRET#1@x.example.com"],
    ["a password holding ? and /", "https://api:sk/SECRET?1@x.example.com"],
    ["credentials without a scheme", "api:sk-SECRET-1@x.example.com"],
    ["a token in the fragment", "https://x.example.com/#access_token=sk-SECRET-1"],
  ])("hides secrets in a bad URL: %s", (_name, url) => {
    const err = configError(() => resolveTransport(spec, { env: {}, baseUrl: url }));
    expect(`${err.message} ${err.value}`).not.toContain("SECRET");
  });
});

describe("version", () => {
  it("VERSION matches package.json", () => {
    const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };
    expect(VERSION).toBe(pkg.version);
  });
});
