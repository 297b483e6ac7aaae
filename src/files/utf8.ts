/**
 * Text that is not UTF-8 (a Latin-1 comment, a stray byte): decoding it puts U+FFFD where those bytes were, and
 * writing that text back would replace them in the file — an edit of one line would change another. The tools
 * that change a file refuse it whole, saying where; read says so above what it shows.
 */
import { isUtf8 } from "node:buffer";
import { ToolError } from "../errors.js";
import { readRegular, regularBytes } from "./regular.js";

/** The 1-based line of the first bytes that are not UTF-8, or undefined when every byte is. */
export function firstNonUtf8Line(bytes: Uint8Array): number | undefined {
  if (isUtf8(bytes)) return undefined;
  let line = 1;
  for (let start = 0; start < bytes.length; line++) {
    let end = bytes.indexOf(0x0a, start);
    if (end === -1) end = bytes.length;
    if (!isUtf8(bytes.subarray(start, end))) return line;
    start = end + 1;
  }
  return line;
}

/** Why a tool that changes files does not change this one, and what to do instead (`or`: another way). */
export function notUtf8Message(
  shown: string,
  line: number,
  changed = "nothing was changed",
  or = "",
): string {
  return `${shown} is not UTF-8 text (line ${line} has bytes that are not UTF-8: Latin-1 or another legacy encoding?). Writing it back would replace those bytes with U+FFFD, so ${changed}. Convert the file to UTF-8 first (e.g. \`iconv -f latin1 -t utf-8\`), then change it${or}.`;
}

/** A file's text for a tool that will write it back; a ToolError (naming it as `shown`) when it is not a regular file of UTF-8. */
export async function readUtf8(real: string, shown: string, tool: string): Promise<string> {
  const bytes = regularBytes(await readRegular(real), shown, tool);
  const line = firstNonUtf8Line(bytes);
  if (line !== undefined) throw new ToolError(notUtf8Message(shown, line));
  return bytes.toString("utf8");
}
