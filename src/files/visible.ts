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
const BEL = String.fromCharCode(7);
/**
 * A terminal's escape sequences (ECMA-48): CSI (colours, cursor moves: `ESC [ … letter`), OSC and the other string
 * sequences up to their terminator (a window title, a hyperlink: `ESC ] 8 ;; url ESC \`), and the short ones
 * (`ESC ( B`, `ESC 7`, `ESC =`). Only CSI sequences were taken out before: a title or a link reached the model raw.
 */
const TERMINAL_ESCAPES = new RegExp(
  [
    `${ESC}\\[[0-?]*[ -/]*[@-~]`,
    `${ESC}[\\]PX^_][\\s\\S]*?(?:${BEL}|${ESC}\\\\)`,
    `${ESC}[ -/]*[0-~]`,
    `\u009b[0-?]*[ -/]*[@-~]`,
  ].join("|"),
  "g",
);

/** Program output as the model reads it: what a terminal would act on instead of showing is left out. */
export function withoutTerminalEscapes(text: string): string {
  return text.includes(ESC) || text.includes("\u009b") ? text.replace(TERMINAL_ESCAPES, "") : text;
}
