// The Pool class on its own. `import { Pool } from "undici"` loads undici's index, which installs undici's Agent as
// the process-wide fetch dispatcher when none is set: importing tracewire would change how the app's own `fetch`
// (and every SDK built on it) talks to the network. The deep path loads the pool and nothing global.
declare module "undici/lib/dispatcher/pool.js" {
  import type { Pool } from "undici";

  const PoolClass: typeof Pool;
  export default PoolClass;
}
