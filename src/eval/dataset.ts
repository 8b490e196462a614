/**
 * Datasets: loading the rows (an array, an iterable or async iterable, a JSONL file, `{ name, rows }`, or an
 * existing dataset ref) and publishing them as the service stores datasets — the rows as a table (`/table/create`,
 * then `/table/update` appends for big ones), a `Dataset` object pointing at it — with each row's ref
 * `…/object/<dataset>:<digest>/attr/rows/id/<row digest>`, the digest the service answered for that row.
 */
import { createReadStream } from "node:fs";
import { basename, extname } from "node:path";
import { createInterface } from "node:readline";
import { objectRef, parseRef, REF_PREFIX, tableRef } from "../api/refs.js";
import { ValidationError } from "../errors.js";
import { rowValue } from "./content.js";
import { type Publisher, safeName } from "./objects.js";
import type { DatasetSource, NamedDataset, Row } from "./types.js";

/** Rows per `/table/create` or `/table/update` request. */
const CHUNK_ROWS = 500;

/** Rows loaded in memory, before publishing. */
export interface LoadedDataset<R extends Row> {
  name: string;
  description: string | null;
  rows: R[];
  /** Set when the dataset was given as a ref: already on the service, with its row digests. */
  published?: PublishedDataset<R>;
}

/** One row as published. */
export interface PublishedRow<R extends Row> {
  index: number;
  row: R;
  digest: string;
  ref: string;
}

/** A dataset on the service. */
export interface PublishedDataset<R extends Row> {
  name: string;
  ref: string;
  rows: PublishedRow<R>[];
}

const isRowObject = (v: unknown): v is Row => v !== null && typeof v === "object" && !Array.isArray(v);

function checkRow(value: unknown, where: string): Row {
  if (!isRowObject(value)) {
    throw new ValidationError(
      `evaluate(): every dataset row must be an object of fields, but ${where} is ${Array.isArray(value) ? "an array" : value === null ? "null" : typeof value}.`,
      "dataset",
    );
  }
  return value;
}

async function readJsonl(path: string): Promise<Row[]> {
  const rows: Row[] = [];
  const lines = createInterface({ input: createReadStream(path, "utf8"), crlfDelay: Number.POSITIVE_INFINITY });
  let n = 0;
  try {
    for await (const line of lines) {
      n++;
      if (line.trim() === "") continue;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch (err) {
        throw new ValidationError(
          `evaluate(): ${path} line ${n} is not JSON (${(err as Error).message}); a JSONL dataset has one JSON object per line.`,
          "dataset",
        );
      }
      rows.push(checkRow(value, `${path} line ${n}`));
    }
  } catch (err) {
    if ((err as { code?: string }).code === "ENOENT") {
      throw new ValidationError(
        `evaluate(): dataset file ${path} does not exist (a string dataset is a JSONL file path or a weave:/// dataset ref).`,
        "dataset",
      );
    }
    throw err;
  }
  return rows;
}

async function collect<R extends Row>(source: Iterable<R> | AsyncIterable<R>): Promise<R[]> {
  const rows: R[] = [];
  let i = 0;
  for await (const row of source as AsyncIterable<R>) rows.push(checkRow(row, `row ${i++}`) as R);
  return rows;
}

/** Loads the rows of any dataset form; `evalName` names an unnamed dataset. */
export async function loadDataset<R extends Row>(
  source: DatasetSource<R> | NamedDataset<R>,
  evalName: string,
  publisher: Publisher,
): Promise<LoadedDataset<R>> {
  const fallback = safeName(`${evalName}-dataset`, "dataset");
  if (typeof source === "string") {
    if (source.startsWith(REF_PREFIX)) return readDatasetRef<R>(source, publisher);
    const name = safeName(basename(source, extname(source)), fallback);
    return { name, description: null, rows: (await readJsonl(source)) as R[] };
  }
  if (source === null || typeof source !== "object") {
    throw new ValidationError(
      `evaluate(): dataset must be an array of rows, an (async) iterable, a JSONL path, a dataset ref or { name, rows }, got ${source === null ? "null" : typeof source}.`,
      "dataset",
    );
  }
  if ("rows" in source && !Array.isArray(source)) {
    const named = source as NamedDataset<R>;
    if (typeof named.name !== "string" || named.name.trim() === "")
      throw new ValidationError("evaluate(): dataset.name must be a non-empty string.", "dataset.name");
    const inner = await loadDataset(named.rows, evalName, publisher);
    return { ...inner, name: safeName(named.name, fallback), description: named.description ?? null };
  }
  const iterable =
    Symbol.asyncIterator in (source as object) || Symbol.iterator in (source as object)
      ? (source as Iterable<R> | AsyncIterable<R>)
      : undefined;
  if (!iterable)
    throw new ValidationError(
      "evaluate(): dataset is an object that is neither iterable nor { name, rows }.",
      "dataset",
    );
  return { name: fallback, description: null, rows: await collect(iterable) };
}

/** A dataset already on the service, read back by its ref: the Dataset object, then its table's rows. */
async function readDatasetRef<R extends Row>(ref: string, publisher: Publisher): Promise<LoadedDataset<R>> {
  const parsed = parseRef(ref);
  if (parsed.kind !== "object" || parsed.extra.length > 0)
    throw new ValidationError(
      `evaluate(): ${ref} is not a dataset ref (weave:///e/p/object/<name>:<digest>).`,
      "dataset",
    );
  const { obj } = await publisher.client.objects.read({
    project_id: parsed.projectId,
    object_id: parsed.name!,
    digest: parsed.digest!,
  });
  const val = obj.val as { _type?: string; rows?: string; description?: string | null };
  if (val?._type !== "Dataset" || typeof val.rows !== "string")
    throw new ValidationError(`evaluate(): ${ref} is a ${val?._type ?? "value"}, not a Dataset.`, "dataset");
  const table = parseRef(val.rows);
  const fullRef = objectRef(parsed.projectId, parsed.name!, obj.digest);
  const rows: PublishedRow<R>[] = [];
  for await (const row of publisher.client.tables.queryStream({ project_id: table.projectId, digest: table.digest! })) {
    const index = rows.length;
    rows.push({
      index,
      row: checkRow(row.val, `row ${index}`) as R,
      digest: row.digest,
      ref: rowRef(fullRef, row.digest),
    });
  }
  return {
    name: parsed.name!,
    description: val.description ?? null,
    rows: rows.map((r) => r.row),
    published: { name: parsed.name!, ref: fullRef, rows },
  };
}

/** `…/object/<dataset>:<digest>/attr/rows/id/<row digest>`. */
export function rowRef(datasetRef: string, rowDigest: string): string {
  return `${datasetRef}/attr/rows/id/${encodeURIComponent(rowDigest)}`;
}

/** The row digest in a row ref (`…/attr/rows/id/<digest>`), or undefined for anything else. */
export function rowDigestOf(ref: unknown): string | undefined {
  if (typeof ref !== "string") return undefined;
  const at = ref.lastIndexOf("/attr/rows/id/");
  return at === -1 ? undefined : decodeURIComponent(ref.slice(at + "/attr/rows/id/".length));
}

/**
 * Publishes the rows as a table and a `Dataset` object; answers every row's digest and ref. Each row is published as
 * the inputs of `opName` (the model's) are recorded: redacted, and without content when content capture is off
 * (content.ts `rowValue`).
 */
export async function publishDataset<R extends Row>(
  loaded: LoadedDataset<R>,
  publisher: Publisher,
  opName: string,
): Promise<PublishedDataset<R>> {
  if (loaded.published) return loaded.published;
  if (loaded.rows.length === 0)
    throw new ValidationError("evaluate(): the dataset has no rows; give it at least one.", "dataset");
  const values = loaded.rows.map((row, index) => rowValue(row, index, opName));
  const { client, project } = publisher;
  const first = values.slice(0, CHUNK_ROWS);
  const created = await client.tables.create({ table: { project_id: project, rows: first } });
  let digest = created.digest;
  const digests = [...(created.row_digests ?? [])];
  for (let at = CHUNK_ROWS; at < values.length; at += CHUNK_ROWS) {
    const updates = values.slice(at, at + CHUNK_ROWS).map((row) => ({ append: { row } }));
    const updated = await client.tables.update({ project_id: project, base_digest: digest, updates });
    digest = updated.digest;
    digests.push(...(updated.updated_row_digests ?? []));
  }
  if (digests.length !== values.length) {
    // An older service that does not answer row digests: read them back.
    digests.length = 0;
    for await (const row of client.tables.queryStream({ project_id: project, digest })) digests.push(row.digest);
  }
  const datasetRef = await publisher.object(loaded.name, {
    _type: "Dataset",
    _class_name: "Dataset",
    _bases: ["Object", "BaseModel"],
    name: loaded.name,
    description: loaded.description,
    rows: tableRef(project, digest),
  });
  return {
    name: loaded.name,
    ref: datasetRef,
    rows: loaded.rows.map((row, index) => ({
      index,
      row,
      digest: digests[index]!,
      ref: rowRef(datasetRef, digests[index]!),
    })),
  };
}
