// The Pool class and the request API on their own. `import { Pool } from "undici"` loads undici's index, which
// installs undici's Agent as the process-wide fetch dispatcher when none is set: importing tracewire would change how
// the app's own `fetch` (and every SDK built on it) talks to the network. The deep paths load nothing global — but
// also skip the index's `Object.assign(Dispatcher.prototype, api)`, so `request` is called with the pool as `this`.
declare module "undici/lib/dispatcher/pool.js" {
  import type { Pool } from "undici";

  const PoolClass: typeof Pool;
  export default PoolClass;
}

declare module "undici/lib/api/api-request.js" {
  import type { Dispatcher } from "undici";

  const request: (this: Dispatcher, options: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>;
  export default request;
}
