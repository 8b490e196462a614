/** Wire types of the file endpoints (`/file/*`, `/files/*`): content-addressed blobs. */

/**
 * `/file/create` (sent as multipart/form-data). `file` is the content: bytes, or a string sent as UTF-8.
 * `filename` names the part (the service stores the digest, the name helps content-type sniffing).
 */
export interface FileCreateReq {
  project_id: string;
  file: Uint8Array | string;
  filename: string;
  /** Content type of the file part (default `application/octet-stream`). */
  content_type?: string;
  /** The service refuses the upload when the content's digest differs. */
  expected_digest?: string;
}
/** Answer of `POST /file/create`: the uploaded file's digest. */
export interface FileCreateRes {
  digest: string;
}

/** `/file/content`: answers with the raw bytes. */
export interface FileContentReadReq {
  project_id: string;
  digest: string;
}

/** Body of `POST /files/query_stats` (only the project). */
export interface FilesStatsReq {
  project_id: string;
}
/** Answer of `POST /files/query_stats`: the total size of the project's files. */
export interface FilesStatsRes {
  total_size_bytes: number;
}
