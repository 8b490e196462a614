/**
 * A `multipart/form-data` body (RFC 7578) built once, as one Buffer, so a retry resends identical bytes. The
 * boundary is random and checked against the content, so no part can contain it.
 */
import { randomBytes } from "node:crypto";

/** One form field: a text value, or a file with a name and content type. */
export type FormPart =
  | { name: string; value: string }
  | { name: string; filename: string; content: Uint8Array | string; contentType?: string };

export interface MultipartBody {
  body: Buffer;
  /** `multipart/form-data; boundary=…` */
  contentType: string;
}

/** Quotes a header parameter value the way browsers do for form data: `"`, CR and LF percent-encoded. */
function quote(value: string): string {
  return `"${value.replace(/"/g, "%22").replace(/\r/g, "%0D").replace(/\n/g, "%0A")}"`;
}

export function buildMultipart(parts: FormPart[]): MultipartBody {
  const contents = parts.map((part) =>
    "filename" in part
      ? typeof part.content === "string"
        ? Buffer.from(part.content, "utf8")
        : Buffer.from(part.content.buffer, part.content.byteOffset, part.content.byteLength)
      : Buffer.from(part.value, "utf8"),
  );
  let boundary: string;
  do boundary = `tracewire-${randomBytes(16).toString("hex")}`;
  while (contents.some((content) => content.includes(boundary)));

  const chunks: Buffer[] = [];
  parts.forEach((part, i) => {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name=${quote(part.name)}`;
    if ("filename" in part) {
      // CR/LF would let a content type smuggle extra part headers.
      const type = (part.contentType ?? "application/octet-stream").replace(/[\r\n]/g, "");
      head += `; filename=${quote(part.filename)}\r\nContent-Type: ${type}`;
    }
    chunks.push(Buffer.from(`${head}\r\n\r\n`, "utf8"), contents[i]!, Buffer.from("\r\n"));
  });
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}
