/**
 * An esbuild plugin for the builds that target runtimes without Node (tsup.config.ts, and the tests that bundle the
 * sources for the edge): where `foo.ts` has a sibling `foo.<suffix>.ts`, a relative import of `./foo.js` resolves to
 * the sibling instead (the first suffix that exists). That is how the Workers and edge builds leave undici and OTel's
 * async-hooks context manager out, and how the Workers build gets `cloudflare:workers`' `waitUntil`.
 */
import { existsSync } from "node:fs";
import path from "node:path";

/**
 * @param {string[]} suffixes e.g. `["workerd", "edge"]`
 * @returns {import("esbuild").Plugin}
 */
export function runtimeVariants(suffixes) {
  return {
    name: "tracewire-runtime-variants",
    setup(build) {
      build.onResolve({ filter: /^\.\.?\/.*\.js$/ }, (args) => {
        const base = path.resolve(args.resolveDir, args.path.slice(0, -".js".length));
        for (const suffix of suffixes) {
          const variant = `${base}.${suffix}.ts`;
          if (existsSync(variant)) return { path: variant };
        }
        return undefined;
      });
    },
  };
}
