import { plural } from "../files/text.js";
import { shownPath } from "../files/visible.js";
import type { AstMatch } from "./match.js";

/** One-line renderings of matched code for answers: at most three lines, joined by ⏎, each cut at 160 characters. */
export function snippet(text: string): string {
  const lines = text.split("\n", 4);
  const total = lines.length > 3 ? countLines(text) : lines.length;
  const shown = lines
    .slice(0, 3)
    .map((l, i) => (i === 0 ? l : l.trim()))
    .map((l) => (l.length > 160 ? `${l.slice(0, 160)}…` : l));
  return shown.join(" ⏎ ") + (total > 3 ? ` ⏎ … (${plural(total - 3, "more line")})` : "");
}

function countLines(text: string): number {
  let n = 1;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) n++;
  return n;
}

/** Matches under their file's path, a row each: line and code, and the captures when the code shown is not whole. */
export function rowsByFile(matches: readonly AstMatch[]): string[] {
  const rows: string[] = [];
  let file = "";
  for (const m of matches) {
    if (m.path !== file) rows.push(shownPath(m.path));
    file = m.path;
    const shown = snippet(m.text);
    rows.push(`  ${m.line}  ${shown}${shown === m.text ? "" : captureLine(m)}`);
  }
  return rows;
}

/** The captures of a match, for one whose code is cut or spans lines (the row shows it whole otherwise). */
function captureLine(m: AstMatch): string {
  const entries = Object.entries(m.captures);
  if (entries.length === 0) return "";
  return `\n      ${entries.map(([k, v]) => `$${k} = ${v.length > 80 ? `${v.slice(0, 80)}…` : v.replace(/\n/g, " ⏎ ")}`).join("; ")}`;
}
