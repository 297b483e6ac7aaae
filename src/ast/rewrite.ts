/**
 * ast_edit's rewrite template: $NAME and $$$NAME are replaced by what the match captured ($$$NAME: the source
 * from its first to its last node). Indentation is carried so that a multi-line result is valid where it lands
 * (it matters for Python): template lines after the first get the match's own indentation, and a multi-line
 * capture is re-indented from where it was to where the template puts it.
 */
import type { AstMatch } from "./match.js";

const TEMPLATE_VAR = /\$\$\$([A-Z_][A-Z0-9_]*)|\$([A-Z_][A-Z0-9_]*)/g;

export function templateNames(template: string): string[] {
  return [...template.matchAll(TEMPLATE_VAR)].map((m) => m[1] ?? m[2] ?? "");
}

/** Where the line holding an offset starts (a staged file builds one index of its lines for all its matches). */
export type LineStartOf = (offset: number) => number;

/**
 * Line starts by binary search over one index: scanning back from each match to its line's start was quadratic on
 * a one-line (minified) file — 4,000 matches in 10 MB took 20 s.
 */
export function lineStarts(text: string): LineStartOf {
  const starts = [0];
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) starts.push(at + 1);
  return (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return starts[lo]!;
  };
}

export function renderRewrite(
  template: string,
  match: AstMatch,
  fileText: string,
  lineStartOf: LineStartOf = lineStarts(fileText),
): string {
  const indentOfLineAt = (offset: number) => indentAt(fileText, lineStartOf(offset));
  const base = indentOfLineAt(match.start);
  const lines = inFileIndentation(template.split("\n"), indentsWithTabs(fileText, match, base));
  return lines
    .map((line, i) => {
      const lineIndent = base + (line.match(/^[ \t]*/)?.[0] ?? "");
      const filled = line.replace(
        TEMPLATE_VAR,
        (_all, multi: string | undefined, single: string | undefined) => {
          const name = multi ?? single ?? "";
          // A list's last node may end with its line break (Go's statements): the template says where lines end.
          const raw = match.captures[name] ?? "";
          const captured = multi ? raw.replace(/(\r?\n)+$/, "") : raw;
          return reindent(captured, fileText, match, lineIndent, indentOfLineAt);
        },
      );
      return i === 0 ? filled : filled.length ? base + filled : filled;
    })
    .join("\n");
}

/** A multi-line capture's later lines move from the capture's own indentation to `target`. */
function reindent(
  captured: string,
  fileText: string,
  match: AstMatch,
  target: string,
  indentOfLineAt: (offset: number) => string,
): string {
  if (!captured.includes("\n")) return captured;
  const at = fileText.indexOf(captured, match.start);
  const own = at === -1 ? "" : indentOfLineAt(at);
  const rest = captured.split("\n").slice(1);
  // Lines of the capture are indented at least as much as its first line's line; keep what is beyond that.
  const shifted = rest.map((l) => (l.startsWith(own) ? target + l.slice(own.length) : l));
  return [captured.split("\n")[0], ...shifted].join("\n");
}

/** Whether the code at the match indents with tabs: its line does, or its own later lines do past it. */
function indentsWithTabs(fileText: string, match: AstMatch, base: string): boolean {
  if (base.includes("\t")) return true;
  const inner = /\n([ \t]+)\S/.exec(fileText.slice(match.start, match.end));
  return inner?.[1]?.[base.length] === "\t";
}

/**
 * The template's later lines indented as the file is: in a file indented with tabs, a template's spaces become tabs,
 * a level per the template's smallest indentation (a model writes spaces; Go's formatter and Python's parser then
 * meet one kind). Elsewhere the template is as written.
 */
function inFileIndentation(lines: string[], tabs: boolean): string[] {
  if (!tabs) return lines;
  const widths = lines.slice(1).flatMap((l) => {
    const spaces = /^ +/.exec(l)?.[0].length ?? 0;
    return spaces > 0 ? [spaces] : [];
  });
  if (widths.length === 0) return lines;
  const unit = Math.min(...widths);
  return lines.map((l, i) =>
    i === 0 ? l : l.replace(/^ +(?=\S)/, (s) => "\t".repeat(Math.max(1, Math.round(s.length / unit)))),
  );
}

function indentAt(text: string, lineStart: number): string {
  let end = lineStart;
  while (text[end] === " " || text[end] === "\t") end++;
  return text.slice(lineStart, end);
}
