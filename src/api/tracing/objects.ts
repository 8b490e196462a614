import { encodePath } from "../../http/transport.js";
import { type CallOptions, requireBody, requireString, type WithProject } from "../base.js";
import type { EmptyResponse } from "../types/common.js";
import type {
  AliasesListRes,
  ObjCreateReq,
  ObjCreateRes,
  ObjDeleteReq,
  ObjDeleteRes,
  ObjQueryReq,
  ObjQueryRes,
  ObjReadReq,
  ObjReadRes,
  ObjRemoveAliasesBody,
  ObjSetAliasesBody,
  ObjTagsBody,
  TagsListRes,
} from "../types/objects.js";
import { EndpointFamily } from "./family.js";

/** Objects: versioned values (datasets, models, prompts, ops) with aliases and tags. */
export class ObjectsApi extends EndpointFamily {
  /** `GET /aliases?project_id=`: every alias in use in the project. */
  aliases(req: { project_id?: string } = {}, options?: CallOptions): Promise<AliasesListRes> {
    const { project_id } = this.fillProject(req, "objects.aliases");
    return this.send({ method: "GET", path: "/aliases", query: { project_id } }, options);
  }

  /** `GET /tags?project_id=`: every tag in use in the project. */
  tags(req: { project_id?: string } = {}, options?: CallOptions): Promise<TagsListRes> {
    const { project_id } = this.fillProject(req, "objects.tags");
    return this.send({ method: "GET", path: "/tags", query: { project_id } }, options);
  }

  /** `POST /obj/create`: stores a new version of an object and answers its digest. */
  create(req: { obj: WithProject<ObjCreateReq["obj"]> }, options?: CallOptions): Promise<ObjCreateRes> {
    const obj = this.fillProject(requireBody(req, "objects.create").obj, "objects.create (obj)");
    return this.writeJson("/obj/create", { obj }, options);
  }

  /** `POST /obj/read`: one version by digest or alias (`latest`). */
  read(req: WithProject<ObjReadReq>, options?: CallOptions): Promise<ObjReadRes> {
    return this.readJson("/obj/read", this.fillProject(req, "objects.read"), options);
  }

  /** `POST /obj/delete`: deletes every version of an object, or only `digests`. */
  delete(req: WithProject<ObjDeleteReq>, options?: CallOptions): Promise<ObjDeleteRes> {
    return this.writeJson("/obj/delete", this.fillProject(req, "objects.delete"), options);
  }

  /** `POST /objs/query`: object versions matching a filter. */
  query(req: WithProject<ObjQueryReq>, options?: CallOptions): Promise<ObjQueryRes> {
    return this.readJson("/objs/query", this.fillProject(req, "objects.query"), options);
  }

  /** `PUT /objs/{object_id}/aliases`: points `aliases` at the version `digest`. */
  setAliases(objectId: string, req: WithProject<ObjSetAliasesBody>, options?: CallOptions): Promise<EmptyResponse> {
    const json = this.fillProject(req, "objects.setAliases");
    return this.send({ method: "PUT", path: `${this.objPath(objectId, "objects.setAliases")}/aliases`, json }, options);
  }

  /** `POST /objs/{object_id}/aliases/remove`: detaches `aliases` from the object. */
  removeAliases(
    objectId: string,
    req: WithProject<ObjRemoveAliasesBody>,
    options?: CallOptions,
  ): Promise<EmptyResponse> {
    const json = this.fillProject(req, "objects.removeAliases");
    return this.writeJson(`${this.objPath(objectId, "objects.removeAliases")}/aliases/remove`, json, options);
  }

  /** `PUT /objs/{object_id}/versions/{digest}/tags`: adds `tags` to one version. */
  addTags(
    objectId: string,
    digest: string,
    req: WithProject<ObjTagsBody>,
    options?: CallOptions,
  ): Promise<EmptyResponse> {
    const json = this.fillProject(req, "objects.addTags");
    const path = `${this.versionPath(objectId, digest, "objects.addTags")}/tags`;
    return this.send({ method: "PUT", path, json }, options);
  }

  /** `POST /objs/{object_id}/versions/{digest}/tags/remove`: removes `tags` from one version. */
  removeTags(
    objectId: string,
    digest: string,
    req: WithProject<ObjTagsBody>,
    options?: CallOptions,
  ): Promise<EmptyResponse> {
    const json = this.fillProject(req, "objects.removeTags");
    return this.writeJson(`${this.versionPath(objectId, digest, "objects.removeTags")}/tags/remove`, json, options);
  }

  private objPath(objectId: string, method: string): string {
    return `/objs/${encodePath(requireString(objectId, "object_id", method))}`;
  }

  private versionPath(objectId: string, digest: string, method: string): string {
    return `${this.objPath(objectId, method)}/versions/${encodePath(requireString(digest, "digest", method))}`;
  }
}
