/** Wire types of the object endpoints (`/obj/*`, `/objs/*`, `/aliases`, `/tags`): versioned values. */
import type { SortBy, Timestamp } from "./common.js";

/** An object version to store. `val` is any JSON value (nested saved values replaced by their refs). */
export interface ObjSchemaForInsert {
  project_id: string;
  /** Object name; the service allows `[A-Za-z0-9_.-]`, at most 128 characters. */
  object_id: string;
  val: unknown;
  builtin_object_class?: string | null;
  expected_digest?: string | null;
}
/** Body of `POST /obj/create`: the object's id and the value of its new version. */
export interface ObjCreateReq {
  obj: ObjSchemaForInsert;
}
/** Answer of `POST /obj/create`: the new version's digest. */
export interface ObjCreateRes {
  digest: string;
  object_id?: string;
}

/** A stored object version. */
export interface ObjSchema {
  project_id: string;
  object_id: string;
  created_at: Timestamp;
  deleted_at?: Timestamp | null;
  digest: string;
  version_index: number;
  is_latest: number;
  kind: string;
  base_object_class: string | null;
  leaf_object_class?: string | null;
  val: unknown;
  wb_user_id?: string | null;
  size_bytes?: number | null;
  tags?: string[] | null;
  aliases?: string[] | null;
  [key: string]: unknown;
}

/** Body of `POST /obj/read`: the object and the version (digest or alias) to read. */
export interface ObjReadReq {
  project_id: string;
  object_id: string;
  /** A digest or an alias such as `latest`. */
  digest: string;
  metadata_only?: boolean;
  include_tags_and_aliases?: boolean;
}
/** Answer of `POST /obj/read`: the object version. */
export interface ObjReadRes {
  obj: ObjSchema;
}

/** `/obj/delete`: every version, or only `digests`. */
export interface ObjDeleteReq {
  project_id: string;
  object_id: string;
  digests?: string[];
}
/** Answer of `POST /obj/delete`: how many versions were deleted. */
export interface ObjDeleteRes {
  num_deleted: number;
  deleted_versions?: string[] | null;
  [key: string]: unknown;
}

/** Which object versions `/objs/query` returns. */
export interface ObjectVersionFilter {
  base_object_classes?: string[];
  exclude_base_object_classes?: string[];
  leaf_object_classes?: string[];
  object_ids?: string[];
  is_op?: boolean;
  latest_only?: boolean;
  tags?: string[];
  aliases?: string[];
}
/** Body of `POST /objs/query`: which object versions to read. */
export interface ObjQueryReq {
  project_id: string;
  filter?: ObjectVersionFilter;
  limit?: number;
  offset?: number;
  sort_by?: SortBy[];
  metadata_only?: boolean;
  include_storage_size?: boolean;
  include_tags_and_aliases?: boolean;
}
/** Answer of `POST /objs/query`: the matching object versions. */
export interface ObjQueryRes {
  objs: ObjSchema[];
}

/** `PUT /objs/{object_id}/aliases`: points `aliases` at the version `digest`. */
export interface ObjSetAliasesBody {
  project_id: string;
  digest: string;
  aliases: string[];
}
/** `POST /objs/{object_id}/aliases/remove`. */
export interface ObjRemoveAliasesBody {
  project_id: string;
  aliases: string[];
}
/** Body of `PUT …/versions/{digest}/tags` and `POST …/tags/remove`. */
export interface ObjTagsBody {
  project_id: string;
  tags: string[];
}

/** `GET /aliases`: every alias in use in the project. */
export interface AliasesListRes {
  aliases: string[];
  [key: string]: unknown;
}
/** `GET /tags`: every tag in use in the project. */
export interface TagsListRes {
  tags: string[];
  [key: string]: unknown;
}
