import { ValidationError } from "../../errors.js";
import type { CallOptions } from "../base.js";
import type { JsonObject } from "../types/common.js";
import type { ProjectsInfoReq, ProjectsInfoRes, ServerInfoRes } from "../types/service.js";
import { EndpointFamily } from "./family.js";

/** Service: liveness, versions and project metadata of the tracing service. */
export class ServiceApi extends EndpointFamily {
  /** `GET /health`: answers when the service is up and the key is accepted (the body is not documented). */
  health(options?: CallOptions): Promise<unknown> {
    return this.send({ method: "GET", path: "/health" }, options);
  }

  /** `GET /version`: the service's version (the body is not documented). */
  version(options?: CallOptions): Promise<unknown> {
    return this.send({ method: "GET", path: "/version" }, options);
  }

  /** `GET /server_info`: the service's version and the oldest client it supports. */
  serverInfo(options?: CallOptions): Promise<ServerInfoRes> {
    return this.send({ method: "GET", path: "/server_info" }, options);
  }

  /** `GET /geolocate`: where the service places the caller. */
  geolocate(options?: CallOptions): Promise<JsonObject> {
    return this.send({ method: "GET", path: "/geolocate" }, options);
  }

  /** `POST /service/projects_info`: internal ids of `entity/project` ids. */
  projectsInfo(req: ProjectsInfoReq, options?: CallOptions): Promise<ProjectsInfoRes> {
    if (!Array.isArray(req?.project_ids)) {
      throw new ValidationError(
        "service.projectsInfo: project_ids must be an array of entity/project ids.",
        "project_ids",
      );
    }
    return this.readJson("/service/projects_info", req, options);
  }
}
