import { type CallOptions, requireBody, type WithProject } from "../base.js";
import type {
  TableCreateFromDigestsReq,
  TableCreateFromDigestsRes,
  TableCreateReq,
  TableCreateRes,
  TableQueryReq,
  TableQueryRes,
  TableQueryStatsBatchReq,
  TableQueryStatsBatchRes,
  TableQueryStatsReq,
  TableQueryStatsRes,
  TableRowSchema,
  TableUpdateReq,
  TableUpdateRes,
} from "../types/tables.js";
import { EndpointFamily } from "./family.js";

/** Tables: row lists addressed by digest (dataset rows, evaluation results). */
export class TablesApi extends EndpointFamily {
  /** `POST /table/create`: stores rows and answers the table's digest (and each row's). */
  create(req: { table: WithProject<TableCreateReq["table"]> }, options?: CallOptions): Promise<TableCreateRes> {
    const table = this.fillProject(requireBody(req, "tables.create").table, "tables.create (table)");
    return this.writeJson("/table/create", { table }, options);
  }

  /** `POST /table/create_from_digests`: a table made of rows that already exist. */
  createFromDigests(
    req: WithProject<TableCreateFromDigestsReq>,
    options?: CallOptions,
  ): Promise<TableCreateFromDigestsRes> {
    return this.writeJson("/table/create_from_digests", this.fillProject(req, "tables.createFromDigests"), options);
  }

  /** `POST /table/update`: appends, pops and inserts rows in order, answering the new table's digest. */
  update(req: WithProject<TableUpdateReq>, options?: CallOptions): Promise<TableUpdateRes> {
    return this.writeJson("/table/update", this.fillProject(req, "tables.update"), options);
  }

  /** `POST /table/query`: rows of one table, buffered in one answer. */
  query(req: WithProject<TableQueryReq>, options?: CallOptions): Promise<TableQueryRes> {
    return this.readJson("/table/query", this.fillProject(req, "tables.query"), options);
  }

  /** `POST /table/query_stream`: rows of one table yielded one by one as the NDJSON lines arrive. */
  queryStream(req: WithProject<TableQueryReq>, options?: CallOptions): AsyncGenerator<TableRowSchema> {
    const json = this.fillProject(req, "tables.queryStream");
    return this.ndjson({ method: "POST", path: "/table/query_stream", json }, options);
  }

  /** `POST /table/query_stats`: how many rows one table has. */
  queryStats(req: WithProject<TableQueryStatsReq>, options?: CallOptions): Promise<TableQueryStatsRes> {
    return this.readJson("/table/query_stats", this.fillProject(req, "tables.queryStats"), options);
  }

  /** `POST /table/query_stats_batch`: row counts (and sizes) of several tables. */
  queryStatsBatch(req: WithProject<TableQueryStatsBatchReq>, options?: CallOptions): Promise<TableQueryStatsBatchRes> {
    return this.readJson("/table/query_stats_batch", this.fillProject(req, "tables.queryStatsBatch"), options);
  }
}
