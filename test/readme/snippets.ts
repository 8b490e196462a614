/**
 * Code blocks of README.md and docs/**\/*.md as tests run them: found by the file and heading they sit under,
 * their imports checked against the real modules (each imported name must exist), and the rest run verbatim as the
 * body of an async function (TypeScript annotations stripped, nothing else changed).
 *
 * Every ```ts / ```js block of those pages is either run by a test through {@link docBlock} / {@link readmeBlock}
 * (with literal arguments, so test/readme/snippets.test.ts can see which blocks are run) or marked
 * `<!-- snippet: no-run (why) -->` on the line before it, and then only parsed for syntax.
 */
import ts from "typescript";
import { CODE_LANGS, docFiles, parseMarkdown, readDoc } from "../../scripts/markdown.mjs";
import { publicEntries } from "../../scripts/public-entries.mjs";

/** One code block of a docs page, and how tests name it: `docBlock(file, heading, nth)`. */
export interface Snippet {
  /** The page, relative to the repository root (`README.md`, `docs/otel.md`). */
  file: string;
  /** The heading line the block sits under, as written (`### Feedback and scores`; `""` above the first heading). */
  heading: string;
  /** Which block under that heading (1-based, counting only ts/js blocks). */
  nth: number;
  /** The line of the opening fence. */
  line: number;
  lang: string;
  code: string;
  /** The reason of a `<!-- snippet: no-run (…) -->` marker, when the block has one. */
  noRun: string | undefined;
  /** A `<!-- snippet: … -->` line before the block that is not a valid marker. */
  badMarker: string | undefined;
}

/** The ts/js blocks of one page (`file` relative to the root), or of every docs page. */
export function snippets(file?: string): Snippet[] {
  return (file === undefined ? docFiles() : [file]).flatMap((page) => snippetsOf(page, readDoc(page)));
}

/** The ts/js blocks of the Markdown `text` of the page `file`. */
export function snippetsOf(file: string, text: string): Snippet[] {
  const counts = new Map<string, number>();
  const out: Snippet[] = [];
  for (const block of parseMarkdown(text).blocks) {
    if (!CODE_LANGS.has(block.lang)) continue;
    const nth = (counts.get(block.heading) ?? 0) + 1;
    counts.set(block.heading, nth);
    out.push({
      file,
      heading: block.heading,
      nth,
      line: block.line,
      lang: block.lang,
      code: block.code,
      noRun: block.marker,
      badMarker: block.markerError,
    });
  }
  return out;
}

/** `file:line` of a snippet, for messages. */
export function where(snippet: Snippet): string {
  return `${snippet.file}:${snippet.line}`;
}

/**
 * The `nth` ts/js block (1-based) under the heading line `heading` (e.g. `"### Feedback and scores"`) of the page
 * `file` (relative to the repository root). Throws when there is none, or when it is marked no-run.
 */
export function docBlock(file: string, heading: string, nth = 1): string {
  const page = snippets(file);
  const found = page.find((s) => s.heading === heading && s.nth === nth);
  if (!found) {
    const count = page.filter((s) => s.heading === heading).length;
    throw new Error(
      count
        ? `${file} has ${count} ts/js block(s) under ${JSON.stringify(heading)}, not ${nth}`
        : `${file} has no ts/js block under a heading ${JSON.stringify(heading)}`,
    );
  }
  if (found.noRun !== undefined) {
    throw new Error(`${where(found)} is marked no-run (${found.noRun}): remove the marker to run it in a test`);
  }
  return found.code;
}

/** {@link docBlock} of README.md. */
export function readmeBlock(heading: string, nth = 1): string {
  return docBlock("README.md", heading, nth);
}

const EXTENSIONS: Record<string, string> = { typescript: "ts", javascript: "js" };

/** Transpiles a block to plain JavaScript (names and code kept as written), with its syntax errors. */
function transpile(code: string, fileName: string): { output: string; errors: { line: number; message: string }[] } {
  const result = ts.transpileModule(code, {
    fileName,
    reportDiagnostics: true,
    compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, allowJs: true },
  });
  const errors = (result.diagnostics ?? []).map((d) => ({
    line: d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : 0,
    message: ts.flattenDiagnosticMessageText(d.messageText, " "),
  }));
  return { output: result.outputText, errors };
}

/**
 * Parses a snippet as its language with TypeScript's parser (a ts block as TypeScript, a js block as JavaScript,
 * where TypeScript-only syntax is an error too); throws with the line and the parser's message when it does not parse.
 */
export function checkSyntax(snippet: Snippet): void {
  const extension = EXTENSIONS[snippet.lang] ?? snippet.lang;
  let errors: { line: number; message: string }[];
  if (extension === "ts" || extension === "tsx") {
    // The parser alone (no program): a fraction of transpileModule's cost, and all a TypeScript block needs.
    const kind = extension === "ts" ? ts.ScriptKind.TS : ts.ScriptKind.TSX;
    const file = ts.createSourceFile(`snippet.${extension}`, snippet.code, ts.ScriptTarget.Latest, true, kind);
    const diagnostics = (file as unknown as { parseDiagnostics: ts.DiagnosticWithLocation[] }).parseDiagnostics;
    errors = diagnostics.map((d) => ({
      line: file.getLineAndCharacterOfPosition(d.start).line + 1,
      message: ts.flattenDiagnosticMessageText(d.messageText, " "),
    }));
  } else {
    errors = transpile(snippet.code, `snippet.${extension}`).errors;
  }
  if (errors.length) {
    const [first] = errors;
    throw new Error(
      `${snippet.file}:${snippet.line + first!.line}: ${first!.message} (in the ${snippet.lang} block at line ${snippet.line})`,
    );
  }
}

type AsyncFunctionConstructor = new (...args: string[]) => (...values: unknown[]) => Promise<unknown>;
const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as AsyncFunctionConstructor;

const IDENT = "[A-Za-z_$][\\w$]*";
const IMPORT = /^import\s+([\s\S]*?)\s*from\s*"([^"]+)";?[ \t]*$/gm;
/** `export { a, b as c } from "x";` (a re-export, as Next's `instrumentation.ts` writes `register`). */
const REEXPORT = /^export\s*\{([^}]*)\}\s*from\s*"([^"]+)";?[ \t]*$/gm;
/** The `export` keyword of a top-level declaration (an app file's `export const POST = …`). */
const EXPORTED = /^export\s+(?=(?:const|let|var|class|async\s+function|function)\b)/gm;
const CLAUSE = new RegExp(`^(?:(${IDENT})\\s*(?:,\\s*)?)?(?:\\*\\s*as\\s+(${IDENT}))?\\s*(?:\\{([^}]*)\\})?$`);

/** The names a block declares at its top level (column 0): what {@link runBlock} hands back. */
function topLevelNames(code: string): string[] {
  const names = new Set<string>();
  for (const m of code.matchAll(
    new RegExp(`^(?:const|let|var|class|(?:async\\s+)?function\\*?)\\s+(${IDENT})`, "gm"),
  )) {
    names.add(m[1]!);
  }
  for (const m of code.matchAll(/^(?:const|let|var)\s+[{[]([^}\]=]*)[}\]]\s*=/gm)) {
    for (const part of m[1]!.split(",")) {
      const name = part.split(":").pop()!.trim();
      if (new RegExp(`^${IDENT}$`).test(name)) names.add(name);
    }
  }
  return [...names];
}

const entrySources = new Map(publicEntries().map((entry) => [entry.specifier, entry.source]));

/** A module a block imports: from `modules` when the test supplied it, tracewire's own from src/, else installed. */
async function load(from: string, modules: Record<string, object>): Promise<Record<string, unknown>> {
  if (from in modules) return modules[from] as Record<string, unknown>;
  const source = entrySources.get(from);
  return (await import(/* @vite-ignore */ source ?? from)) as Record<string, unknown>;
}

/**
 * Runs a block verbatim as the body of an async function, and resolves with the values of the names it declares at
 * its top level (`const message = …` → `{ message }`), for the test to check.
 *
 * - An app file's exports run as what they declare: `export const POST = …` as `const POST = …`, and
 *   `export { register } from "x"` as `import { register } from "x"` that also hands `register` back.
 * - `import … from "x"` lines (default, namespace and named imports; `import type` is dropped) bind the real
 *   module's exports, each checked to exist: `modules[x]` when the test passes one (e.g. a module it already
 *   loaded), tracewire's own subpaths from src/ (every `exports` entry), anything else as installed.
 * - A dynamic `import("x")` loads the same module a static import of `x` would.
 * - `scope` supplies the names the block uses without defining them (`client`, `messages`, a stubbed `console`).
 * - Type annotations are stripped (TypeScript's `transpileModule`); everything else runs as written.
 */
export async function runBlock(
  block: string,
  scope: Record<string, unknown> = {},
  modules: Record<string, object> = {},
): Promise<Record<string, unknown>> {
  const bound: Record<string, unknown> = { ...scope };
  const imports: [clause: string, from: string][] = [];
  const reexported: string[] = [];
  const body = block
    .replace(REEXPORT, (_line, names: string, from: string) => {
      imports.push([`{${names}}`, from]);
      for (const item of names.split(",").map((n) => n.trim())) {
        if (item) reexported.push(item.split(/\s+as\s+/).pop()!);
      }
      return "";
    })
    .replace(IMPORT, (_line, clause: string, from: string) => {
      imports.push([clause, from]);
      return "";
    })
    .replace(EXPORTED, "");
  if (/^\s*import[\s{*"]/m.test(body)) throw new Error(`Snippet has an import this runner cannot read:\n${block}`);
  if (/^\s*export\b/m.test(body)) throw new Error(`Snippet has an export this runner cannot read:\n${block}`);
  for (const [clause, from] of imports) {
    if (/^type\s/.test(clause)) continue;
    const parts = CLAUSE.exec(clause.trim());
    if (!parts) throw new Error(`Snippet has an import this runner cannot read: import ${clause} from "${from}"`);
    const [, defaultName, namespace, named] = parts;
    const module = await load(from, modules);
    if (defaultName) {
      if (module.default === undefined) throw new Error(`Snippet imports a default from "${from}", which has none`);
      bound[defaultName] = module.default;
    }
    if (namespace) bound[namespace] = module;
    for (const item of (named ?? "").split(",").map((n) => n.trim())) {
      if (!item || item.startsWith("type ")) continue;
      const [imported, local = imported] = item.split(/\s+as\s+/) as [string, string?];
      if (!(imported in module))
        throw new Error(`Snippet imports ${imported} from "${from}", which does not export it`);
      bound[local] = module[imported];
    }
  }
  // `await import("x")` (code that loads a module on one runtime only): the same modules as a static import. A
  // Function body has no module to resolve a dynamic import against, so it goes through `load()`.
  bound.__snippetImport = (from: string) => load(from, modules);
  const { output: transpiled, errors } = transpile(body, "snippet.ts");
  const output = transpiled.replace(/\bimport\(/g, "__snippetImport(");
  if (errors.length)
    throw new Error(`Snippet does not parse (line ${errors[0]!.line}: ${errors[0]!.message}):\n${block}`);
  const names = [...new Set([...topLevelNames(body), ...reexported])];
  const fn = new AsyncFunction(...Object.keys(bound), `${output}\nreturn { ${names.join(", ")} };`);
  return (await fn(...Object.values(bound))) as Record<string, unknown>;
}

/**
 * Runs `fn` with the environment variables in `values` set (an `undefined` value unsets one), then puts every one of
 * them back: for blocks that are configured, as users configure them, from the environment.
 */
export async function withEnv<T>(values: Record<string, string | undefined>, fn: () => Promise<T>): Promise<T> {
  const saved = Object.keys(values).map((name) => [name, process.env[name]] as const);
  const set = (name: string, value: string | undefined) => {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  };
  for (const [name, value] of Object.entries(values)) set(name, value);
  try {
    return await fn();
  } finally {
    for (const [name, value] of saved) set(name, value);
  }
}
