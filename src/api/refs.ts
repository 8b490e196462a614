/**
 * The tracing service's own names, kept in one place (DESIGN §2.1): the `weave:///` ref URI scheme and the feedback
 * type names it understands. Everything else in tracewire builds refs and feedback types through this module.
 *
 * Ref shape: `weave:///{entity}/{project}/{kind}/{rest}` with kinds `call/{call_id}`, `object/{name}:{digest}`,
 * `op/{name}:{digest}` and `table/{digest}`; refs may continue with `/{edge}/{value}` pairs into the value
 * (`…/table/{digest}/id/{row_digest}`), values percent-encoded.
 */
import { ValidationError } from "../errors.js";

/** Scheme and authority of every external ref. */
export const REF_PREFIX = "weave:///";

/** The kinds of thing a ref can name. */
export type RefKind = "call" | "object" | "op" | "table";

/** A ref split into its parts. Fields that do not apply to the kind are left out. */
export interface ParsedRef {
  /** The entity (team or user) that owns the project. */
  entity: string;
  /** The project's name within the entity. */
  project: string;
  /** `entity/project`, as request bodies spell `project_id`. */
  projectId: string;
  /** What the ref names: a `call`, an `object`, an `op` or a `table`. */
  kind: RefKind;
  /** Call id (`call` refs). */
  callId?: string;
  /** Object or op name (`object`, `op` refs). */
  name?: string;
  /** Version digest or alias such as `latest` (`object`, `op`), or the table digest (`table`). */
  digest?: string;
  /** Decoded `edge/value` path segments after the main part, e.g. `["attr", "rows", "id", "abc"]`. */
  extra: string[];
}

const KINDS: ReadonlySet<string> = new Set<RefKind>(["call", "object", "op", "table"]);

/** A bad value as shown in a message: quoted when short, described when long or not a string. */
function shown(value: unknown): string {
  if (typeof value === "string")
    return value.length > 80 ? `a string of ${value.length} characters` : JSON.stringify(value);
  return value === null ? "null" : typeof value;
}

function segment(value: unknown, what: string, fn: string, extraForbidden = ""): string {
  const bad = new RegExp(`[/\\s${extraForbidden}]`);
  if (typeof value !== "string" || value === "" || bad.test(value)) {
    const rule = extraForbidden ? `without "/", "${extraForbidden}" or spaces` : `without "/" or spaces`;
    throw new ValidationError(`${fn}: ${what} must be a non-empty string ${rule}, got ${shown(value)}.`, what);
  }
  return value;
}

function projectPath(project: unknown, fn: string): string {
  if (typeof project !== "string" || !/^[^/\s]+\/[^/\s]+$/.test(project)) {
    throw new ValidationError(`${fn}: project must look like "entity/project", got ${shown(project)}.`, "project");
  }
  return project;
}

/** `weave:///{project}/call/{callId}`; `project` is `entity/project`. */
export function callRef(project: string, callId: string): string {
  return `${REF_PREFIX}${projectPath(project, "callRef")}/call/${segment(callId, "callId", "callRef")}`;
}

/** `weave:///{project}/object/{name}:{digest}`; `digest` may be an alias (default `latest`). */
export function objectRef(project: string, name: string, digest = "latest"): string {
  const fn = "objectRef";
  return `${REF_PREFIX}${projectPath(project, fn)}/object/${segment(name, "name", fn, ":")}:${segment(digest, "digest", fn, ":")}`;
}

/** `weave:///{project}/op/{name}:{digest}`; `digest` may be an alias (default `latest`). */
export function opRef(project: string, name: string, digest = "latest"): string {
  const fn = "opRef";
  return `${REF_PREFIX}${projectPath(project, fn)}/op/${segment(name, "name", fn, ":")}:${segment(digest, "digest", fn, ":")}`;
}

/** `weave:///{project}/table/{digest}`. */
export function tableRef(project: string, digest: string): string {
  return `${REF_PREFIX}${projectPath(project, "tableRef")}/table/${segment(digest, "digest", "tableRef")}`;
}

/** Splits a `weave:///` ref into its parts; throws {@link ValidationError} saying what is wrong with a bad one. */
export function parseRef(uri: string): ParsedRef {
  const fail = (why: string): never => {
    throw new ValidationError(`parseRef: ${shown(uri)} is not a valid ref: ${why}.`, "ref");
  };
  if (typeof uri !== "string") return fail("expected a string");
  if (!uri.startsWith(REF_PREFIX)) return fail(`it must start with "${REF_PREFIX}"`);
  const parts = uri.slice(REF_PREFIX.length).split("/");
  const [entity, project, kind, main, ...extra] = parts;
  if (!entity || !project) return fail("expected weave:///{entity}/{project}/{kind}/…");
  if (!kind || !KINDS.has(kind))
    return fail(`the kind must be one of call, object, op, table (got ${JSON.stringify(kind ?? "")})`);
  if (!main) return fail(`nothing follows "${kind}/"`);
  if (extra.length % 2 !== 0 || extra.some((s) => s === ""))
    return fail("the path after the main part must be edge/value pairs");
  let decoded: string[];
  try {
    decoded = extra.map((s) => decodeURIComponent(s));
  } catch {
    return fail("a path segment is not valid percent-encoding");
  }
  const base = { entity, project, projectId: `${entity}/${project}`, kind: kind as RefKind, extra: decoded };
  if (kind === "call") return { ...base, callId: main };
  if (kind === "table") return { ...base, digest: main };
  const colon = main.indexOf(":");
  if (colon <= 0 || colon === main.length - 1 || main.indexOf(":", colon + 1) !== -1) {
    return fail(`an ${kind} ref needs exactly one "name:digest"`);
  }
  return { ...base, name: main.slice(0, colon), digest: main.slice(colon + 1) };
}

/** Feedback type of an emoji reaction; payload `{emoji}`. */
export const REACTION_FEEDBACK_TYPE = "wandb.reaction.1";
/** Feedback type of a free-text note; payload `{note}`. */
export const NOTE_FEEDBACK_TYPE = "wandb.note.1";
/** Longest note the service accepts, in characters (shortest: 1). */
export const MAX_NOTE_LENGTH = 1024;

/** `wandb.annotation.<name>`: a human annotation; payload `{value}`, with `annotation_ref`. */
export function annotationFeedbackType(name: string): string {
  return `wandb.annotation.${segment(name, "name", "annotationFeedbackType")}`;
}

/** `wandb.runnable.<scorer>`: a score; payload `{output: value}`, with `runnable_ref` (the scorer's ref). */
export function runnableFeedbackType(scorer: string): string {
  return `wandb.runnable.${segment(scorer, "scorer", "runnableFeedbackType")}`;
}
