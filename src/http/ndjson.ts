import { ProtocolError } from "../errors.js";

/** A single line longer than this many characters is refused rather than buffered without end. */
export const MAX_NDJSON_LINE_CHARS = 64 * 1024 * 1024;

/**
 * Reads newline-delimited JSON as it arrives: yields each object as soon as its line is complete, never holding
 * more than one partial line. Handles lines split across chunks, `\r\n`, blank lines and a last line without a
 * newline. A malformed line throws {@link ProtocolError} naming its 1-based line number.
 */
export async function* readNdjson<T = unknown>(body: AsyncIterable<Uint8Array>): AsyncGenerator<T> {
  const decoder = new TextDecoder("utf-8");
  let pending = "";
  let lineNumber = 0;

  const parse = (raw: string): T | undefined => {
    lineNumber++;
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (line.trim() === "") return undefined;
    try {
      return JSON.parse(line) as T;
    } catch (err) {
      const preview = line.length > 80 ? `${line.slice(0, 80)}…` : line;
      throw new ProtocolError(
        `Malformed NDJSON at line ${lineNumber}: ${(err as Error).message} (line starts: ${JSON.stringify(preview)})`,
        lineNumber,
      );
    }
  };

  for await (const chunk of body) {
    pending += decoder.decode(chunk, { stream: true });
    let start = 0;
    for (let newline = pending.indexOf("\n"); newline !== -1; newline = pending.indexOf("\n", start)) {
      const value = parse(pending.slice(start, newline));
      start = newline + 1;
      if (value !== undefined) yield value;
    }
    pending = pending.slice(start);
    if (pending.length > MAX_NDJSON_LINE_CHARS) {
      throw new ProtocolError(
        `NDJSON line ${lineNumber + 1} exceeds ${MAX_NDJSON_LINE_CHARS} characters.`,
        lineNumber + 1,
      );
    }
  }
  pending += decoder.decode();
  const last = parse(pending);
  if (last !== undefined) yield last;
}
