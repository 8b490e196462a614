/**
 * Every ```ts / ```js block of README.md and docs/**\/*.md is either run by a test or marked as not runnable:
 *
 * - run: some file under test/ calls `readmeBlock(heading, n?)` or `docBlock(file, heading, n?)` with literal
 *   arguments naming it (the runner, test/readme/snippets.ts, throws at run time if that block is gone);
 * - not runnable: the last non-blank line before its fence is `<!-- snippet: no-run (why) -->`.
 *
 * Both kinds are parsed for syntax here. A new unmarked block that no test runs fails this file, and so does a
 * marked one that a test does run, a malformed marker, a reference to a block that does not exist, and a reference
 * this check cannot read (a variable instead of a literal).
 *
 * Running a block strips its types: test/readme/snippet-types.test.ts type-checks the ts blocks.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../../scripts/markdown.mjs";
import { checkSyntax, runBlock, type Snippet, snippets, snippetsOf, where } from "./snippets.js";

const TEST_DIR = join(ROOT, "test");
/** The runner and this check name the functions without calling them on a block. */
const SKIP = new Set([join(TEST_DIR, "readme", "snippets.ts"), join(TEST_DIR, "readme", "snippets.test.ts")]);

/** A block a test runs, as its call names it. */
interface Reference {
  at: string;
  file: string;
  heading: string;
  nth: number;
}

/** Reads one JavaScript string literal ("…", '…' or `…` without `${`) at `text[i]`: [value, end] or undefined. */
function stringAt(text: string, i: number): [string, number] | undefined {
  const quote = text[i];
  if (quote !== '"' && quote !== "'" && quote !== "`") return undefined;
  let j = i + 1;
  let value = "";
  while (j < text.length && text[j] !== quote) {
    if (text[j] === "\\") {
      value += JSON.parse(`"${text.slice(j, j + 2)}"`);
      j += 2;
    } else if (quote === "`" && text.startsWith("${", j)) {
      return undefined;
    } else {
      value += text[j++];
    }
  }
  return j < text.length ? [value, j + 1] : undefined;
}

/** The `readmeBlock(…)` / `docBlock(…)` calls in the source `text` of `file`; unreadable ones as problems. */
function referencesIn(file: string, text: string, refs: Reference[], problems: string[]): void {
  for (const call of text.matchAll(/\b(readmeBlock|docBlock)\s*\(/g)) {
    const at = `${file}:${text.slice(0, call.index).split("\n").length}`;
    const args: (string | number)[] = [];
    let i = call.index + call[0].length;
    for (;;) {
      while (/\s/.test(text[i] ?? "")) i++;
      if (text[i] === ")") break;
      const str = stringAt(text, i);
      const num = /^\d+/.exec(text.slice(i));
      if (str) {
        args.push(str[0]);
        i = str[1];
      } else if (num) {
        args.push(Number(num[0]));
        i += num[0].length;
      } else break;
      while (/\s/.test(text[i] ?? "")) i++;
      if (text[i] === ",") i++;
    }
    const [a, b, c] = args;
    const readme = call[1] === "readmeBlock";
    const ok =
      text[i] === ")" &&
      (readme
        ? typeof a === "string" && (b === undefined || typeof b === "number") && c === undefined
        : typeof a === "string" && typeof b === "string" && (c === undefined || typeof c === "number"));
    if (!ok) problems.push(`${at}: ${call[1]}(…) must name its block with literal arguments (strings, not variables)`);
    else if (readme) refs.push({ at, file: "README.md", heading: a as string, nth: (b as number | undefined) ?? 1 });
    else refs.push({ at, file: a as string, heading: b as string, nth: (c as number | undefined) ?? 1 });
  }
}

const key = (s: { file: string; heading: string; nth: number }) => `${s.file}\n${s.heading}\n${s.nth}`;
const label = (s: Snippet) => `${where(s)} (${s.heading || "top of page"}${s.nth > 1 ? `, block ${s.nth}` : ""})`;

/** Everything wrong with how `all` blocks are marked and run by `refs`; `[]` when every block is accounted for. */
function markingProblems(all: Snippet[], refs: Reference[]): string[] {
  const problems: string[] = [];
  const runBy = new Map<string, string[]>();
  for (const ref of refs) runBy.set(key(ref), [...(runBy.get(key(ref)) ?? []), ref.at]);
  for (const s of all) {
    const tests = runBy.get(key(s));
    if (s.badMarker) {
      problems.push(`${label(s)}: "${s.badMarker}" is not a marker; write <!-- snippet: no-run (why) -->`);
    } else if (s.noRun !== undefined && tests) {
      problems.push(`${label(s)}: marked no-run but run by ${tests.join(", ")}; remove the marker`);
    } else if (s.noRun === undefined && !tests) {
      problems.push(
        `${label(s)}: no test runs it — run it with docBlock("${s.file}", ${JSON.stringify(s.heading)}` +
          `${s.nth > 1 ? `, ${s.nth}` : ""}) in a test, or mark it <!-- snippet: no-run (why) -->`,
      );
    }
  }
  const known = new Set(all.map(key));
  for (const ref of refs) {
    if (!known.has(key(ref))) {
      problems.push(`${ref.at}: ${ref.file} has no ts/js block ${ref.nth} under ${JSON.stringify(ref.heading)}`);
    }
  }
  return problems;
}

/** Every test file's references to docs blocks. */
function testReferences(): { refs: Reference[]; problems: string[] } {
  const refs: Reference[] = [];
  const problems: string[] = [];
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? walk(join(dir, e.name)) : /\.[cm]?[jt]s$/.test(e.name) ? [join(dir, e.name)] : [],
    );
  for (const path of walk(TEST_DIR)) {
    if (!SKIP.has(path)) referencesIn(relative(ROOT, path), readFileSync(path, "utf8"), refs, problems);
  }
  return { refs, problems };
}

describe("README.md and docs/ snippets", () => {
  const all = snippets();
  const { refs, problems } = testReferences();

  it("finds the blocks of README.md and docs/, and the tests that run them", () => {
    expect(all.filter((s) => s.file === "README.md").length).toBeGreaterThan(0);
    expect(all.filter((s) => s.file.startsWith("docs/")).length).toBeGreaterThan(10);
    expect(refs.length).toBeGreaterThan(10);
  });

  it("every ts/js block is run by a test or marked no-run (never both), and every block a test names exists", () => {
    expect([...problems, ...markingProblems(all, refs)]).toEqual([]);
  });

  it("every block parses", () => {
    const failures: string[] = [];
    for (const s of all) {
      try {
        checkSyntax(s);
      } catch (error) {
        failures.push((error as Error).message);
      }
    }
    expect(failures).toEqual([]);
  });
});

describe("the snippet check itself", () => {
  const page = [
    "# Page",
    "```ts",
    "run();",
    "```",
    "## Deploy",
    "<!-- snippet: no-run (a deployment config) -->",
    "",
    "```js",
    "module.exports = {};",
    "```",
    "<!-- snippet: no run -->",
    "```ts",
    "other();",
    "```",
    "```sh",
    "npm test",
    "```",
  ].join("\n");
  const blocks = snippetsOf("docs/page.md", page);

  it("reads blocks, headings, block numbers and markers", () => {
    expect(blocks.map((b) => [b.heading, b.nth, b.lang, b.line, b.noRun, b.badMarker])).toEqual([
      ["# Page", 1, "ts", 2, undefined, undefined],
      ["## Deploy", 1, "js", 8, "a deployment config", undefined],
      ["## Deploy", 2, "ts", 12, undefined, "<!-- snippet: no run -->"],
    ]);
  });

  it("reports an unmarked block no test runs, a marked block a test runs, a bad marker and a stale reference", () => {
    const refs: Reference[] = [];
    const unreadable: string[] = [];
    const source = [
      'docBlock("docs/page.md", "## Deploy");',
      "docBlock('docs/page.md', `# Gone`, 2);",
      "readmeBlock(heading);",
    ].join("\n");
    referencesIn("test/x.test.ts", source, refs, unreadable);
    expect(unreadable).toEqual([
      "test/x.test.ts:3: readmeBlock(…) must name its block with literal arguments (strings, not variables)",
    ]);
    const found = markingProblems(blocks, refs);
    expect(found).toHaveLength(4);
    expect(found[0]).toMatch(/^docs\/page\.md:2 \(# Page\): no test runs it/);
    expect(found[1]).toMatch(/^docs\/page\.md:8 .*marked no-run but run by test\/x\.test\.ts:1/);
    expect(found[2]).toMatch(/^docs\/page\.md:12 .*is not a marker/);
    expect(found[3]).toBe('test/x.test.ts:2: docs/page.md has no ts/js block 2 under "# Gone"');
    refs.splice(0, refs.length, { at: "t:1", file: "docs/page.md", heading: "# Page", nth: 1 });
    expect(markingProblems(blocks.slice(0, 2), refs)).toEqual([]);
  });

  it("reports a syntax error with its line, TypeScript syntax in a js block included", () => {
    const [ts, js] = snippetsOf(
      "docs/s.md",
      "# S\n```ts\nconst a: number = 1;\nfoo(;\n```\n```js\nlet b: string;\n```\n",
    );
    expect(() => checkSyntax(ts!)).toThrow(/^docs\/s\.md:4: /);
    expect(() => checkSyntax(js!)).toThrow(/^docs\/s\.md:7: .*TypeScript/);
  });

  it("runs a block with its imports bound and checked, and hands back what it declares", async () => {
    const block = [
      'import EventEmitter from "node:events";',
      'import { op as traced, type Op } from "tracewire";',
      'import * as ai from "tracewire/ai";',
      "const kind: string = typeof EventEmitter;",
      "const { a, b: bee } = { a: 1, b: 2 };",
      "async function named(x: string) { return x; }",
      "const wrapped = traced(async function inner(n: number) { return n; });",
    ].join("\n");
    const declared = await runBlock(block);
    expect(declared).toMatchObject({ kind: "function", a: 1, bee: 2 });
    expect((declared.named as () => void).name).toBe("named");
    expect(typeof declared.wrapped).toBe("function");
    await expect(runBlock('import { nope } from "tracewire";')).rejects.toThrow(/imports nope from "tracewire"/);
    await expect(runBlock('import "tracewire";')).rejects.toThrow(/cannot read/);
    const app = await runBlock('export { register } from "tracewire/next";\nexport const GET = async () => 1;');
    expect(typeof app.register).toBe("function");
    expect(await (app.GET as () => Promise<number>)()).toBe(1);
    await expect(runBlock("export default 1;")).rejects.toThrow(/an export this runner cannot read/);
  });
});
