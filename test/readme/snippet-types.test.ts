/**
 * Every ```ts block of README.md and docs/**\/*.md type-checks as a TypeScript user who copies it would compile it.
 *
 * The runner (test/readme/snippets.ts) strips a block's types before running it, so a block with an option or a
 * method the types do not have, or an argument of the wrong type, runs and passes there while `tsc` fails on it in
 * the user's project. Here each ts block (run by a test or marked no-run alike; js blocks are not type-checked) is
 * written as its own module under .test-tmp/snippet-types/, next to a tsconfig.json that extends the project's
 * (`strict`, `noUncheckedIndexedAccess`, NodeNext, ES2022: top-level `await` allowed), and one compiler program
 * checks them all. `tracewire` and its subpaths resolve to src/ through `paths` (no build needed);
 * `TRACEWIRE_SNIPPET_TYPES=dist` resolves them as users do instead, through the package's `exports` to the built
 * dist/*.d.ts (run `npm run build` first). The other packages (`openai`, `@anthropic-ai/sdk`, …) are the installed
 * ones. To see the errors in an editor: `npx tsc -p .test-tmp/snippet-types` after a run.
 *
 * Blocks are fragments: the names the prose around them defines (`client`, `messages`, …) are declared in
 * {@link PRELUDES}, per page and name, and appended to a block that uses the name without declaring it.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../../scripts/markdown.mjs";
import { publicEntries } from "../../scripts/public-entries.mjs";
import { type Snippet, snippets } from "./snippets.js";

/** The fence languages checked here (js blocks are for JavaScript users: nothing to type-check). */
const TYPED: Record<string, string> = { ts: "ts", typescript: "ts", tsx: "tsx" };

/**
 * The names a page's prose gives its blocks, as declarations, per page and name: appended to each block of the page
 * that uses the name without declaring it. As few as the blocks need, each typed as the page describes it (never
 * `any`; tracewire's own types for tracewire's names). A name no block of its page uses free is an error.
 */
const PRELUDES: Record<string, Record<string, string>> = {
  "docs/agent-frameworks.md": {
    // "tools: yours, as for any agent"
    tools: 'declare const tools: import("@openai/agents").Tool[];',
    // "graph: yours, e.g. a compiled LangGraph StateGraph" (one is a Runnable of the graph's state)
    graph:
      'declare const graph: import("@langchain/core/runnables").Runnable<' +
      '{ messages: import("@langchain/core/messages").BaseMessageLike[] }>;',
  },
  "docs/ai-sdk.md": {
    // "model, prompt and tools: yours, as for any generateText call"
    model: 'declare const model: import("ai").LanguageModel;',
    prompt: "declare const prompt: string;",
    tools: 'declare const tools: import("ai").ToolSet;',
  },
  "docs/anthropic.md": {
    system: "declare const system: string;",
    messages: 'declare const messages: import("@anthropic-ai/sdk").Anthropic.MessageParam[];',
    tools: 'declare const tools: import("@anthropic-ai/sdk").Anthropic.Tool[];',
  },
  "docs/concepts.md": {
    // README "Trace your own app": the `answer` op.
    answer: 'declare const answer: import("tracewire").Op<(question: string) => Promise<string>>;',
  },
  "docs/evaluations.md": {
    client: 'declare const client: import("openai").OpenAI;',
  },
  "docs/nextjs.md": {
    // "openai = wrapOpenAI(new OpenAI())"
    openai: 'declare const openai: import("openai").OpenAI;',
  },
  "docs/openai.md": {
    messages: 'declare const messages: import("openai").OpenAI.ChatCompletionMessageParam[];',
    // The page's first block: `wrapOpenAI(new OpenAI())`.
    client: 'declare const client: import("openai").OpenAI;',
  },
  "docs/reliability.md": {
    // README "Trace your own app": the `answer` op.
    answer: 'declare const answer: import("tracewire").Op<(question: string) => Promise<string>>;',
  },
};

/**
 * Modules the docs import that this repository does not install, declared as far as the blocks use them (and as
 * the real package types them), so the blocks using them are still checked against tracewire's types.
 */
const AMBIENT = `
// @cloudflare/workers-types declares \`env\` as Cloudflare.Env, an interface \`wrangler types\` fills with the worker's
// bindings (vars and secrets as strings, the other bindings as objects).
declare namespace Cloudflare {
  interface Env {
    OPENAI_API_KEY: string;
    OPENAI_BASE_URL: string;
    TRACEWIRE_BASE_URL: string;
    TRACEWIRE_PROJECT: string;
    TRACEWIRE_API_KEY: string;
    CACHE: { get(key: string): Promise<string | null> };
  }
}
declare module "cloudflare:workers" {
  export const env: Cloudflare.Env;
}
declare module "@opentelemetry/sdk-node" {
  import type { SpanProcessor } from "@opentelemetry/sdk-trace-base";
  /** @opentelemetry/sdk-node's NodeSDK, as far as docs/own-otel-sdk.md uses it. */
  export class NodeSDK {
    constructor(configuration?: { spanProcessors?: SpanProcessor[] });
    start(): void;
  }
}
`;

/**
 * A block that must not compile, checked in the same program and reported the same way: a misspelt option (what
 * running a block with its types stripped never notices), under the page's prelude (`client` of the evaluations page).
 */
const CANARY: Snippet = {
  file: "docs/evaluations.md",
  heading: "# Canary (not in the page)",
  nth: 1,
  line: 100,
  lang: "ts",
  code: [
    'import { init } from "tracewire";',
    "",
    'init({ redactKey: ["ssn"] });',
    "client.chat.completions.make();",
  ].join("\n"),
  noRun: undefined,
  badMarker: undefined,
};

const OUT = join(ROOT, ".test-tmp", "snippet-types");

/** The names a block declares at its top level (imports, variables, functions, classes, enums, types). */
function declaredNames(file: ts.SourceFile): Set<string> {
  const names = new Set<string>();
  const bind = (name: ts.BindingName) => {
    if (ts.isIdentifier(name)) names.add(name.text);
    else for (const element of name.elements) if (!ts.isOmittedExpression(element)) bind(element.name);
  };
  for (const statement of file.statements) {
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause;
      if (clause?.name) names.add(clause.name.text);
      const bindings = clause?.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) names.add(bindings.name.text);
      if (bindings && ts.isNamedImports(bindings)) for (const e of bindings.elements) names.add(e.name.text);
    } else if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) bind(declaration.name);
    } else if (
      (ts.isFunctionDeclaration(statement) ||
        ts.isClassDeclaration(statement) ||
        ts.isEnumDeclaration(statement) ||
        ts.isInterfaceDeclaration(statement) ||
        ts.isTypeAliasDeclaration(statement)) &&
      statement.name
    ) {
      names.add(statement.name.text);
    }
  }
  return names;
}

/** The identifiers a block reads as values (not property names: `client.messages` reads `client` only). */
function usedNames(file: ts.SourceFile): Set<string> {
  const names = new Set<string>();
  const visit = (node: ts.Node) => {
    if (ts.isIdentifier(node)) {
      const parent = node.parent;
      const propertyName =
        (ts.isPropertyAccessExpression(parent) && parent.name === node) ||
        (ts.isPropertyAssignment(parent) && parent.name === node) ||
        (ts.isMethodDeclaration(parent) && parent.name === node) ||
        (ts.isPropertySignature(parent) && parent.name === node) ||
        (ts.isBindingElement(parent) && parent.propertyName === node);
      if (!propertyName) names.add(node.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return names;
}

/** A block's label in messages: `file:heading#n` (the heading as written). */
const labelOf = (s: Snippet) => `${s.file}:${s.heading || "(top of page)"}#${s.nth}`;

interface Checked {
  snippet: Snippet;
  path: string;
  /** The lines of the block itself (the prelude follows them). */
  lines: number;
  prelude: string[];
}

/** Writes the ts blocks of `all`, the ambient declarations and a tsconfig.json to {@link OUT}; what it wrote. */
function writeProject(all: Snippet[], dist: boolean): { checked: Checked[]; configPath: string } {
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  const checked: Checked[] = [];
  for (const snippet of all) {
    const extension = TYPED[snippet.lang];
    if (!extension) continue;
    const path = join(OUT, `${snippet.file.replace(/\W+/g, "_")}_L${snippet.line}.${extension}`);
    const parsed = ts.createSourceFile(path, snippet.code, ts.ScriptTarget.Latest, true);
    const declared = declaredNames(parsed);
    const used = usedNames(parsed);
    const page = PRELUDES[snippet.file] ?? {};
    const prelude = Object.keys(page).filter((name) => used.has(name) && !declared.has(name));
    const code = snippet.code.endsWith("\n") ? snippet.code : `${snippet.code}\n`;
    const lines = code.split("\n").length - 1;
    const tail = prelude.length ? `\n// The page's prose:\n${prelude.map((name) => page[name]).join("\n")}\n` : "";
    writeFileSync(path, code + tail);
    checked.push({ snippet, path, lines, prelude });
  }
  writeFileSync(join(OUT, "ambient.d.ts"), AMBIENT);
  const paths: Record<string, string[]> = {};
  for (const entry of publicEntries()) paths[entry.specifier] = [relative(OUT, entry.source).split("\\").join("/")];
  const config = {
    extends: relative(OUT, join(ROOT, "tsconfig.json")).split("\\").join("/"),
    compilerOptions: {
      noEmit: true,
      declaration: false,
      // Each block is a module of its own (top-level await; its names its own), imports or not.
      moduleDetection: "force",
      jsx: "preserve",
      ...(dist ? {} : { paths }),
    },
    include: [],
    files: ["ambient.d.ts", ...checked.map((c) => relative(OUT, c.path))],
  };
  const configPath = join(OUT, "tsconfig.json");
  writeFileSync(configPath, `${JSON.stringify(config, null, 2)}\n`);
  return { checked, configPath };
}

/** `file:heading#n: TSxxxx message (file:line)` of a diagnostic in a block's module. */
function describeDiagnostic(d: ts.Diagnostic, checked: Checked | undefined): string {
  const message = `TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`;
  if (!d.file || d.start === undefined || !checked) {
    return `${d.file ? relative(ROOT, d.file.fileName) : "tsconfig"}: ${message}`;
  }
  const line = d.file.getLineAndCharacterOfPosition(d.start).line;
  const at = line < checked.lines ? `${checked.snippet.file}:${checked.snippet.line + 1 + line}` : "its prelude";
  return `${labelOf(checked.snippet)}: ${message} (${at})`;
}

/**
 * Type-checks the ts blocks of `all` in one program: what was checked, each failure as {@link describeDiagnostic}
 * says it, and the files `tracewire` resolved to.
 */
function typeCheck(all: Snippet[], dist = process.env.TRACEWIRE_SNIPPET_TYPES === "dist") {
  const { checked, configPath } = writeProject(all, dist);
  const parsed = ts.getParsedCommandLineOfConfigFile(configPath, undefined, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(ts.flattenDiagnosticMessageText(d.messageText, "\n"));
    },
  });
  if (!parsed) throw new Error(`cannot read ${configPath}`);
  const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options });
  const byPath = new Map(checked.map((c) => [ts.sys.resolvePath(c.path), c]));
  const failures = [...parsed.errors, ...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics()].map((d) =>
    describeDiagnostic(d, undefined),
  );
  for (const c of checked) {
    const file = program.getSourceFile(c.path);
    if (!file) {
      failures.push(`${labelOf(c.snippet)}: not in the program`);
      continue;
    }
    for (const d of [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)]) {
      failures.push(describeDiagnostic(d, byPath.get(ts.sys.resolvePath(file.fileName))));
    }
  }
  const tracewire = program
    .getSourceFiles()
    .map((f) => relative(ROOT, f.fileName).split("\\").join("/"))
    .filter((f) => /^(src|dist)\//.test(f));
  return { checked, failures, tracewire };
}

describe("README.md and docs/ ts blocks type-check", () => {
  const all = snippets();
  const dist = process.env.TRACEWIRE_SNIPPET_TYPES === "dist";
  let result: ReturnType<typeof typeCheck>;
  // ~10 s of CPU on a 2-core machine, most of it parsing the SDKs' declarations (~1,800 files); no time is asserted
  // (timing belongs in bench/), the bound only stops a hung compile.
  beforeAll(() => {
    result = typeCheck([...all, CANARY], dist);
  }, 300_000);
  const canary = (failure: string) => failure.startsWith(`${CANARY.file}:${CANARY.heading}#`);

  it("checks every ts block of the docs (and only those) in one program, tracewire's types from src/ (or dist/)", () => {
    const typed = all.filter((s) => s.lang in TYPED);
    expect(typed.length).toBeGreaterThan(10);
    expect(result.checked.map((c) => c.snippet)).toEqual([...typed, CANARY]);
    // Build-independent: `paths` wins over the package's self-reference to dist/ (dist mode: the other way round).
    expect(result.tracewire).toContain(dist ? "dist/index.d.ts" : "src/index.ts");
    expect(result.tracewire.filter((f) => f.startsWith(dist ? "src/" : "dist/"))).toEqual([]);
  });

  it("every ts block compiles against the package's types", () => {
    expect(result.failures.filter((f) => !canary(f))).toEqual([]);
  });

  it("fails a block with an option or a method the types do not have, and says where", () => {
    expect(result.failures.filter(canary)).toEqual([
      "docs/evaluations.md:# Canary (not in the page)#1: TS2561: Object literal may only specify known properties, " +
        "but 'redactKey' does not exist in type 'InitOptions'. Did you mean to write 'redactKeys'? (docs/evaluations.md:103)",
      "docs/evaluations.md:# Canary (not in the page)#1: TS2339: Property 'make' does not exist on type 'Completions'. " +
        "(docs/evaluations.md:104)",
    ]);
  });

  it("every prelude name is used free by a block of its page, and none is typed any", () => {
    const used = new Set(
      result.checked
        .filter((c) => c.snippet !== CANARY)
        .flatMap((c) => c.prelude.map((name) => `${c.snippet.file} ${name}`)),
    );
    const unused = Object.entries(PRELUDES).flatMap(([file, names]) =>
      Object.keys(names)
        .filter((name) => !used.has(`${file} ${name}`))
        .map((name) => `${file}: ${name}`),
    );
    expect(unused).toEqual([]);
    const anys = Object.values(PRELUDES).flatMap((names) => Object.values(names).filter((d) => /\bany\b/.test(d)));
    expect(anys).toEqual([]);
  });
});
