/**
 * A `multipart/form-data` body (RFC 7578) built once, as one byte array, so a retry resends identical bytes. The
 * boundary is random and checked against the content, so no part can contain it.
 */
import { concatBytes, indexOfBytes } from "../../runtime.js";

/** One form field: a text value, or a file with a name and content type. */
export type FormPart =
  | { name: string; value: string }
  | { name: string; filename: string; content: Uint8Array | string; contentType?: string };

export interface MultipartBody {
  body: Uint8Array;
  /** `multipart/form-data; boundary=…` */
  contentType: string;
}

/** Quotes a header parameter value the way browsers do for form data: `"`, CR and LF percent-encoded. */
function quote(value: string): string {
  return `"${value.replace(/"/g, "%22").replace(/\r/g, "%0D").replace(/\n/g, "%0A")}"`;
}

const encoder = new TextEncoder();

/** 16 random bytes as hex (Web Crypto: every runtime has it, and it is only asked when a body is built). */
function randomHex(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

export function buildMultipart(parts: FormPart[]): MultipartBody {
  const contents = parts.map((part) =>
    "filename" in part
      ? typeof part.content === "string"
        ? encoder.encode(part.content)
        : new Uint8Array(part.content.buffer, part.content.byteOffset, part.content.byteLength)
      : encoder.encode(part.value),
  );
  let boundary: string;
  do boundary = `tracewire-${randomHex()}`;
  while (contents.some((content) => indexOfBytes(content, encoder.encode(boundary)) >= 0));

  const chunks: Uint8Array[] = [];
  parts.forEach((part, i) => {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name=${quote(part.name)}`;
    if ("filename" in part) {
      // CR/LF would let a content type smuggle extra part headers.
      const type = (part.contentType ?? "application/octet-stream").replace(/[\r\n]/g, "");
      head += `; filename=${quote(part.filename)}\r\nContent-Type: ${type}`;
    }
    chunks.push(encoder.encode(`${head}\r\n\r\n`), contents[i]!, encoder.encode("\r\n"));
  });
  chunks.push(encoder.encode(`--${boundary}--\r\n`));
  return { body: concatBytes(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}
