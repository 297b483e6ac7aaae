/** Turns LSP results into what the model reads: relative paths, 1-based lines, one-line snippets. */
import path from "node:path";
import type {
  Hover,
  Location,
  LocationLink,
  MarkedString,
  MarkupContent,
} from "vscode-languageserver-protocol";
import { within } from "../../files/library-roots.js";
import { fileLines } from "../../files/lines.js";
import { snippetOf } from "../../files/snippet.js";
import { plural } from "../../files/text.js";
import { uriPath } from "../diagnostics/diagnostics.js";
import type { Place } from "../schema.js";
import { plainMarkup } from "./markup.js";

/** The snippet of a location whose file lies outside the workdir and the library roots. */
export const NOT_SHOWN = "(outside the workdir: not shown)";
export const NOT_READABLE = "(the file cannot be read now)";

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

  /** A file inside the workdir by its real path, read just now: its lines are these. */
  knows(file: string, lines: readonly string[]): void {
    this.#shown.set(file, true);
    this.#cache.set(file, lines);
  }

  rel(file: string): string {
    // Inside the workdir and already normal (no "." or ".." segments): the rest of the path, without path.relative.
    const prefix = `${this.workdir}/`;
    if (file.startsWith(prefix) && !file.includes("/.", prefix.length - 1)) return file.slice(prefix.length);
    const rel = path.relative(this.workdir, file);
    return rel.startsWith("..") || path.isAbsolute(rel) ? file : rel;
  }

  /** The snippet of a line (0-based), clipped around `column0` when long. */
  line(file: string, line0: number, column0 = 0): string {
    if (!this.#cache.has(file)) this.#cache.set(file, fileLines(file));
    const lines = this.#cache.get(file);
    // Gone since the server read it, or no longer a regular file: an empty snippet would read as an empty line.
    return lines ? snippetOf(lines, line0, column0) : NOT_READABLE;
  }

  place(loc: Location | LocationLink): Place {
    const uri = "targetUri" in loc ? loc.targetUri : loc.uri;
    const range = "targetUri" in loc ? loc.targetSelectionRange : loc.range;
    const file = uriPath(uri);
    return {
      path: this.rel(file),
      line: range.start.line + 1,
      column: range.start.character + 1,
      end: { line: range.end.line + 1, column: range.end.character + 1 },
      snippet: this.shows(file) ? this.line(file, range.start.line, range.start.character) : NOT_SHOWN,
    };
  }
}

/** Places on one line of one file, as one row: the columns of each (the snippet is the first's). */
export interface Row {
  readonly path: string;
  readonly line: number;
  readonly columns: readonly number[];
  readonly snippet: string;
}

/** Places merged by file and line, in their first order: a line listed twice says nothing new. */
export function mergedRows(places: readonly Place[]): Row[] {
  const rows = new Map<string, { path: string; line: number; columns: number[]; snippet: string }>();
  for (const p of places) {
    const key = `${p.path}\0${p.line}`;
    const row = rows.get(key);
    if (row) {
      if (!row.columns.includes(p.column)) row.columns.push(p.column);
    } else rows.set(key, { path: p.path, line: p.line, columns: [p.column], snippet: p.snippet });
  }
  return [...rows.values()];
}

/** " (columns 5, 21)" when a row stands for several places on its line. */
export function columnsOf(row: Row): string {
  return row.columns.length > 1 ? ` (columns ${row.columns.join(", ")})` : "";
}

export function asLocations(
  result: Location | Location[] | LocationLink[] | null | undefined,
): (Location | LocationLink)[] {
  if (!result) return [];
  return Array.isArray(result) ? result : [result];
}

const HOVER_LINES = 30;
const HOVER_CHARS = 2500;

/** The hover's text: markup made plain, cut at a budget that says how much it left out. */
export function hoverText(hover: Hover | null): string {
  if (!hover) return "";
  const parts = Array.isArray(hover.contents) ? hover.contents : [hover.contents];
  const text = plainMarkup(
    parts
      .map((p: MarkedString | MarkupContent) =>
        typeof p === "string" ? p : "language" in p ? `\`\`\`${p.language}\n${p.value}\n\`\`\`` : p.value,
      )
      .join("\n\n"),
  )
    .replace(/\n{3,}/g, "\n\n")
    .trim();
  const lines = text.split("\n");
  let out = lines.slice(0, HOVER_LINES).join("\n");
  if (out.length > HOVER_CHARS) out = out.slice(0, HOVER_CHARS);
  if (out.length >= text.length) return out;
  const cut = text.length - out.length;
  const moreLines = lines.length - out.split("\n").length;
  const left = moreLines > 0 ? `${plural(moreLines, "more line")}, ` : "";
  return `${out}\n… (trimmed: ${left}${plural(cut, "more character")} not shown)`;
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
