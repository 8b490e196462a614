/**
 * The API reference (`npm run docs`): TypeDoc over every public subpath of package.json `exports` (the entry files
 * come from scripts/public-entries.mjs, so a new subpath is documented without editing this file), written to
 * docs/api/ (git-ignored). Any warning fails the build: a public name without a doc comment, an entry file without
 * its `@module` name (both checked by scripts/typedoc-plugin.mjs), or a `{@link}` that does not resolve.
 */
import { publicEntries } from "./scripts/public-entries.mjs";

/** @type {Partial<import("typedoc").TypeDocOptions>} */
export default {
  entryPoints: publicEntries().map((entry) => entry.source),
  tsconfig: "tsconfig.json",
  out: "docs/api",
  readme: "none",
  plugin: ["./scripts/typedoc-plugin.mjs"],
  // notDocumented is scripts/typedoc-plugin.mjs's check (TypeDoc's own cannot exempt the wire types' fields).
  validation: { notExported: false, notDocumented: false, invalidLink: true, rewrittenLink: true },
  treatWarningsAsErrors: true,
  treatValidationWarningsAsErrors: true,
  excludePrivate: true,
  // Protected members are the endpoint families' plumbing, for tracewire's own subclasses only.
  excludeProtected: true,
  excludeInternal: true,
  sort: ["kind", "instance-first", "alphabetical-ignoring-documents"],
  // No source links: they need a GitHub remote, which a local clone or CI checkout may not have (a warning, so an error).
  disableSources: true,
};
