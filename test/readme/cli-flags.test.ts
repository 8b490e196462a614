/**
 * The flags of the `tracewire` bin, as its own `--help` lists them, are each described on the page that documents
 * the command (docs/local-service.md for `tracewire dev`, docs/evaluations.md for `tracewire eval`), and the flags
 * docs/configuration.md names for `tracewire dev` are the bin's. Run as users run it: the built bin.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { beforeAll, expect, it } from "vitest";
import { ROOT } from "../../scripts/markdown.mjs";

const run = promisify(execFile);
const page = (file: string) => readFileSync(join(ROOT, file), "utf8");
/** The long flags a help text lists in its Options section (`--help` and `--version` aside). */
const flagsOf = (help: string) =>
  [...help.slice(help.indexOf("Options:")).matchAll(/^\s+(?:-\w, )?(--[\w-]+)/gm)]
    .map((m) => m[1]!)
    .filter((flag) => flag !== "--help" && flag !== "--version");

let devHelp: string;
let evalHelp: string;

beforeAll(async () => {
  await run(process.execPath, [join(ROOT, "scripts/build-if-stale.mjs")], { cwd: ROOT });
  const bin = join(ROOT, "dist/cli.js");
  devHelp = (await run(process.execPath, [bin, "dev", "--help"])).stdout;
  evalHelp = (await run(process.execPath, [bin, "eval", "--help"])).stdout;
}, 300_000);

it("docs/local-service.md shows every flag of tracewire dev, and configuration.md names them", () => {
  const flags = flagsOf(devHelp);
  expect(flags.length).toBeGreaterThan(4);
  const shown = page("docs/local-service.md");
  expect(flags.filter((flag) => !shown.includes(`[${flag}`))).toEqual([]);
  const elsewhere = page("docs/configuration.md");
  const row = elsewhere.split("\n").find((line) => line.includes("| `tracewire dev` |"))!;
  expect([...row.matchAll(/`(--[\w-]+)`/g)].map((m) => m[1])).toEqual(flags);
});

it("docs/evaluations.md describes every flag of tracewire eval", () => {
  const flags = flagsOf(evalHelp);
  expect(flags.length).toBeGreaterThan(4);
  const section = page("docs/evaluations.md");
  expect(flags.filter((flag) => !section.includes(`\`${flag}`))).toEqual([]);
});
