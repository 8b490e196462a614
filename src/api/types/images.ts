/** Wire types of `/image/create`: image generation proxied (and traced) by the service. */

export interface ImageGenerationRequestInputs {
  model: string;
  prompt: string;
  n?: number;
  /** Further provider parameters (`size`, `quality`, …) pass through. */
  [key: string]: unknown;
}
/** Body of `POST /image/create`: the image request and the call that records it. */
export interface ImageGenerationCreateReq {
  project_id: string;
  inputs: ImageGenerationRequestInputs;
  /** Record the generation as a call (service default true). */
  track_llm_call?: boolean;
}
/** Answer of `POST /image/create`: the provider's answer, and the call that recorded it. */
export interface ImageGenerationCreateRes {
  /** The provider's answer as returned. */
  response: unknown;
  /** Id of the call that recorded it, when tracked. */
  weave_call_id?: string | null;
}
