/**
 * One-line snippets of source lines for answers: the line trimmed, a signature that spans lines completed to its
 * end (bounded), and a long line clipped to a window around the column that matters, so the name stays in view.
 */

/** The widest snippet an answer shows (characters, the ellipses aside). */
export const SNIPPET_WIDTH = 100;
/** The most lines a signature is completed over. */
const SIGNATURE_LINES = 6;
/** How much of the window lies before the column, when the line is clipped. */
const LEAD = 30;

/** Brackets opened minus closed on a line (outside quotes and a trailing comment). */
function openBrackets(text: string): number {
  let depth = 0;
  let quote = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === "\\") i++;
      else if (c === quote) quote = "";
    } else if (c === '"' || c === "'" || c === "`") quote = c;
    else if (c === "#" || (c === "/" && text[i + 1] === "/")) break;
    else if (c === "(" || c === "[") depth++;
    else if (c === ")" || c === "]") depth--;
  }
  return depth;
}

function joined(a: string, b: string): string {
  return /[([]$/.test(a) || /^[)\]]/.test(b) ? `${a}${b}` : `${a} ${b}`;
}

/**
 * The line `line0` of `lines` as a one-line snippet: trimmed; when it leaves a bracket open (`def merge_cookies(`),
 * the following lines joined on until it closes (at most a few lines); clipped around `column0` (0-based, in the
 * untrimmed line) when longer than the width.
 */
export function snippetOf(lines: readonly string[], line0: number, column0 = 0): string {
  const raw = lines[line0] ?? "";
  const indent = raw.length - raw.trimStart().length;
  let text = raw.trim();
  // A line already past the width is clipped, not completed (nor scanned: a minified line is megabytes).
  let depth = text.length < SNIPPET_WIDTH ? openBrackets(text) : 0;
  for (let next = line0 + 1; depth > 0 && next < lines.length && next <= line0 + SIGNATURE_LINES; next++) {
    const more = (lines[next] ?? "").trim();
    text = joined(text, more);
    depth += openBrackets(more);
    if (text.length > SNIPPET_WIDTH * 2) break;
  }
  return clipAround(text, Math.max(0, column0 - indent));
}

/** `text` cut to the snippet width around `at`: "…" says on which side something was left out. */
export function clipAround(text: string, at = 0, width = SNIPPET_WIDTH): string {
  if (text.length <= width) return text;
  const start = Math.max(0, Math.min(at - LEAD, text.length - width));
  const end = start + width;
  return `${start > 0 ? "…" : ""}${text.slice(start, end)}${end < text.length ? "…" : ""}`;
}
