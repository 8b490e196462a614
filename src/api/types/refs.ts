/** Wire types of `/refs/read_batch`. Building and parsing refs lives in `api/refs.ts`. */

/** `/refs/read_batch`: the values behind `weave:///` refs, in order. */
export interface RefsReadBatchReq {
  refs: string[];
}
/** Answer of `POST /refs/read_batch`: the value of each ref, in the order asked. */
export interface RefsReadBatchRes {
  vals: unknown[];
}
