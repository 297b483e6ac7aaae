/**
 * Text a person reads — a card, an approval's summary — with every character that could hide or rewrite what is
 * shown made visible as `\u{…}`: control characters (ANSI escapes, a carriage return that overwrites the line),
 * bidi overrides and isolates, zero-width and other format characters, line and paragraph separators, and lone
 * surrogates. A model or a repository chooses these texts; the person must see what the call would really do.
 */

// Cc except \n and \t (kept where a text may span lines), Cf (bidi, zero-width, soft hyphen, …), Zl, Zp, and
// surrogates not part of a pair.
const HIDING =
  /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/gu;

const escaped = (ch: string) => `\\u{${(ch.codePointAt(0) ?? 0).toString(16).toUpperCase()}}`;

/** One line: newlines and tabs are escaped too. */
export function visibleLine(text: string): string {
  return text.replace(HIDING, escaped);
}

/** Several lines: newlines and tabs stay, everything else that hides is escaped. */
export function visibleText(text: string): string {
  return text.replace(HIDING, (ch) => (ch === "\n" || ch === "\t" ? ch : escaped(ch)));
}

/** What makes a path ambiguous as shown: a character that hides or breaks the line, a quote, space at either end. */
const AMBIGUOUS_PATH = new RegExp(`${HIDING.source}|"|^\\s|\\s$`, "u");

/**
 * A path as answers show it: as it is, unless a repository's file name could pass for more rows of the answer (a
 * newline), hide part of itself or be told apart from another only by invisible characters — then in double quotes,
 * `"` and `\` escaped and each such character as `\u{…}`, git's way. Path arguments take this form back.
 */
export function shownPath(p: string): string {
  if (!AMBIGUOUS_PATH.test(p)) return p;
  return `"${p.replace(/["\\]/g, "\\$&").replace(HIDING, escaped)}"`;
}

const QUOTED_PATH = /^"((?:[^"\\]|\\["\\abtnvfr]|\\[0-7]{3}|\\u\{[0-9A-Fa-f]{1,6}\})*)"$/su;
const C_ESCAPES: Record<string, number> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13, '"': 34, "\\": 92 };

/**
 * The path a quoted one stands for — as `shownPath` writes it, or as git quotes a path (C escapes, a name's UTF-8
 * bytes in octal: `"caf\303\251.txt"`); undefined when `input` is not one.
 */
export function unquotedPath(input: string): string | undefined {
  const inner = QUOTED_PATH.exec(input)?.[1];
  if (inner === undefined) return undefined;
  const pieces: Buffer[] = [];
  const token = /\\(?:([0-7]{3})|u\{([0-9A-Fa-f]+)\}|(.))|([^\\]+)/gsu;
  for (const [, octal, hex, letter, plain] of inner.matchAll(token)) {
    if (octal) pieces.push(Buffer.of(Number.parseInt(octal, 8) & 0xff));
    else if (hex)
      pieces.push(Buffer.from(String.fromCodePoint(Math.min(Number.parseInt(hex, 16), 0x10ffff))));
    else if (letter) pieces.push(Buffer.of(C_ESCAPES[letter] ?? 0));
    else if (plain) pieces.push(Buffer.from(plain));
  }
  return Buffer.concat(pieces).toString("utf8");
}

/**
 * A value a call gave, quoted in an answer (an error naming what was wrong): visible as `visibleLine` makes it, and
 * past `max` characters cut with its length said — a megabyte argument echoed whole filled the answer's budget.
 */
export function quotedValue(value: string, max = 80): string {
  if (value.length <= max) return `"${visibleLine(value)}"`;
  return `"${visibleLine(value.slice(0, max))}…" (${value.length.toLocaleString("en-US")} characters)`;
}

/** Whether a name may be shown as it is (short, nothing hidden); otherwise it is shown as `quotedValue` shows it. */
export function isPlain(value: string, max = 64): boolean {
  return value.length <= max && visibleLine(value) === value;
}

const ESC = String.fromCharCode(27);
/**
 * A terminal's escape sequences (ECMA-48): CSI (colours, cursor moves: `ESC [ … letter`), OSC and the other string
 * sequences (a window title, a hyperlink: `ESC ] 8 ;; url ESC \`), and the short ones (`ESC ( B`, `ESC 7`, `ESC =`).
 * A string sequence ends where a terminal ends it: at its terminator (BEL, `ESC \`, ST), at CAN or SUB (aborted),
 * at another ESC (which begins the next sequence) — and, here, at the end of its line: an unterminated `ESC ]`
 * before a test's failure line ran to a BEL far below and took the failure and the lines between with it. Each
 * sequence's end is found by one forward scan that the next one starts past: linear in the text (one regular
 * expression looking for terminators from every opener took a cell's 10 MB message hours).
 */
const INTRODUCER = new RegExp(`[${ESC}\u009b]`, "g");
const CONTROL_SEQUENCE = new RegExp(`${ESC}\\[[0-?]*[ -/]*[@-~]|\u009b[0-?]*[ -/]*[@-~]`, "y");
const SHORT_SEQUENCE = new RegExp(`${ESC}[ -/]*[0-~]`, "y");
const STRING_OPENERS = "]PX^_";
/** What ends a string sequence: BEL, CAN, SUB, ESC, a line feed, ST. */
const STRING_END = new RegExp(`[\u0007\u0018\u001a${ESC}\n\u009c]`, "g");

/** Program output as the model reads it: what a terminal would act on instead of showing is left out. */
export function withoutTerminalEscapes(text: string): string {
  if (!text.includes(ESC) && !text.includes("\u009b")) return text;
  const kept: string[] = [];
  let from = 0;
  INTRODUCER.lastIndex = 0;
  for (let found = INTRODUCER.exec(text); found; found = INTRODUCER.exec(text)) {
    const at = found.index;
    let end = stickyEnd(CONTROL_SEQUENCE, text, at);
    if (end === -1 && text[at] === ESC && STRING_OPENERS.includes(text[at + 1] ?? "\n"))
      end = stringSequenceEnd(text, at + 2);
    if (end === -1 && text[at] === ESC) end = stickyEnd(SHORT_SEQUENCE, text, at);
    if (end === -1) continue;
    kept.push(text.slice(from, at));
    from = end;
    INTRODUCER.lastIndex = end;
  }
  kept.push(text.slice(from));
  return kept.join("");
}

/** Where a string sequence whose content starts at `from` ends: past its terminator, or before what ends it. */
function stringSequenceEnd(text: string, from: number): number {
  STRING_END.lastIndex = from;
  const found = STRING_END.exec(text);
  if (!found) return text.length;
  const at = found.index;
  const char = text[at];
  if (char === ESC) return text[at + 1] === "\\" ? at + 2 : at;
  return char === "\n" ? at : at + 1;
}

function stickyEnd(pattern: RegExp, text: string, at: number): number {
  pattern.lastIndex = at;
  return pattern.test(text) ? pattern.lastIndex : -1;
}
