/**
 * ast_edit's rewrite template: $NAME and $$$NAME are replaced by what the match captured ($$$NAME: the source
 * from its first to its last node). Indentation is carried so that a multi-line result is valid where it lands
 * (it matters for Python): template lines after the first get the match's own indentation, and a multi-line
 * capture is re-indented from where it was to where the template puts it.
 */
import { withoutTrailingLineBreaks } from "../../files/text.js";
import type { AstMatch } from "../match.js";

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
  const lines = inFileIndentation(template.split("\n"), indentUnitAt(fileText, match, base));
  return lines
    .map((line, i) => {
      const lineIndent = base + (line.match(/^[ \t]*/)?.[0] ?? "");
      const filled = line.replace(
        TEMPLATE_VAR,
        (_all, multi: string | undefined, single: string | undefined) => {
          const name = multi ?? single ?? "";
          // A list's last node may end with its line break (Go's statements): the template says where lines end.
          const raw = match.captures[name] ?? "";
          const captured = multi ? withoutTrailingLineBreaks(raw) : raw;
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

/**
 * One level of indentation as the code at the match has it: its first indented line past the match's own line (a
 * tab, or two to eight spaces); undefined when the match is one line or says nothing clear.
 */
function indentUnitAt(fileText: string, match: AstMatch, base: string): string | undefined {
  const inner = /\n([ \t]+)\S/.exec(fileText.slice(match.start, match.end))?.[1];
  if (!inner?.startsWith(base)) return undefined;
  const unit = inner.slice(base.length);
  return unit === "\t" || /^ {2,8}$/.test(unit) ? unit : undefined;
}

/**
 * The template's later lines indented as the file is: a level of the template (its smallest indentation) becomes
 * a level of the code it lands in — tabs in a file of tabs, four spaces in a file of four — so a carried body keeps
 * its indentation and Go's formatter and Python's parser meet one kind. Without a clear level there, as written.
 */
function inFileIndentation(lines: string[], unit: string | undefined): string[] {
  if (!unit) return lines;
  const widths = lines.slice(1).flatMap((l) => {
    const spaces = /^ +/.exec(l)?.[0].length ?? 0;
    return spaces > 0 ? [spaces] : [];
  });
  if (widths.length === 0) return lines;
  const step = Math.min(...widths);
  return lines.map((l, i) =>
    i === 0 ? l : l.replace(/^ +(?=\S)/, (s) => unit.repeat(Math.max(1, Math.round(s.length / step)))),
  );
}

function indentAt(text: string, lineStart: number): string {
  let end = lineStart;
  while (text[end] === " " || text[end] === "\t") end++;
  return text.slice(lineStart, end);
}
