/**
 * Staging one file's rewrite: every outermost match replaced by its rendered template, in one pass from the top
 * (re-splicing the whole text once per match held the event loop 25 s on a dense 1 MB file). Runs where the file
 * was matched — in a search process, so the host's thread only stores the result.
 */

import { eolAt, shapeOf, sizeText } from "../../files/text.js";
import { notUtf8Message } from "../../files/utf8.js";
import { shownPath } from "../../files/visible.js";
import type { FileMatches } from "../match.js";
import { snippet } from "../snippet.js";
import { lineStarts, renderRewrite } from "./rewrite.js";

/** The most replacements one ast_edit stages: past it the edit is refused with the count. */
export const MAX_REPLACEMENTS = 5000;
/** Preview rows an answer shows. */
export const MAX_PREVIEW = 12;

export interface StagedText {
  readonly updated: string;
  readonly replacements: number;
  /** The first MAX_PREVIEW replacements, as `path:line` with the old and the new text. */
  readonly preview: string[];
}

/**
 * A rewrite may make a file at most this much larger (a template that repeats a large capture would otherwise
 * grow a file without bound).
 */
export function stagedLimit(original: number): number {
  return original * 4 + 2 ** 20;
}

/**
 * The file's text with the rewrite applied (its matches are the outermost, in the order of the text), or why it is
 * refused. A file with more matches than one ast_edit stages is not rendered: the edit is refused with the count.
 */
export function stageFile(
  found: FileMatches,
  rewrite: string,
): StagedText | { readonly refused: string } | undefined {
  if (found.total > MAX_REPLACEMENTS) return undefined;
  if (found.nonUtf8 !== undefined)
    return {
      refused: notUtf8Message(
        shownPath(found.file.rel),
        found.nonUtf8,
        "nothing was staged",
        "; or narrow `path` to leave it out",
      ),
    };
  const limit = stagedLimit(found.text.length);
  const pieces: string[] = [];
  const preview: string[] = [];
  let size = 0;
  let at = 0;
  const lineStartOf = lineStarts(found.text);
  // In a file with CRLF lines, a rewrite's line breaks are those of the line it is on (the template has "\n").
  const eol = found.text.includes("\r\n") ? shapeOf(found.text).eol : undefined;
  for (const m of found.matches) {
    const rendered = renderRewrite(rewrite, m, found.text, lineStartOf);
    const replaced = eol ? rendered.replace(/\r?\n/g, eolAt(found.text, m.start, eol)) : rendered;
    size += m.start - at + replaced.length;
    if (size > limit)
      return {
        refused: `The rewrite would make ${shownPath(found.file.rel)} more than ${sizeText(limit)} (it is ${sizeText(found.text.length)}); nothing was staged. \`rewrite\` repeats a large capture: use each metavariable once, or narrow \`path\` or the pattern and rewrite in parts.`,
      };
    pieces.push(found.text.slice(at, m.start), replaced);
    at = m.end;
    if (preview.length < MAX_PREVIEW) {
      // The file's path once, above its first replacement; each replacement by its line, the new code under the old.
      const head = preview.length === 0 ? `${shownPath(m.path)}\n` : "";
      const line = `  ${m.line}  `;
      preview.push(`${head}${line}- ${snippet(m.text)}\n${" ".repeat(line.length)}+ ${snippet(replaced)}`);
    }
  }
  pieces.push(found.text.slice(at));
  return { updated: pieces.join(""), replacements: found.matches.length, preview };
}
