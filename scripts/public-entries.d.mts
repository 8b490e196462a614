/** Types of scripts/public-entries.mjs, for the TypeScript tests that use it. */

export interface PublicEntry {
  /** What users import: `tracewire`, `tracewire/otel`, … */
  specifier: string;
  /** The `exports` key: `.`, `./otel`, … */
  subpath: string;
  /** Absolute path of the source file the subpath is built from. */
  source: string;
  /** Whether the subpath is also built for Workers and the edge (it has a `workerd` export condition). */
  web: boolean;
}

export function publicEntries(): PublicEntry[];

/** Package names (and `name/*` subpath patterns) a bundle of tracewire leaves to the app: optional peers and next. */
export function appPackages(): string[];
