/** Service endpoints (`/health`, `/version`, `/server_info`), the viewer page, and its project list. */
import type { ServerInfoRes } from "../../api/types/service.js";
import { VERSION } from "../../version.js";
import type { Router } from "../router.js";
import { viewerPage } from "../viewer/page.js";

/** Version string the local service reports. */
export const SERVICE_VERSION = `tracewire-dev/${VERSION}`;

export function serviceRoutes(router: Router): void {
  router.on("GET", "/health", () => ({ json: { status: "ok" } }));
  router.on("GET", "/version", () => ({ json: SERVICE_VERSION }));
  router.on("GET", "/server_info", () => {
    const info: ServerInfoRes = { min_required_weave_python_version: "0.0.0", trace_server_version: SERVICE_VERSION };
    return { json: info };
  });
  router.on("GET", "/", () => ({ html: viewerPage() }));
  // The one endpoint the service does not have: the viewer's project picker (the service knows projects from
  // the account; the local service only from the data it holds).
  router.on("GET", "/local/projects", (_req, { store }) => ({ json: { projects: store.projects() } }));
}
