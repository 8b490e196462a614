/**
 * README code blocks as tests run them: found by the heading they sit under, their `import … from "tracewire"`
 * line checked against the package's real exports, and the rest run verbatim as the body of an async function.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import * as tracewire from "../../src/index.js";

const README = fileURLToPath(new URL("../../README.md", import.meta.url));

/** The first ```ts block under the heading `heading` (e.g. "### Feedback and scores"). */
export function readmeBlock(heading: string): string {
  const text = readFileSync(README, "utf8");
  const at = text.indexOf(`\n${heading}\n`);
  if (at === -1) throw new Error(`README.md has no heading ${JSON.stringify(heading)}`);
  const open = text.indexOf("```ts\n", at);
  const nextHeading = text.indexOf("\n#", at + heading.length + 2);
  if (open === -1 || (nextHeading !== -1 && open > nextHeading))
    throw new Error(`README.md has no ts block under ${heading}`);
  const close = text.indexOf("\n```", open + 6);
  return text.slice(open + 6, close + 1);
}

type AsyncFunctionConstructor = new (...args: string[]) => (...values: unknown[]) => Promise<unknown>;
const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as AsyncFunctionConstructor;

/**
 * Runs a README block: its `import { … } from "tracewire"` lines are checked (each name must be a real export) and
 * replaced by those exports; so are imports from the packages in `modules` (e.g. `{ ai, "tracewire/ai": … }`: the
 * module objects the test loaded). `scope` supplies the names earlier README blocks defined (e.g. `answer`). Every
 * other line runs as written (plain JavaScript: the blocks this is used for carry no type annotations).
 */
export async function runBlock(
  block: string,
  scope: Record<string, unknown> = {},
  modules: Record<string, object> = {},
): Promise<void> {
  const names: Record<string, unknown> = { ...scope };
  const known: Record<string, object> = { ...modules, tracewire };
  const body = block.replace(/^import \{([^}]*)\} from "([^"]+)";$/gm, (line, list: string, from: string) => {
    const module = known[from] as Record<string, unknown> | undefined;
    if (!module) return line; // left in place: the check below reports it
    for (const name of list.split(",").map((n) => n.trim())) {
      if (!name) continue;
      if (!(name in module)) throw new Error(`README imports ${name} from "${from}", which does not export it`);
      names[name] = module[name];
    }
    return "";
  });
  if (/^\s*import\s/m.test(body)) throw new Error(`README block has an import this runner cannot check:\n${body}`);
  const fn = new AsyncFunction(...Object.keys(names), body);
  await fn(...Object.values(names));
}
