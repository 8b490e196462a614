/** Types of scripts/markdown.mjs, for the TypeScript tests that use it. */

export const ROOT: string;
export const API_DIR: string;
export const CODE_LANGS: Set<string>;
export const NO_RUN: RegExp;

export interface Heading {
  line: number;
  level: number;
  raw: string;
  anchor: string;
}

export interface CodeBlock {
  line: number;
  lang: string;
  code: string;
  heading: string;
  marker: string | undefined;
  markerError: string | undefined;
  unclosed?: true;
}

export interface Link {
  line: number;
  target: string;
}

export interface ParsedMarkdown {
  headings: Heading[];
  blocks: CodeBlock[];
  links: Link[];
  anchors: Set<string>;
}

export function docFiles(): string[];
export function readDoc(file: string): string;
export function fromRoot(path: string): string;
export function slug(text: string): string;
export function parseMarkdown(text: string): ParsedMarkdown;
