/**
 * Reading only regular files. A named pipe in the workdir (a cell's `os.mkfifo`, a file swapped for one) blocks
 * whoever opens it until something writes to it: a synchronous read held the host's event loop for good, an
 * asynchronous one a libuv thread. Files are opened without blocking, then checked by their open descriptor, so a
 * swap between a stat and the read cannot get past it either.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync, type Stats, statSync } from "node:fs";
import { open } from "node:fs/promises";
import { ToolError } from "../errors.js";

const FLAGS = constants.O_RDONLY | constants.O_NONBLOCK;

/** What a file that is not regular is, as answers say it; undefined for a regular file or a folder. */
export function specialKind(stats: Stats): string | undefined {
  if (stats.isFIFO()) return "a named pipe (FIFO)";
  if (stats.isSocket()) return "a socket";
  if (stats.isCharacterDevice()) return "a character device";
  if (stats.isBlockDevice()) return "a block device";
  return undefined;
}

/** What the path is when it is there but is not a regular file or a folder; undefined otherwise (or missing). */
export function specialKindOf(file: string): string | undefined {
  try {
    return specialKind(statSync(file));
  } catch {
    return undefined;
  }
}

/** Why a file tool does not open it (`shown`: the file as the answer names it). */
export function notRegularMessage(shown: string, kind: string, tool: string): string {
  return `${shown} is ${kind}, not a regular file; ${tool} works on regular files only (opening a pipe can wait for a writer forever). Nothing was read or changed.`;
}

/** A regular file's bytes, or `{ kind }` for anything else; what a missing file throws is thrown (ENOENT). */
export function readRegularSync(file: string): Buffer | { kind: string } {
  const fd = openSync(file, FLAGS);
  try {
    const kind = specialKind(fstatSync(fd));
    return kind ? { kind } : readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The same without holding the thread. */
export async function readRegular(file: string): Promise<Buffer | { kind: string }> {
  const handle = await open(file, FLAGS);
  try {
    const kind = specialKind(await handle.stat());
    return kind ? { kind } : await handle.readFile();
  } finally {
    await handle.close();
  }
}

/** The first `max` bytes of a regular file (enough to tell its shape), or `{ kind }` for anything else. */
export async function readRegularHead(file: string, max: number): Promise<Buffer | { kind: string }> {
  const handle = await open(file, FLAGS);
  try {
    const kind = specialKind(await handle.stat());
    if (kind) return { kind };
    const { buffer, bytesRead } = await handle.read({ buffer: Buffer.alloc(max), position: 0 });
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** Whether a read got a regular file's bytes (otherwise it says what the file is). */
export function isBytes(read: Buffer | { kind: string }): read is Buffer {
  return Buffer.isBuffer(read);
}

/** The bytes a read got; a ToolError naming what the file is when it is not a regular one. */
export function regularBytes(read: Buffer | { kind: string }, shown: string, tool: string): Buffer {
  if (!isBytes(read)) throw new ToolError(notRegularMessage(shown, read.kind, tool));
  return read;
}

/** A regular file's text; a ToolError naming what it is otherwise. */
export function regularTextSync(file: string, shown: string, tool: string): string {
  return regularBytes(readRegularSync(file), shown, tool).toString("utf8");
}
