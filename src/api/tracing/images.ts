import type { CallOptions, WithProject } from "../base.js";
import type { ImageGenerationCreateReq, ImageGenerationCreateRes } from "../types/images.js";
import { EndpointFamily } from "./family.js";

/** Images: image generation run (and traced) by the service with the project's provider keys. */
export class ImagesApi extends EndpointFamily {
  /** `POST /image/create`: generates images; `weave_call_id` names the call that recorded it. */
  create(req: WithProject<ImageGenerationCreateReq>, options?: CallOptions): Promise<ImageGenerationCreateRes> {
    return this.createJson("/image/create", this.fillProject(req, "images.create"), options);
  }
}
