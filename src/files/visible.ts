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
