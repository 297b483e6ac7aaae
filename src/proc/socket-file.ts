/**
 * A Unix socket a confined process made, about to be connected to from the host: the folder it lies in is writable
 * inside the sandbox, so the name may have been replaced by a link (to the Docker daemon's socket, say), which a
 * connect follows. Checked just before each connection: the name itself must be a socket.
 */
import { lstatSync } from "node:fs";

/** Throws unless `file` is a socket itself (not a link to one, not another kind of file). */
export function expectSocketFile(file: string): void {
  let kind = "missing";
  try {
    const info = lstatSync(file);
    if (info.isSocket()) return;
    kind = info.isSymbolicLink() ? "a link" : "not a socket";
  } catch {
    // missing
  }
  throw new Error(`${file} is ${kind}: a confined process's socket is connected to only as itself`);
}
