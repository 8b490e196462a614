/**
 * The little Markdown reading the docs checks need, in one place: which files are the docs, their headings (and
 * the anchors GitHub makes of them), their fenced code blocks (with the heading each sits under and its snippet
 * marker) and their links. Used by scripts/check-links.mjs and by the snippet runner and check in test/readme/.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root. */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** Where the generated API reference goes (`npm run docs`; git-ignored, never checked as a docs page). */
export const API_DIR = "docs/api";

/** The fence languages whose blocks must be run by a test or marked as not runnable. */
export const CODE_LANGS = new Set(["ts", "typescript", "tsx", "js", "javascript", "jsx", "mjs", "cjs"]);

/**
 * The docs pages, as paths relative to the root with `/` separators: README.md, then every `docs/**\/*.md`
 * (sorted) except the generated reference under docs/api/.
 */
export function docFiles() {
  const files = ["README.md"];
  const walk = (dir) => {
    if (!existsSync(join(ROOT, dir))) return;
    for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true }).sort((a, b) =>
      a.name.localeCompare(b.name),
    )) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (path !== API_DIR && entry.name !== "node_modules") walk(path);
      } else if (entry.name.endsWith(".md")) files.push(path);
    }
  };
  walk("docs");
  return files;
}

/** A docs file's text (`file` relative to the root). */
export function readDoc(file) {
  return readFileSync(join(ROOT, file), "utf8");
}

/** `relative(ROOT, path)` with `/` separators. */
export function fromRoot(path) {
  return relative(ROOT, path).split("\\").join("/");
}

/**
 * The marker that says a code block is not run by any test (it is still parsed for syntax). It is the last
 * non-blank line before the block's opening fence and must give a reason:
 * `<!-- snippet: no-run (a deployment config) -->`.
 */
export const NO_RUN = /^<!--\s*snippet:\s*no-run\s*\((.*\S.*)\)\s*-->$/;

/** The text a heading's anchor is made from: inline links, images and HTML tags reduced to their text. */
function headingText(raw) {
  return raw
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/<[^>]+>/g, "")
    .trim();
}

/** GitHub's anchor for a heading's text (before de-duplication): lower case, punctuation dropped, spaces to `-`. */
export function slug(text) {
  return headingText(text)
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
    .replace(/ /g, "-");
}

/**
 * One pass over a Markdown text.
 * - `headings`: `{ line, level, raw, anchor }` — `raw` is the heading line as written (`### Feedback and scores`),
 *   `anchor` the id GitHub gives it (`feedback-and-scores`; a repeated one gets `-1`, `-2`, …).
 * - `blocks`: fenced code blocks `{ line, lang, code, heading, marker, markerError }` — `line` is the opening
 *   fence's (1-based), `heading` the raw line of the nearest heading above (or `""`), `marker` the reason of a
 *   no-run marker, `markerError` a malformed `<!-- snippet: … -->` line.
 * - `links`: `{ line, target }` for inline links and images, reference definitions and HTML `href`/`src`,
 *   outside code.
 * - `anchors`: every anchor a link may name (heading anchors, and `id`/`name` of HTML elements).
 */
export function parseMarkdown(text) {
  const lines = text.split("\n");
  const headings = [];
  const blocks = [];
  const links = [];
  const anchors = new Set();
  const seen = new Map();
  let heading = "";
  let fence;
  let lastText = "";
  let lastTextLine = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (fence) {
      const close = /^\s*(`{3,}|~{3,})\s*$/.exec(line);
      if (close && close[1][0] === fence.char && close[1].length >= fence.length) {
        blocks.push({ ...fence.block, code: fence.code.join("\n") + (fence.code.length ? "\n" : "") });
        fence = undefined;
      } else {
        fence.code.push(line.startsWith(fence.indent) ? line.slice(fence.indent.length) : line.trimStart());
      }
      continue;
    }
    const open = /^(\s*)(`{3,}|~{3,})\s*([^\s`]*)/.exec(line);
    if (open) {
      const block = { line: i + 1, lang: open[3].toLowerCase(), heading, marker: undefined, markerError: undefined };
      if (lastTextLine === i && /^<!--\s*snippet:/.test(lastText)) {
        const marker = NO_RUN.exec(lastText);
        if (marker) block.marker = marker[1].trim();
        else block.markerError = lastText;
      }
      fence = { char: open[2][0], length: open[2].length, indent: open[1], code: [], block };
      continue;
    }
    if (line.trim()) {
      lastText = line.trim();
      lastTextLine = i + 1;
    } else if (lastTextLine === i) {
      lastTextLine = i + 1; // blank lines between the marker and the fence are allowed
    }
    const atx = /^ {0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$/.exec(line);
    if (atx) {
      const base = slug(atx[2]);
      const count = seen.get(base) ?? 0;
      seen.set(base, count + 1);
      const anchor = count ? `${base}-${count}` : base;
      anchors.add(anchor);
      heading = line.trimEnd();
      headings.push({ line: i + 1, level: atx[1].length, raw: heading, anchor });
      continue;
    }
    const prose = line.replace(/(`+)[^`][\s\S]*?\1/g, "``");
    for (const m of prose.matchAll(/\b(?:id|name)="([^"]+)"/g)) anchors.add(m[1]);
    for (const m of prose.matchAll(/!?\[(?:[^[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g)) {
      links.push({ line: i + 1, target: m[1] });
    }
    const definition = /^ {0,3}\[[^\]]+\]:\s*<?([^\s>]+)>?/.exec(prose);
    if (definition) links.push({ line: i + 1, target: definition[1] });
    for (const m of prose.matchAll(/\b(?:href|src)="([^"]+)"/g)) links.push({ line: i + 1, target: m[1] });
  }
  if (fence) blocks.push({ ...fence.block, code: fence.code.join("\n"), unclosed: true });
  return { headings, blocks, links, anchors };
}
