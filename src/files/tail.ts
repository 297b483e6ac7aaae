/**
 * The last lines of a file a run's processes write (a kernel's stderr, an interpreter's status), as printable text.
 * Opened without following a link and without blocking, and only a regular file is read: the writer is the run's
 * code, which can put a link or a pipe where the file should be.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { visibleLine, withoutTerminalEscapes } from "./visible.js";

/** Up to `maxLines` of the last `maxBytes`; undefined when there is no such file or nothing in it. */
export function visibleTail(file: string, maxBytes: number, maxLines: number): string | undefined {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.size === 0) return undefined;
    const length = Math.min(stat.size, maxBytes);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, stat.size - length);
    const lines = buffer
      .toString("utf8")
      .split("\n")
      // Colour codes (Deno colours its warnings) are formatting, not words.
      .map((l) => visibleLine(withoutTerminalEscapes(l).replace(/\r$/, "")).trimEnd())
      .filter(Boolean);
    // A cut first line is a piece of a line: left out.
    if (stat.size > length) lines.shift();
    const tail = lines.slice(-maxLines);
    return tail.length ? tail.join("\n") : undefined;
  } finally {
    closeSync(fd);
  }
}
