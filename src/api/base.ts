/**
 * What every service client shares: the transport, the default project, per-call options and the small helpers
 * that turn a method call into one {@link RequestOptions}.
 */
import { ValidationError } from "../errors.js";
import { readNdjson } from "../http/ndjson.js";
import type { HttpTransport, RequestOptions } from "../http/transport.js";

/** Options accepted by every client method. */
export interface CallOptions {
  /** Abort the request (and any stream it returns). */
  signal?: AbortSignal;
  /** Overrides the client's deadline for this call, in ms. */
  timeoutMs?: number;
  /** Extra headers for this call. */
  headers?: Record<string, string>;
}

/** A request body whose `project_id` may be left out when the client was given a default project. */
export type WithProject<T extends { project_id: string }> = Omit<T, "project_id"> & { project_id?: string };

/** The state a group of endpoint methods needs. */
export interface ServiceContext {
  readonly transport: HttpTransport;
  /** Default `entity/project` filled into request bodies that omit `project_id`. */
  readonly project: string | undefined;
}

/** Merges per-call options into a request. */
export function withCall(request: RequestOptions, options: CallOptions | undefined): RequestOptions {
  if (!options) return request;
  return {
    ...request,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.headers ? { headers: { ...request.headers, ...options.headers } } : {}),
  };
}

/** Fills `project_id` from the client's default, or says clearly that one is needed. */
export function withProject<T extends { project_id?: string }>(
  context: ServiceContext,
  body: T,
  method: string,
): T & { project_id: string } {
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    throw new ValidationError(`${method} expects a request object, got ${body === null ? "null" : typeof body}.`);
  }
  const project = body.project_id ?? context.project;
  if (project === undefined) {
    throw new ValidationError(
      `${method} needs a project: pass project_id ("entity/project") or give the client a project (option project / env TRACEWIRE_PROJECT).`,
      "project_id",
    );
  }
  if (typeof project !== "string" || !/^[^/\s]+\/[^/\s]+$/.test(project)) {
    throw new ValidationError(
      `${method}: project_id must look like "entity/project", got ${JSON.stringify(project)}.`,
      "project_id",
    );
  }
  return { ...body, project_id: project };
}

/** Requires a non-empty string argument (ids, names, digests). */
export function requireString(value: unknown, name: string, method: string): string {
  if (typeof value !== "string" || value.trim() === "") {
    throw new ValidationError(`${method}: ${name} must be a non-empty string, got ${JSON.stringify(value)}.`, name);
  }
  return value;
}

/**
 * An NDJSON endpoint as an async iterable. Nothing is sent until iteration starts; each object is yielded as its
 * line arrives; breaking out of the loop closes the connection.
 */
export async function* ndjsonRequest<T>(transport: HttpTransport, request: RequestOptions): AsyncGenerator<T> {
  const response = await transport.stream({ ...request, headers: { accept: "application/jsonl", ...request.headers } });
  yield* readNdjson<T>(response.body);
}
