/**
 * dist/THIRD_PARTY_NOTICES.md: the packages the Node build bundles (tsup.config.ts `bundledOtel`), each with its
 * version, licence and copyright line, and the licence text they share — what Apache-2.0 §4 asks of a work that
 * redistributes them. Fails the build if one of them is not Apache-2.0, so a licence change is seen, not shipped.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const require = createRequire(import.meta.url);

/** The folder of package `name` (some export no `./package.json`): up from its resolved entry. */
function packageRoot(name) {
  for (let dir = dirname(require.resolve(name)); dir !== dirname(dir); dir = dirname(dir)) {
    const file = join(dir, "package.json");
    if (existsSync(file) && JSON.parse(readFileSync(file, "utf8")).name === name) return dir;
  }
  throw new Error(`no package.json of ${name} above ${require.resolve(name)}`);
}

/** Writes `${dir}/THIRD_PARTY_NOTICES.md` for `packages`. */
export function writeNotices(dir, packages) {
  let licenseText;
  const rows = packages.map((name) => {
    const root = packageRoot(name);
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
    if (pkg.license !== "Apache-2.0") {
      throw new Error(`${name} ${pkg.version} is ${pkg.license}, not Apache-2.0: review before bundling it`);
    }
    licenseText ??= readFileSync(join(root, "LICENSE"), "utf8");
    const author = typeof pkg.author === "string" ? pkg.author : (pkg.author?.name ?? "the OpenTelemetry Authors");
    return `| ${name} | ${pkg.version} | ${pkg.license} | ${author} | ${pkg.homepage ?? pkg.repository?.url ?? ""} |`;
  });
  writeFileSync(
    join(dir, "THIRD_PARTY_NOTICES.md"),
    [
      "# Third-party notices",
      "",
      "tracewire's Node build (`dist/*.js`, `dist/*.cjs`) includes code of these packages, bundled and tree-shaken:",
      "",
      "| package | version | licence | copyright | source |",
      "| --- | --- | --- | --- | --- |",
      ...rows,
      "",
      "They are distributed under the Apache License, Version 2.0:",
      "",
      "```",
      licenseText.trimEnd(),
      "```",
      "",
    ].join("\n"),
  );
}
