/**
 * Positions are a 1-based line plus a symbol substring, never a column: a guessed column lands on another symbol
 * of the same line. The symbol is found on that line — a whole identifier in code first, then a part of one; only
 * inside a string or comment is an error naming the lines where it is code — and the answer says which occurrence
 * and column were used when the line has several. Columns are UTF-16 code units (JavaScript string indices), as
 * LSP's default encoding.
 */
import { ToolError } from "../../errors.js";
import { clipAround, snippetOf } from "../../files/snippet.js";
import { quotedValue } from "../../files/visible.js";
import { navigableString } from "./navigable-strings.js";

export type SyntaxFamily = "c" | "python";

export interface Located {
  /** 0-based line and UTF-16 character, for the server. */
  readonly line: number;
  readonly character: number;
  /** The identifier the position points at. */
  readonly identifier: string;
  readonly occurrence: number;
  readonly of: number;
  /** Said when the match is not a whole identifier in code. */
  readonly note?: string;
}

const IDENT = /[\p{L}\p{N}_$]/u;
const IDENT_RUN = /[\p{L}\p{N}_$]+/gu;

export function familyOf(languageId: string): SyntaxFamily {
  return languageId === "python" ? "python" : "c";
}

/** true for each character of `text` that is code (not inside a string literal or a comment). */
export function codeMask(text: string, family: SyntaxFamily): Uint8Array {
  const mask = new Uint8Array(text.length).fill(1);
  let i = 0;
  const n = text.length;
  const blank = (from: number, to: number) => mask.fill(0, from, Math.min(to, n));
  while (i < n) {
    const c = text[i];
    const next = text[i + 1];
    if (family === "c" && c === "/" && next === "/") {
      const end = text.indexOf("\n", i);
      blank(i, end === -1 ? n : end);
      i = end === -1 ? n : end;
    } else if (family === "c" && c === "/" && next === "*") {
      const end = text.indexOf("*/", i + 2);
      blank(i, end === -1 ? n : end + 2);
      i = end === -1 ? n : end + 2;
    } else if (family === "python" && c === "#") {
      const end = text.indexOf("\n", i);
      blank(i, end === -1 ? n : end);
      i = end === -1 ? n : end;
    } else if (c === '"' || c === "'" || (c === "`" && family === "c")) {
      const triple = family === "python" && text.startsWith(c.repeat(3), i);
      const close = triple ? c.repeat(3) : c;
      let j = i + close.length;
      // Single-quoted strings end at the line's end in every language we lex (unterminated = error anyway);
      // backticks and triple quotes may span lines.
      const multiline = triple || c === "`";
      while (j < n && !text.startsWith(close, j)) {
        if (text[j] === "\\") j++;
        else if (text[j] === "\n" && !multiline) break;
        j++;
      }
      const end = Math.min(n, j + (text.startsWith(close, j) ? close.length : 0));
      blank(i, end);
      i = end;
    } else {
      i++;
    }
  }
  return mask;
}

/** A text split into lines, with where each line starts and which characters are code. */
export interface Analysis {
  readonly text: string;
  readonly family: SyntaxFamily;
  readonly lines: readonly string[];
  readonly starts: readonly number[];
  readonly mask: Uint8Array;
}

/** The most recently analysed texts, newest first. */
const recent: Analysis[] = [];
const RECENT = 8;

/**
 * The analysis of `text`, recomputed only when it differs from one of the last few: the mask scans the whole file,
 * which a large file cannot afford on every call. A text is reused only when it is equal, so a
 * file edited between calls is analysed again.
 */
export function analyse(text: string, family: SyntaxFamily): Analysis {
  const i = recent.findIndex((a) => a.family === family && a.text.length === text.length && a.text === text);
  if (i >= 0) {
    const [kept] = recent.splice(i, 1);
    recent.unshift(kept!);
    return kept!;
  }
  const lines = text.split("\n");
  const starts: number[] = [];
  let offset = 0;
  for (const l of lines) {
    starts.push(offset);
    offset += l.length + 1;
  }
  const made: Analysis = { text, family, lines, starts, mask: codeMask(text, family) };
  recent.unshift(made);
  if (recent.length > RECENT) recent.pop();
  return made;
}

/** The most lines an error lists when a symbol without a line occurs more than once. */
const MAX_LISTED = 20;

/**
 * Finds the symbol on `line`, or — when no line is given — on the one line where it occurs in code as a whole
 * identifier: a symbol that occurs twice is an error listing where, never a guess.
 */
export function locateSymbol(
  text: string,
  line: number | undefined,
  symbol: string,
  family: SyntaxFamily,
): Located {
  if (!IDENT.test(symbol)) {
    throw new ToolError(
      `\`symbol\` ${quotedValue(symbol)} has no identifier in it; give the name as it appears on the line, e.g. "load".`,
    );
  }
  const { lines, starts, mask } = analyse(text, family);
  if (line === undefined) {
    const only = onlyLine(lines, starts, mask, symbol);
    const located = locateSymbol(text, only, symbol, family);
    return {
      ...located,
      note: `no \`line\` given: line ${only} is the one line where ${quotedValue(symbol)} occurs in code`,
    };
  }
  if (line > lines.length) {
    throw new ToolError(`\`line\` ${line} is past the end of the file (${lines.length} lines).`);
  }
  const hits = occurrencesOn(lines, starts, mask, line - 1, symbol);
  if (hits.length === 0) throw new ToolError(notOnLine(lines, starts, mask, line, symbol, "absent"));
  const best = Math.min(...hits.map((h) => h.rank));
  // No server answers for a name in a docstring or comment as for the code's symbol: the lines where it is code —
  // but a module path or an `__all__` entry is a string servers navigate.
  const navigable =
    best >= 2 ? hits.filter((h) => navigableString(lines, line - 1, h.index, family)) : undefined;
  if (navigable && navigable.length === 0)
    throw new ToolError(notOnLine(lines, starts, mask, line, symbol, "not code"));
  const group = navigable ?? hits.filter((h) => h.rank === best);
  const hit = group[0]!;
  const lineText = lines[line - 1] ?? "";
  // A symbol spanning several identifiers (cfg.load) targets the last one; a part of an identifier, the whole one.
  const pieces = [...symbol.matchAll(IDENT_RUN)];
  const last = pieces[pieces.length - 1]!;
  let start = hit.index + (last.index ?? 0);
  while (start > 0 && IDENT.test(lineText[start - 1] ?? "")) start--;
  let end = start;
  while (end < lineText.length && IDENT.test(lineText[end] ?? "")) end++;
  const note = navigable
    ? `${quotedValue(symbol)} is inside a string the server navigates (a module path or an \`__all__\` entry)`
    : best === 1
      ? `${quotedValue(symbol)} is part of the identifier ${quotedValue(lineText.slice(start, end))}`
      : undefined;
  return {
    line: line - 1,
    character: start,
    identifier: lineText.slice(start, end),
    occurrence: 1,
    of: group.length,
    ...(note ? { note } : {}),
  };
}

/** The one line where `symbol` occurs in code as a whole identifier (once), or an error naming the lines. */
function onlyLine(
  lines: readonly string[],
  starts: readonly number[],
  mask: Uint8Array,
  symbol: string,
): number {
  const found: { row: number; count: number }[] = [];
  let elsewhere = 0;
  for (let row = 0; row < lines.length; row++) {
    if (!lines[row]!.includes(symbol)) continue;
    const hits = occurrencesOn(lines, starts, mask, row, symbol);
    const count = hits.filter((h) => h.rank === 0).length;
    if (count) found.push({ row, count });
    else elsewhere += hits.length;
  }
  const total = found.reduce((n, f) => n + f.count, 0);
  if (total === 1) return found[0]!.row + 1;
  if (total === 0) {
    const only = elsewhere ? ` (only inside strings, comments or longer names)` : "";
    throw new ToolError(
      `\`symbol\` ${quotedValue(symbol)} does not occur as a name in this file's code${only}, so there is no line to take; check the name, or give \`line\`.`,
    );
  }
  const rows = found.slice(0, MAX_LISTED).map((f) => {
    const times = f.count > 1 ? ` (${f.count} times)` : "";
    return `  ${f.row + 1}${times}  ${snippetOf(lines, f.row, (lines[f.row] ?? "").indexOf(symbol))}`;
  });
  const more = found.length > MAX_LISTED ? [`  +${found.length - MAX_LISTED} more lines`] : [];
  throw new ToolError(
    `\`symbol\` ${quotedValue(symbol)} occurs ${total} times in this file's code, so \`line\` is needed; it occurs on:\n${[...rows, ...more].join("\n")}`,
  );
}

interface Hit {
  readonly index: number;
  readonly rank: number;
}

function occurrencesOn(
  lines: readonly string[],
  starts: readonly number[],
  mask: Uint8Array,
  row: number,
  symbol: string,
): Hit[] {
  const text = lines[row] ?? "";
  const hits: Hit[] = [];
  for (let i = text.indexOf(symbol); i !== -1; i = text.indexOf(symbol, i + 1)) {
    const end = i + symbol.length;
    const whole =
      (!IDENT.test(symbol[0] ?? "") || !IDENT.test(text[i - 1] ?? "")) &&
      (!IDENT.test(symbol[symbol.length - 1] ?? "") || !IDENT.test(text[end] ?? ""));
    const inCode = mask[(starts[row] ?? 0) + i] === 1;
    hits.push({ index: i, rank: (inCode ? 0 : 2) + (whole ? 0 : 1) });
  }
  return hits;
}

function notOnLine(
  lines: readonly string[],
  starts: readonly number[],
  mask: Uint8Array,
  line: number,
  symbol: string,
  why: "absent" | "not code",
): string {
  const near: number[] = [];
  for (let row = 0; row < lines.length; row++) {
    if (occurrencesOn(lines, starts, mask, row, symbol).some((h) => h.rank === 0)) near.push(row + 1);
  }
  near.sort((a, b) => Math.abs(a - line) - Math.abs(b - line));
  const quoted = (lines[line - 1] ?? "").trim();
  const nearest = near.slice(0, 3).sort((a, b) => a - b);
  const it = why === "absent" ? "It occurs" : "In code it occurs";
  const where =
    nearest.length === 0
      ? why === "absent"
        ? " It does not occur as an identifier anywhere in this file."
        : " It does not occur in this file's code."
      : nearest.length === 1
        ? ` ${it} on line ${nearest[0]}; use that as \`line\`.`
        : ` ${it} on lines ${nearest.join(", ")}; use one of those as \`line\`.`;
  const shown = clipAround(quoted, quoted.indexOf(symbol));
  // Backticks, as a code span: a line that starts or ends with quotes (a docstring) read as `""""…` in quotes.
  const span = shown.includes("`") ? `"${shown}"` : `\`${shown}\``;
  const is = why === "absent" ? "is not on" : "is only inside a string or comment on";
  return `\`symbol\` ${quotedValue(symbol)} ${is} line ${line}, which reads: ${quoted ? span : "(an empty line)"}.${where}`;
}

/** Converts a UTF-16 column of `lineText` into the server's encoding, and back. */
export function toEncoding(lineText: string, utf16: number, encoding: string): number {
  if (encoding === "utf-8") return Buffer.byteLength(lineText.slice(0, utf16), "utf8");
  if (encoding === "utf-32") return [...lineText.slice(0, utf16)].length;
  return utf16;
}

export function fromEncoding(lineText: string, column: number, encoding: string): number {
  if (encoding === "utf-8") return Buffer.from(lineText, "utf8").subarray(0, column).toString("utf8").length;
  if (encoding === "utf-32") return [...lineText].slice(0, column).join("").length;
  return column;
}
