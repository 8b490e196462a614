import { type ApiError, apiErrorClass, type RequestInfo } from "../errors.js";

const MAX_MESSAGE_CHARS = 1000;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function clip(text: string): string {
  return text.length > MAX_MESSAGE_CHARS ? `${text.slice(0, MAX_MESSAGE_CHARS)}… (${text.length} chars)` : text;
}

/** `{"detail": [{loc, msg}]}` → `body.start.op_name: field required; …` (FastAPI's 422 shape). */
function describeDetail(detail: unknown): string | undefined {
  if (typeof detail === "string") return detail;
  if (!Array.isArray(detail)) return undefined;
  const parts = detail.map((item) => {
    if (!isRecord(item)) return JSON.stringify(item);
    const loc = Array.isArray(item.loc) ? item.loc.join(".") : undefined;
    const msg = typeof item.msg === "string" ? item.msg : JSON.stringify(item);
    return loc ? `${loc}: ${msg}` : msg;
  });
  return parts.length > 0 ? parts.join("; ") : undefined;
}

/**
 * Turns every error body shape the three services use into one readable sentence:
 * - tracing service: `{"reason": "…", "error_code"?: "…"}`
 * - validation (FastAPI): `{"detail": [{loc, msg, type}]}` or `{"detail": "…"}`
 * - OpenAI-compatible engines (new): `{"error": {message, type, param, code}}`
 * - OpenAI-compatible engines (old, flat): `{"object": "error", message, type, param, code}`
 * - anything else: `{"message": "…"}`, or the text itself.
 */
export function describeErrorBody(body: unknown): string | undefined {
  if (typeof body === "string") return body.trim() ? clip(body.trim()) : undefined;
  if (!isRecord(body)) return undefined;
  if (typeof body.reason === "string") {
    return clip(typeof body.error_code === "string" ? `${body.reason} (${body.error_code})` : body.reason);
  }
  const detail = describeDetail(body.detail);
  if (detail) return clip(detail);
  const inner = isRecord(body.error) ? body.error : typeof body.error === "string" ? { message: body.error } : body;
  if (typeof inner.message === "string") {
    const param = typeof inner.param === "string" && inner.param ? ` (param: ${inner.param})` : "";
    return clip(`${inner.message}${param}`);
  }
  return undefined;
}

/** The HTTP status an OpenAI-compatible error object carries in `code` (vLLM puts the integer status there). */
export function statusFromErrorObject(error: unknown): number | undefined {
  if (!isRecord(error)) return undefined;
  const code = error.code;
  return typeof code === "number" && code >= 400 && code < 600 ? code : undefined;
}

const REQUEST_ID_HEADERS = ["x-request-id", "request-id", "x-amzn-requestid"];

/** Builds the typed {@link ApiError} for a response: subclass by status, readable message, request id. */
export function makeApiError(
  status: number | undefined,
  body: unknown,
  request: RequestInfo,
  headers: Record<string, string> = {},
): ApiError {
  const location = headers.location;
  const described =
    status !== undefined && status >= 300 && status < 400
      ? `redirect${location ? ` to ${location.split("?")[0]}` : ""}: point the base URL at the final address`
      : (describeErrorBody(body) ?? "(no error message in the response body)");
  const prefix = status === undefined ? "" : `${status} `;
  const requestId = REQUEST_ID_HEADERS.map((h) => headers[h]).find((v) => v !== undefined);
  const ErrorClass = apiErrorClass(status);
  return new ErrorClass(status, `${prefix}${described} [${request.method} ${request.path}]`, request, {
    body,
    headers,
    ...(requestId === undefined ? {} : { requestId }),
  });
}
