/**
 * The tracing service's rules for one feedback record, in one place: `Call` checks them before anything is queued
 * (tracing/call.ts), and the local service answers 400 with the same words (server/routes/feedback.ts). They follow
 * the hosted service's own checks of `/feedback/create`:
 *
 * - the `wandb.` namespace is reserved: `wandb.reaction.1`, `wandb.note.1`, `wandb.annotation.<name>` and
 *   `wandb.runnable.<name>`; anything else there is refused;
 * - `wandb.reaction.1` carries `{emoji}` holding exactly one emoji; `wandb.note.1` carries `{note}` of 1–1024
 *   characters;
 * - `wandb.annotation.<name>` carries `{value}` and needs `annotation_ref`: an object ref in the same project named
 *   `<name>` (the annotation spec);
 * - `wandb.runnable.<name>` carries `{output}` and needs `runnable_ref`: an op or object ref named `<name>` (the
 *   scorer); a scorer that is an op also needs `call_ref`, the ref of the scorer's own call;
 * - other types carry none of `annotation_ref`, `runnable_ref`, `call_ref`, `trigger_ref`.
 *
 * The hosted service also checks an annotation's value against its stored spec; the local service keeps no
 * objects, so neither it nor the client can.
 */
import { ValidationError } from "../errors.js";
import { MAX_NOTE_LENGTH, NOTE_FEEDBACK_TYPE, type ParsedRef, parseRef, REACTION_FEEDBACK_TYPE } from "./refs.js";

/** Prefix of human annotation types: `wandb.annotation.<name>`. */
export const ANNOTATION_TYPE_PREFIX = "wandb.annotation.";
/** Prefix of score types: `wandb.runnable.<scorer>`. */
export const RUNNABLE_TYPE_PREFIX = "wandb.runnable.";

/** The fields of a feedback record the rules read (a `FeedbackCreateReq`, or the body `Call` is about to queue). */
export interface FeedbackFields {
  project_id: string;
  feedback_type: string;
  payload: Record<string, unknown>;
  annotation_ref?: string | null | undefined;
  runnable_ref?: string | null | undefined;
  call_ref?: string | null | undefined;
  trigger_ref?: string | null | undefined;
}

/** `<name>` of `wandb.annotation.<name>`, or undefined for another type. */
export function annotationName(type: string): string | undefined {
  return type.startsWith(ANNOTATION_TYPE_PREFIX) ? type.slice(ANNOTATION_TYPE_PREFIX.length) : undefined;
}

/** `<name>` of `wandb.runnable.<name>`, or undefined for another type. */
export function runnableName(type: string): string | undefined {
  return type.startsWith(RUNNABLE_TYPE_PREFIX) ? type.slice(RUNNABLE_TYPE_PREFIX.length) : undefined;
}

// One emoji: a fully qualified sequence (flags, skin tones, ZWJ families, keycaps) or a single pictograph (the
// service also counts "❤" without its variation selector). Built at run time: the `v` flag is newer than our target.
// Built on first use, not at import: building the emoji sets costs ~15 ms of CPU, which every process importing
// `tracewire` would otherwise pay at start-up, whether it ever sends a reaction or not.
const UNICODE_SETS: string = "gv";
let emoji: RegExp | undefined;

/** How many emoji `text` holds. */
export function countEmoji(text: string): number {
  emoji ??= new RegExp("\\p{RGI_Emoji}|\\p{Extended_Pictographic}\\uFE0F?|\\p{Emoji_Presentation}", UNICODE_SETS);
  return text.match(emoji)?.length ?? 0;
}

function fail(param: string, rule: string): never {
  throw new ValidationError(rule, param);
}

function present(value: string | null | undefined): value is string {
  return value !== undefined && value !== null && value !== "";
}

/** Parses a ref field; a malformed one, or one of another kind, breaks the rule named. */
function refOf(value: string, param: string, kinds: ParsedRef["kind"][], what: string): ParsedRef {
  let ref: ParsedRef;
  try {
    ref = parseRef(value);
  } catch (err) {
    return fail(param, `${param} must be ${what}: ${(err as Error).message}`);
  }
  if (!kinds.includes(ref.kind)) fail(param, `${param} must be ${what}, got a ${ref.kind} ref (${value}).`);
  return ref;
}

/**
 * Checks one feedback record against the service's rules (module comment). Throws {@link ValidationError} whose
 * message states the rule broken and whose `param` names the field.
 */
export function checkFeedback(req: FeedbackFields): void {
  const type = req.feedback_type;
  const { payload } = req;
  const annotation = annotationName(type);
  const runnable = runnableName(type);
  if (type.startsWith("wandb.") && type !== REACTION_FEEDBACK_TYPE && type !== NOTE_FEEDBACK_TYPE) {
    if ((annotation === undefined && runnable === undefined) || annotation === "" || runnable === "") {
      fail(
        "feedback_type",
        `feedback_type ${JSON.stringify(type)} is in the reserved wandb. namespace, which holds only ${REACTION_FEEDBACK_TYPE}, ${NOTE_FEEDBACK_TYPE}, ${ANNOTATION_TYPE_PREFIX}<name> and ${RUNNABLE_TYPE_PREFIX}<name>: use another prefix for custom types.`,
      );
    }
  }

  if (type === REACTION_FEEDBACK_TYPE) {
    const emoji = payload.emoji;
    if (typeof emoji !== "string" || countEmoji(emoji) !== 1) {
      fail("payload.emoji", `${REACTION_FEEDBACK_TYPE} needs payload {emoji} holding exactly one emoji.`);
    }
  }
  if (type === NOTE_FEEDBACK_TYPE) {
    const note = payload.note;
    if (typeof note !== "string" || note.length < 1 || note.length > MAX_NOTE_LENGTH) {
      fail("payload.note", `${NOTE_FEEDBACK_TYPE} needs payload {note} of 1 to ${MAX_NOTE_LENGTH} characters.`);
    }
  }

  if (annotation !== undefined) {
    if (!present(req.annotation_ref)) fail("annotation_ref", "annotation_ref is required for annotation feedback.");
    const ref = refOf(req.annotation_ref, "annotation_ref", ["object"], "an object ref (the annotation spec)");
    if (ref.name !== annotation)
      fail("annotation_ref", `annotation_ref must point to an object named ${annotation}, got ${ref.name}.`);
    if (ref.projectId !== req.project_id)
      fail("annotation_ref", `annotation_ref ${req.annotation_ref} is not in project ${req.project_id}.`);
    if (!("value" in payload)) fail("payload.value", `${type} needs payload {value}.`);
  } else if (present(req.annotation_ref)) {
    fail("annotation_ref", "annotation_ref is only allowed for annotation feedback (wandb.annotation.<name>).");
  }

  if (runnable !== undefined) {
    if (!present(req.runnable_ref)) fail("runnable_ref", "runnable_ref is required for runnable feedback.");
    const ref = refOf(req.runnable_ref, "runnable_ref", ["op", "object"], "an op or object ref (the scorer)");
    if (ref.name !== runnable)
      fail("runnable_ref", `runnable_ref must point to an op or object named ${runnable}, got ${ref.name}.`);
    if (ref.kind === "op" && !present(req.call_ref))
      fail("call_ref", "call_ref is required for runnable feedback on ops (the ref of the scorer's own call).");
    if (!("output" in payload)) fail("payload.output", `${type} needs payload {output}.`);
  } else {
    for (const param of ["runnable_ref", "call_ref", "trigger_ref"] as const) {
      if (present(req[param])) fail(param, `${param} is only allowed for runnable feedback (wandb.runnable.<name>).`);
    }
  }
  if (present(req.call_ref)) refOf(req.call_ref, "call_ref", ["call"], "a call ref");
  if (present(req.trigger_ref)) refOf(req.trigger_ref, "trigger_ref", ["object"], "an object ref");
}
