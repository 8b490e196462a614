#!/usr/bin/env node
/**
 * Link check for the docs (`npm run check:links`; also part of `npm run lint` and `npm run docs`): every relative
 * link in README.md and docs/**\/*.md (the generated reference in docs/api/ aside) must name a file or folder that
 * exists and is not git-ignored (an ignored file is not in the repository, so the link is broken on GitHub and npm),
 * and every `#anchor` must name a heading (or an HTML `id`/`name`) of the page it points into. Links with a scheme
 * (`https:`, `mailto:`) are not fetched. Prints one line per broken link and exits 1, or prints a summary.
 */
import { spawnSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { docFiles, fromRoot, parseMarkdown, ROOT, readDoc } from "./markdown.mjs";

const pages = new Map(); // file (from root) → parsed page
const page = (file) => {
  if (!pages.has(file)) pages.set(file, parseMarkdown(readDoc(file)));
  return pages.get(file);
};

const problems = [];
const pending = []; // [where, target file from root] to check against .gitignore
let checked = 0;
for (const file of docFiles()) {
  for (const { line, target } of page(file).links) {
    const where = `${file}:${line}`;
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("//")) continue;
    checked++;
    if (target === "") {
      problems.push(`${where}: empty link target`);
      continue;
    }
    const hash = target.indexOf("#");
    const pathPart = decodeURIComponent((hash === -1 ? target : target.slice(0, hash)).replace(/\?.*$/, ""));
    const anchor = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1));
    let into = file;
    if (pathPart) {
      const absolute = pathPart.startsWith("/") ? join(ROOT, pathPart) : resolve(ROOT, dirname(file), pathPart);
      into = fromRoot(absolute);
      if (into.startsWith("../") || into === "..") {
        problems.push(`${where}: ${target} points outside the repository`);
        continue;
      }
      if (!existsSync(absolute)) {
        problems.push(`${where}: ${target} — no such file or folder (${into})`);
        continue;
      }
      pending.push([where, target, into]);
      if (anchor === undefined || !into.endsWith(".md") || !statSync(absolute).isFile()) continue;
    }
    if (anchor === undefined) continue;
    if (!anchor) {
      problems.push(`${where}: ${target} has an empty #anchor`);
    } else if (!page(into).anchors.has(anchor)) {
      const near = [...page(into).anchors].filter((a) => a.includes(anchor) || anchor.includes(a)).slice(0, 3);
      problems.push(
        `${where}: ${target} — ${into} has no heading with anchor #${anchor}` +
          (near.length ? ` (did you mean ${near.map((a) => `#${a}`).join(", ")}?)` : ""),
      );
    }
  }
}

// One git call for every target: a git-ignored file exists here but not in the repository.
if (pending.length && existsSync(join(ROOT, ".git"))) {
  const git = spawnSync("git", ["check-ignore", "--no-index", "--stdin"], {
    cwd: ROOT,
    input: pending.map(([, , into]) => into).join("\n"),
    encoding: "utf8",
  });
  if (git.status === 0 || git.status === 1) {
    const ignored = new Set(git.stdout.split("\n").filter(Boolean));
    for (const [where, target, into] of pending) {
      if (ignored.has(into)) {
        problems.push(`${where}: ${target} — ${into} is git-ignored, so the link is broken on GitHub and npm`);
      }
    }
  } else {
    problems.push(`git check-ignore failed (${git.status}): ${git.stderr.trim()}`);
  }
}

if (problems.length) {
  for (const problem of problems) console.error(`broken link  ${problem}`);
  console.error(`check-links: ${problems.length} broken link(s) in ${pages.size} page(s)`);
  process.exit(1);
}
console.log(`check-links: ${checked} relative link(s) in ${docFiles().length} page(s) resolve`);
