/**
 * Routes of the local service: `METHOD /path/:param` patterns to handlers. A path known under another method is a
 * 405; an unknown path is left to the caller (which answers 404 naming it).
 */
import type { Reply, Request } from "./http.js";
import type { Store } from "./store/types.js";

/** What every handler gets besides the request. */
export interface Service {
  store: Store;
  /** Diagnostics of the service itself (never request payloads). */
  log(message: string): void;
}

export type Handler = (req: Request, service: Service) => Reply | Promise<Reply>;

interface Route {
  method: string;
  regex: RegExp;
  names: string[];
  handler: Handler;
}

export type Match =
  | { kind: "found"; handler: Handler; params: Record<string, string> }
  | { kind: "wrong-method"; allowed: string[] }
  | { kind: "unknown" };

export class Router {
  private readonly routes: Route[] = [];

  /** Adds a route; `:name` segments match one path segment each. */
  on(method: string, pattern: string, handler: Handler): this {
    const names: string[] = [];
    const source = pattern
      .split("/")
      .map((segment) => {
        if (!segment.startsWith(":")) return segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
        names.push(segment.slice(1));
        return "([^/]+)";
      })
      .join("/");
    this.routes.push({ method, regex: new RegExp(`^${source}$`), names, handler });
    return this;
  }

  match(method: string, path: string): Match {
    const allowed: string[] = [];
    for (const route of this.routes) {
      const m = route.regex.exec(path);
      if (!m) continue;
      if (route.method !== method && !(method === "HEAD" && route.method === "GET")) {
        allowed.push(route.method);
        continue;
      }
      const params: Record<string, string> = {};
      route.names.forEach((name, i) => {
        params[name] = decodeURIComponent(m[i + 1]!);
      });
      return { kind: "found", handler: route.handler, params };
    }
    return allowed.length ? { kind: "wrong-method", allowed } : { kind: "unknown" };
  }
}
