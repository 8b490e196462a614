import { type ClientOptions, ENV, envOf, readProject, resolveTransport } from "../../config.js";
import { HttpTransport } from "../../http/transport.js";
import { describeAs } from "../../own-objects.js";
import { checkClientOptions, type ServiceContext } from "../base.js";
import { AnnotationQueuesApi } from "./annotation-queues.js";
import { CallsApi } from "./calls.js";
import { CostsApi } from "./costs.js";
import { EvaluationsApi } from "./evaluations.js";
import { FeedbackApi } from "./feedback.js";
import { FilesApi } from "./files.js";
import { ImagesApi } from "./images.js";
import { InferenceCatalogApi } from "./inference-catalog.js";
import { ObjectsApi } from "./objects.js";
import { OtelApi } from "./otel.js";
import { ProjectScope } from "./project.js";
import { RefsApi } from "./refs.js";
import { ServiceApi } from "./service.js";
import { TablesApi } from "./tables.js";
import { ThreadsApi } from "./threads.js";

/** Options of {@link TracingClient}. */
export interface TracingClientOptions extends ClientOptions {
  /** Default `entity/project` for request bodies that omit `project_id`. Env: `TRACEWIRE_PROJECT`. */
  project?: string;
}

/**
 * Typed client for every endpoint of the tracing service, grouped by family (`client.calls.start(...)`,
 * `client.feedback.create(...)`, …) plus project-scoped v2 resources (`client.project("acme", "demo")`).
 *
 * Retries: connection failures, 408, 429, 502, 503 and 504 are retried for reads and for writes keyed by
 * client-chosen ids (calls, renames), where a replay is harmless; 500 only for reads. Creates whose id the service
 * assigns (feedback without `id`, scores, predictions, evaluation runs, costs, images, queues) are retried only
 * when the service cannot have acted on them: the connection never opened, or it answered 429 or 503.
 */
export class TracingClient {
  /**
   * `entity/project` used when a request omits `project_id` (option `project` / env `TRACEWIRE_PROJECT`). Named
   * `defaultProject` because `project(entity, project)` opens a project's v2 resources.
   */
  readonly defaultProject: string | undefined;
  /** Calls: write path, reads, queries, usage, scoring. */
  readonly calls: CallsApi;
  /** Costs: per-model token prices joined on usage. */
  readonly costs: CostsApi;
  /** Feedback: reactions, notes, annotations and scores on calls and objects. */
  readonly feedback: FeedbackApi;
  /** Files: content-addressed blobs (multipart upload, raw download). */
  readonly files: FilesApi;
  /** Objects: versioned values with aliases and tags. */
  readonly objects: ObjectsApi;
  /** OTel: raw OTLP/HTTP export of encoded spans. */
  readonly otel: OtelApi;
  /** Refs: the values behind `weave:///` refs. */
  readonly refs: RefsApi;
  /** Tables: row lists addressed by digest. */
  readonly tables: TablesApi;
  /** Threads: conversations and their turn statistics. */
  readonly threads: ThreadsApi;
  /** Images: image generation run and traced by the service. */
  readonly images: ImagesApi;
  /** Evaluations run by the service itself. */
  readonly evaluations: EvaluationsApi;
  /** Service: health, versions, project metadata. */
  readonly service: ServiceApi;
  /** Inference catalog: model and hardware listings. */
  readonly inferenceCatalog: InferenceCatalogApi;
  /** Annotation queues: calls queued for human review. */
  readonly annotationQueues: AnnotationQueuesApi;
  private readonly transport: HttpTransport;
  private readonly context: ServiceContext;

  constructor(options: TracingClientOptions = {}) {
    checkClientOptions("TracingClient", options);
    const transportOptions = resolveTransport(
      { client: "TracingClient", baseUrlEnv: ENV.baseUrl, nonIdempotent: "replay" },
      options,
    );
    this.defaultProject = readProject("project", ENV.project, options.project, envOf(options.env));
    this.transport = new HttpTransport(transportOptions);
    const context: ServiceContext = { transport: this.transport, project: this.defaultProject };
    this.context = context;
    this.calls = new CallsApi(context);
    this.costs = new CostsApi(context);
    this.feedback = new FeedbackApi(context);
    this.files = new FilesApi(context);
    this.objects = new ObjectsApi(context);
    this.otel = new OtelApi(context);
    this.refs = new RefsApi(context);
    this.tables = new TablesApi(context);
    this.threads = new ThreadsApi(context);
    this.images = new ImagesApi(context);
    this.evaluations = new EvaluationsApi(context);
    this.service = new ServiceApi(context);
    this.inferenceCatalog = new InferenceCatalogApi(context);
    this.annotationQueues = new AnnotationQueuesApi(context);
  }

  /**
   * The project-scoped v2 resources of `entity/project` (`/v2/{entity}/{project}/…`): ops, datasets, scorers,
   * models, evaluations, evaluation runs, predictions, scores and evaluation results.
   */
  project(entity: string, project: string): ProjectScope {
    return new ProjectScope(this.context, entity, project);
  }

  /**
   * Closes the client's connections. Requests in flight get their answers first; a response stream still open is
   * ended (reading it then throws a `ConnectionError` saying the client was closed), so read streams to their end
   * before closing. Requests made after `close()` fail at once.
   */
  close(): Promise<void> {
    return this.transport.close();
  }
}

// Recorded, logged or inspected as a short summary: nothing inside it (keys, queues, buffers) is ever read.
describeAs(TracingClient, "TracingClient");
