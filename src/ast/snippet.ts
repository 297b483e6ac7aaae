import { plural } from "../files/text.js";

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
