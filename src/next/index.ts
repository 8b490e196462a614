/**
 * `tracewire/next`: Next.js integration. `register()` and the route-handler wrapper arrive with the Next.js
 * issue; until then this entry exports only its version marker so the subpath resolves.
 */
export { VERSION } from "../version.js";
