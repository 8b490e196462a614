import { ValidationError } from "../../errors.js";
import { type CallOptions, requireString, type WithProject, withCall } from "../base.js";
import type { FileContentReadReq, FileCreateReq, FileCreateRes, FilesStatsReq, FilesStatsRes } from "../types/files.js";
import { EndpointFamily } from "./family.js";
import { buildMultipart, type FormPart } from "./multipart.js";

/** Files: content-addressed blobs (images, audio, op source) referenced from object values by digest. */
export class FilesApi extends EndpointFamily {
  /**
   * `POST /file/create`: uploads one file as multipart/form-data (`project_id`, `file`, `expected_digest?`) and
   * answers its digest. The body is built once, so a retry resends the same bytes.
   */
  create(req: WithProject<FileCreateReq>, options?: CallOptions): Promise<FileCreateRes> {
    const method = "files.create";
    const { project_id } = this.fillProject(req, method);
    const filename = requireString(req.filename, "filename", method);
    if (typeof req.file !== "string" && !(req.file instanceof Uint8Array)) {
      throw new ValidationError(
        `${method}: file must be a Uint8Array, Buffer or string, got ${typeof req.file}.`,
        "file",
      );
    }
    const parts: FormPart[] = [
      { name: "project_id", value: project_id },
      {
        name: "file",
        filename,
        content: req.file,
        ...(req.content_type ? { contentType: req.content_type } : {}),
      },
    ];
    if (req.expected_digest !== undefined) {
      parts.push({ name: "expected_digest", value: requireString(req.expected_digest, "expected_digest", method) });
    }
    const { body, contentType } = buildMultipart(parts);
    return this.send({ method: "POST", path: "/file/create", body, contentType, gzip: false }, options);
  }

  /** `POST /file/content`: the raw bytes of the file with `digest`. */
  content(req: WithProject<FileContentReadReq>, options?: CallOptions): Promise<Buffer> {
    const json = this.fillProject(req, "files.content");
    requireString(json.digest, "digest", "files.content");
    return this.context.transport.bytes(
      withCall({ method: "POST", path: "/file/content", json, idempotent: true }, options),
    );
  }

  /** `POST /files/query_stats`: total size of the project's files. */
  queryStats(req: WithProject<FilesStatsReq> = {}, options?: CallOptions): Promise<FilesStatsRes> {
    return this.readJson("/files/query_stats", this.fillProject(req, "files.queryStats"), options);
  }
}
