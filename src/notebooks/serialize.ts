/**
 * Values written into a notebook the way nbformat writes them: keys sorted, the file's indent, multi-line text as a
 * list of lines split where Python's str.splitlines(keepends=True) splits (nbformat's split_lines).
 */
import type { NotebookCell, NotebookOutput } from "./document.js";

/** Where Python's str.splitlines splits: \n, \r, \r\n, \v, \f, \x1c-\x1e, \x85, \u2028, \u2029. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: Python splits at these separators (\x1c-\x1e) too.
const PY_LINE_END = /\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]/g;

/** str.splitlines(True): the lines with their ends; "" gives []. */
export function pySplitLines(text: string): string[] {
  const lines: string[] = [];
  let start = 0;
  for (const match of text.matchAll(PY_LINE_END)) {
    const end = (match.index ?? 0) + match[0].length;
    lines.push(text.slice(start, end));
    start = end;
  }
  if (start < text.length) lines.push(text.slice(start));
  return lines;
}

/** Mime types whose text nbformat splits into lines on write (text/*, JavaScript, SVG). */
function splitsMime(mime: string): boolean {
  return mime.startsWith("text/") || mime === "application/javascript" || mime === "image/svg+xml";
}

/** An output as nbformat writes it: stream text and text bundles as lists of lines. */
export function outputForFile(output: NotebookOutput): NotebookOutput {
  const copy: NotebookOutput = { ...output };
  if (typeof copy.text === "string") copy.text = pySplitLines(copy.text);
  if (copy.data) {
    copy.data = Object.fromEntries(
      Object.entries(copy.data).map(([mime, value]) => [
        mime,
        typeof value === "string" && splitsMime(mime) ? pySplitLines(value) : value,
      ]),
    );
  }
  return copy;
}

/** A source in the form the file keeps sources in: one string, or a list of lines. */
export function sourceInForm(source: string, asList: boolean): string | string[] {
  return asList ? pySplitLines(source) : source;
}

/** Whether the file keeps sources as lists (nbformat's form), judged by its cells; lists when it has none. */
export function keepsSourceAsList(cells: readonly Pick<NotebookCell, "source">[]): boolean {
  const strings = cells.filter((c) => typeof c.source === "string" && c.source.includes("\n")).length;
  const lists = cells.filter((c) => Array.isArray(c.source) && c.source.length > 1).length;
  return strings === 0 || lists >= strings;
}

function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value && typeof value === "object")
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, sorted((value as Record<string, unknown>)[k])]),
    );
  return value;
}

/** The file's layout: the indent of one level and its line end. */
export interface Layout {
  readonly unit: string;
  readonly eol: string;
}

/**
 * `value` as JSON at nesting `depth` (its first line placed by the caller), keys sorted as nbformat sorts them.
 * Python's json.dumps(ensure_ascii=False) and JSON.stringify escape strings alike.
 */
export function jsonAt(value: unknown, depth: number, layout: Layout): string {
  const text = JSON.stringify(sorted(value), null, layout.unit);
  // A string's own line ends are escaped, so every newline here is the layout's.
  return text.replace(/\n/g, `${layout.eol}${layout.unit.repeat(depth)}`);
}

/** The layout of a notebook's text: nbformat's (one space, "\n") unless the file shows another. */
export function layoutOf(text: string): Layout {
  const eol = /\r\n/.test(text.slice(0, 4096)) ? "\r\n" : "\n";
  const indent = /^\{\r?\n([ \t]+)"/.exec(text.replace(/^\uFEFF/, ""));
  return { unit: indent?.[1] ?? " ", eol };
}
