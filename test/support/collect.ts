/** Reads a whole async iterable (a stream, an NDJSON reader, a paged list) with `for await`. */
export async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}
