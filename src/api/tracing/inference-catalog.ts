import { encodePath, type QueryValue } from "../../http/transport.js";
import { type CallOptions, requireBody, requireString } from "../base.js";
import { EndpointFamily } from "./family.js";

/** Extra query parameters of the catalog reads, passed through as given (the service documents none). */
export type CatalogQuery = Record<string, QueryValue>;

/** Inference catalog: model and hardware listings the tracing service serves for its playground and router. */
export class InferenceCatalogApi extends EndpointFamily {
  /** `GET /inference/analysis/{provider}/models`: models of a provider with their analysis data. */
  analysisModels(provider: string, query?: CatalogQuery, options?: CallOptions): Promise<unknown> {
    const segment = encodePath(requireString(provider, "provider", "inferenceCatalog.analysisModels"));
    return this.get(`/inference/analysis/${segment}/models`, query, options);
  }

  /** `GET /inference/{vendor}/v2/hardware`: hardware offered by an inference vendor. */
  hardware(vendor: string, query?: CatalogQuery, options?: CallOptions): Promise<unknown> {
    const segment = encodePath(requireString(vendor, "vendor", "inferenceCatalog.hardware"));
    return this.get(`/inference/${segment}/v2/hardware`, query, options);
  }

  /** `GET /inference/router/{provider}/models`: models a provider serves through the service's router. */
  routerModels(provider: string, query?: CatalogQuery, options?: CallOptions): Promise<unknown> {
    const segment = encodePath(requireString(provider, "provider", "inferenceCatalog.routerModels"));
    return this.get(`/inference/router/${segment}/models`, query, options);
  }

  private get(path: string, query: CatalogQuery | undefined, options: CallOptions | undefined): Promise<unknown> {
    if (query !== undefined) requireBody(query, "inferenceCatalog query");
    return this.send({ method: "GET", path, ...(query ? { query } : {}) }, options);
  }
}
