/** Text helpers shared by read, edit and apply_patch: line endings, BOMs and binary detection. */

export interface TextShape {
  /** The file's dominant line ending. */
  readonly eol: "\n" | "\r\n";
  readonly bom: boolean;
}

export function shapeOf(raw: string): TextShape {
  const crlf = (raw.match(/\r\n/g) ?? []).length;
  const lf = (raw.match(/\n/g) ?? []).length - crlf;
  return { eol: crlf > lf ? "\r\n" : "\n", bom: raw.startsWith("\uFEFF") };
}

/** The text with a BOM removed and CRLF turned into LF: what edits and hunks are matched against. */
export function normalize(raw: string): string {
  return (raw.startsWith("\uFEFF") ? raw.slice(1) : raw).replace(/\r\n/g, "\n");
}

/** The line break that ends the line holding `offset` in raw text; `fallback` on a last line without one. */
export function eolAt(raw: string, offset: number, fallback: TextShape["eol"]): TextShape["eol"] {
  const at = raw.indexOf("\n", offset);
  if (at === -1) return fallback;
  return at > 0 && raw.charCodeAt(at - 1) === 13 ? "\r\n" : "\n";
}

/**
 * Replacements found in `normalize(raw)`, made in `raw` itself: everything between them stays byte for byte (a
 * file's mixed line endings, its BOM), and each replacement's line breaks are those of the line it begins on.
 * `replacements` in the order of the text, not overlapping.
 */
export function spliceNormalized(
  raw: string,
  replacements: readonly { readonly start: number; readonly end: number; readonly text: string }[],
  fallback: TextShape["eol"],
): string {
  const bom = raw.charCodeAt(0) === 0xfeff ? 1 : 0;
  // The normalized offsets of the "\n"s that are "\r\n" in raw.
  const crlf: number[] = [];
  for (let i = bom, n = 0; i < raw.length; i++, n++) {
    if (raw.charCodeAt(i) === 13 && raw.charCodeAt(i + 1) === 10) {
      crlf.push(n);
      i++;
    }
  }
  let before = 0;
  const rawOf = (offset: number) => {
    while (before < crlf.length && crlf[before]! < offset) before++;
    return offset + bom + before;
  };
  const pieces: string[] = [];
  let at = 0;
  for (const r of replacements) {
    const start = rawOf(r.start);
    const end = rawOf(r.end);
    pieces.push(raw.slice(at, start), r.text.replace(/\r?\n/g, eolAt(raw, start, fallback)));
    at = end;
  }
  pieces.push(raw.slice(at));
  return pieces.join("");
}

export function looksBinary(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.length, 8192);
  for (let i = 0; i < n; i++) if (bytes[i] === 0) return true;
  return false;
}

/** Lines of a text, without a phantom empty line after a final newline. */
export function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

export function lineOfOffset(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}

/**
 * `text` without the run of `unit` it ends with. As a regular expression (`/\n+$/`), a run that does not end the
 * text is tried from each of its characters: quadratic in its length (80,000 spaces in a hover took 2 s).
 */
export function withoutTrailing(text: string, unit: string, atLeast = 1): string {
  let end = text.length;
  while (end >= unit.length && text.startsWith(unit, end - unit.length)) end -= unit.length;
  return (text.length - end) / unit.length >= atLeast ? text.slice(0, end) : text;
}

/** `text` without the line breaks it ends with (`\n` or `\r\n` each, as `/(\r?\n)+$/`). */
export function withoutTrailingLineBreaks(text: string): string {
  let end = text.length;
  while (text[end - 1] === "\n") end -= text[end - 2] === "\r" ? 2 : 1;
  return text.slice(0, end);
}

/**
 * A text of several lines as one line for a person to read: lines joined by " ⏎ ", cut after `max` characters
 * with how much was left out.
 */
export function oneLine(text: string, max: number): string {
  const joined = splitLines(withoutTrailing(text, "\n")).join(" ⏎ ");
  if (joined.length <= max) return joined;
  return `${joined.slice(0, max)}… (+${(joined.length - max).toLocaleString("en-US")} characters)`;
}

/** The largest file the file tools read whole: read answers in pages up to it; edit and apply_patch refuse past it. */
export const MAX_TEXT_BYTES = 50 * 1024 * 1024;

/** Why a tool that changes files does not take one this large. */
export function tooLargeToChange(shown: string, size: number, tool: string): string {
  return `${shown} is ${sizeText(size)}, over the ${sizeText(MAX_TEXT_BYTES)} ${tool} reads whole; nothing was changed. Change a file this large with a stream editor (sed) or a script.`;
}

/** A size as answers say it: "12 KB" under a megabyte, else "1.4 MB". */
export function sizeText(bytes: number): string {
  return bytes < 2 ** 20 ? `${Math.ceil(bytes / 1024)} KB` : `${(bytes / 2 ** 20).toFixed(1)} MB`;
}
