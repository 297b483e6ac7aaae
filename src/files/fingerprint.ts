/**
 * Whether a file's content is what was read before, from a stat alone — the rule git uses for its index ("racy
 * git"): the same inode, size, modification and change times mean the same content, unless the file was changed so
 * recently that a later change could still fall in the same timestamp tick. Such a file is read again every time
 * until it is older than a tick: Linux stamps files in nanoseconds from a clock that moves every 1–10 ms, so 100 ms;
 * a filesystem that stamps whole seconds (FAT: every 2 s) shows it in the digits, so 2 s there. Reading is what this
 * saves: a 2.6 MB source file costs ~0.5 ms to read and its buffer a garbage collection later; a stat microseconds.
 */
import { statSync } from "node:fs";

const FINE_TICK_MS = 100;
const COARSE_TICK_MS = 2000;

export interface Fingerprint {
  readonly ino: number;
  readonly size: number;
  // Milliseconds with a fraction (~0.1 µs apart at today's dates): a change after the tick shows in whole ones.
  readonly mtimeMs: number;
  readonly ctimeMs: number;
  /** Changed long enough before the stat that an equal stat later proves the content unchanged. */
  readonly settled: boolean;
}

/** Taken before the read it vouches for: a change between the two then shows as a different stat next time. */
export function fingerprint(file: string): Fingerprint {
  const s = statSync(file);
  return {
    ino: s.ino,
    size: s.size,
    mtimeMs: s.mtimeMs,
    ctimeMs: s.ctimeMs,
    // The change time, not the modification time: that one can be set back (utimes, cp -p, tar), this one cannot.
    settled: Date.now() - s.ctimeMs >= (s.ctimeMs % 1000 === 0 ? COARSE_TICK_MS : FINE_TICK_MS),
  };
}

/** true when `now` proves the content is still what was read under `then`. */
export function unchanged(then: Fingerprint | undefined, now: Fingerprint): boolean {
  return (
    then?.settled === true &&
    then.ino === now.ino &&
    then.size === now.size &&
    then.mtimeMs === now.mtimeMs &&
    then.ctimeMs === now.ctimeMs
  );
}
