/**
 * Next's control-flow "errors": `redirect()` / `permanentRedirect()` and `notFound()` / `forbidden()` /
 * `unauthorized()` from `next/navigation` throw an error whose `digest` tells Next what to answer. They are how a
 * handler or server action ends, not failures: the call records the answer they stand for. Read from the digest
 * (the format Next 15 and 16 share), without loading `next`: this module is bundled into edge builds too.
 */

/** What a control-flow error stands for, as the call's output; undefined for any other error. */
export function controlFlowOutput(error: unknown): Record<string, unknown> | undefined {
  if (error === null || typeof error !== "object") return undefined;
  const digest = (error as { digest?: unknown }).digest;
  if (typeof digest !== "string") return undefined;
  const parts = digest.split(";");
  // `NEXT_REDIRECT;<push|replace>;<url>;<status>;` — the URL may itself hold ";".
  if (parts[0] === "NEXT_REDIRECT" && parts.length >= 5) {
    const status = Number(parts.at(-2));
    const url = parts.slice(2, -2).join(";");
    // Without its query and fragment: a redirect's query often carries tokens (an OAuth callback's `code`).
    return { redirect: url.split(/[?#]/, 1)[0], ...(Number.isInteger(status) ? { status } : {}) };
  }
  // `NEXT_HTTP_ERROR_FALLBACK;<404|403|401>` (Next 15.1+), and `NEXT_NOT_FOUND` (Next 15.0).
  if (parts[0] === "NEXT_HTTP_ERROR_FALLBACK") {
    const status = Number(parts[1]);
    return Number.isInteger(status) ? { status } : undefined;
  }
  if (digest === "NEXT_NOT_FOUND") return { status: 404 };
  return undefined;
}
