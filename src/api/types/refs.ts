/** Wire types of `/refs/read_batch`. Building and parsing refs lives in `api/refs.ts`. */

/** `/refs/read_batch`: the values behind `weave:///` refs, in order. */
export interface RefsReadBatchReq {
  refs: string[];
}
export interface RefsReadBatchRes {
  vals: unknown[];
}
