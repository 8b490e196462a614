/** Wire types of the service endpoints (`/health`, `/server_info`, `/service/projects_info`, …). */

export interface ServerInfoRes {
  min_required_weave_python_version: string;
  trace_server_version?: string;
  [key: string]: unknown;
}

/** `/service/projects_info`: maps external `entity/project` ids to the service's internal ids. */
export interface ProjectsInfoReq {
  project_ids: string[];
}
/** One project's external (`entity/project`) and internal ids. */
export interface ProjectInfo {
  external_project_id: string;
  internal_project_id: string;
  [key: string]: unknown;
}
/** Answer of `POST /service/projects_info`: one entry per project asked about. */
export type ProjectsInfoRes = ProjectInfo[];
