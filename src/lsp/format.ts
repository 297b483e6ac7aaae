/** Turns LSP results into what the model reads: relative paths, 1-based lines, one-line snippets. */
import path from "node:path";
import type {
  Hover,
  Location,
  LocationLink,
  MarkedString,
  MarkupContent,
} from "vscode-languageserver-protocol";
import { fileLines } from "../files/lines.js";
import { within } from "./content-roots.js";
import { uriPath } from "./diagnostics.js";

export interface Place {
  path: string;
  line: number;
  column: number;
  snippet: string;
}

/** The snippet of a location whose file lies outside the workdir and the library roots. */
export const NOT_SHOWN = "(outside the workdir: not shown)";

export class SnippetReader {
  readonly #cache = new Map<string, readonly string[] | undefined>();
  readonly #shown = new Map<string, boolean>();
  /** `roots`: where content may be quoted from besides the workdir (absent: the workdir only is not checked). */
  constructor(
    readonly workdir: string,
    readonly roots?: readonly string[],
  ) {}

  /** Whether a file's content may appear in an answer: inside the workdir or a library root, by its real path. */
  shows(file: string): boolean {
    if (!this.roots) return true;
    let shown = this.#shown.get(file);
    if (shown === undefined) {
      shown = within(file, [this.workdir, ...this.roots]);
      this.#shown.set(file, shown);
    }
    return shown;
  }

  rel(file: string): string {
    // Inside the workdir and already normal (no "." or ".." segments): the rest of the path, without path.relative.
    const prefix = `${this.workdir}/`;
    if (file.startsWith(prefix) && !file.includes("/.", prefix.length - 1)) return file.slice(prefix.length);
    const rel = path.relative(this.workdir, file);
    return rel.startsWith("..") || path.isAbsolute(rel) ? file : rel;
  }

  line(file: string, line0: number): string {
    if (!this.#cache.has(file)) this.#cache.set(file, fileLines(file));
    const text = (this.#cache.get(file)?.[line0] ?? "").trim();
    return text.length > 160 ? `${text.slice(0, 160)}…` : text;
  }

  place(loc: Location | LocationLink): Place {
    const uri = "targetUri" in loc ? loc.targetUri : loc.uri;
    const range = "targetUri" in loc ? loc.targetSelectionRange : loc.range;
    const file = uriPath(uri);
    return {
      path: this.rel(file),
      line: range.start.line + 1,
      column: range.start.character + 1,
      snippet: this.shows(file) ? this.line(file, range.start.line) : NOT_SHOWN,
    };
  }
}

export function asLocations(
  result: Location | Location[] | LocationLink[] | null | undefined,
): (Location | LocationLink)[] {
  if (!result) return [];
  return Array.isArray(result) ? result : [result];
}

const HOVER_LINES = 30;
const HOVER_CHARS = 2500;

export function hoverText(hover: Hover | null): string {
  if (!hover) return "";
  const parts = Array.isArray(hover.contents) ? hover.contents : [hover.contents];
  const text = parts
    .map((p: MarkedString | MarkupContent) =>
      typeof p === "string" ? p : "language" in p ? `\`\`\`${p.language}\n${p.value}\n\`\`\`` : p.value,
    )
    .join("\n\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
  const lines = text.split("\n");
  let out = lines.slice(0, HOVER_LINES).join("\n");
  if (out.length > HOVER_CHARS) out = out.slice(0, HOVER_CHARS);
  return out.length < text.length ? `${out}\n… (trimmed)` : out;
}

export const SYMBOL_KINDS = [
  "",
  "file",
  "module",
  "namespace",
  "package",
  "class",
  "method",
  "property",
  "field",
  "constructor",
  "enum",
  "interface",
  "function",
  "variable",
  "constant",
  "string",
  "number",
  "boolean",
  "array",
  "object",
  "key",
  "null",
  "enum member",
  "struct",
  "event",
  "operator",
  "type parameter",
];
