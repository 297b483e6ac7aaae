/**
 * A string a server navigates: a module path (Go's `import "fmt"` and its import block, TypeScript's and
 * JavaScript's `from "../stock.js"`, `require("x")`, `import("x")`) or a Python `__all__` entry. A name only inside
 * such a string is a position, not the "only in a string" error every other string gets.
 */
/** As positions.ts names them: C-like quoting and `//` comments, or Python's. */
type SyntaxFamily = "c" | "python";

/** Whether `index` of line `row` is inside a quoted string of a line whose strings servers navigate. */
export function navigableString(
  lines: readonly string[],
  row: number,
  index: number,
  family: SyntaxFamily,
): boolean {
  const text = lines[row] ?? "";
  if (!insideQuotes(text, index, family)) return false;
  if (family === "python") return inAll(lines, row);
  return (
    /^\s*import\b/.test(text) ||
    /\bfrom\s*["'`]/.test(text) ||
    /\b(require|import)\s*\(\s*["'`]/.test(text) ||
    /^\s*export\b.*\bfrom\b/.test(text) ||
    inGoImportBlock(lines, row)
  );
}

/** Whether `index` is between quotes on its line (a comment before it ends the code). */
function insideQuotes(text: string, index: number, family: SyntaxFamily): boolean {
  let quote: string | undefined;
  for (let i = 0; i < index && i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === "\\") i++;
      else if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'" || c === "`") quote = c;
    else if ((family === "python" && c === "#") || (family === "c" && c === "/" && text[i + 1] === "/"))
      return false;
  }
  return quote !== undefined;
}

/** A line of Go's `import ( … )` block: one after `import (`, before the block's `)`. */
function inGoImportBlock(lines: readonly string[], row: number): boolean {
  for (let r = row - 1; r >= 0 && r >= row - 200; r--) {
    const text = (lines[r] ?? "").trim();
    if (text === ")" || text.endsWith(")")) return false;
    if (/^import\s*\($/.test(text)) return true;
  }
  return false;
}

/** A line of a Python `__all__ = [ … ]` (or tuple) that is still open. */
function inAll(lines: readonly string[], row: number): boolean {
  let depth = 0;
  for (let r = row; r >= 0 && r >= row - 200; r--) {
    const text = lines[r] ?? "";
    // The row's own brackets are not counted: its closing `]` may follow the entry.
    for (const c of r === row ? "" : text) {
      if (c === "]" || c === ")") depth--;
      else if (c === "[" || c === "(") depth++;
    }
    if (/^\s*__all__\s*(\+)?=/.test(text)) return r === row || depth > 0;
  }
  return false;
}
