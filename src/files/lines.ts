/**
 * The lines of source files, kept while a stat proves the file unchanged (fingerprint.ts): answers that show one
 * line of a file (a debug stop, an lsp snippet) read it again on every call otherwise — 0.3 ms per 80 KB, ~4 ms for a
 * 2.6 MB file; a stat is ~10 µs. Shared by the run's resources; the most recently read files are kept, as many as
 * the largest answer shows (50 references in as many files: with room for 32, every call read all 50 again, +2 ms on
 * a 300-module project's references) and within a byte budget.
 */
import { readFileSync } from "node:fs";
import { type Fingerprint, fingerprint, unchanged } from "./fingerprint.js";

const kept = new Map<string, { print: Fingerprint; lines: readonly string[] }>();
const KEPT_FILES = 256;
const KEPT_BYTES = 64 * 1024 * 1024;
let keptBytes = 0;

/** The file's lines, or undefined when it cannot be read. */
export function fileLines(file: string): readonly string[] | undefined {
  try {
    const print = fingerprint(file);
    const known = kept.get(file);
    if (known && unchanged(known.print, print)) {
      kept.delete(file);
      kept.set(file, known);
      return known.lines;
    }
    const lines = readFileSync(file, "utf8").split("\n");
    forget(file);
    kept.set(file, { print, lines });
    keptBytes += print.size;
    for (const oldest of kept.keys()) {
      if (kept.size <= KEPT_FILES && keptBytes <= KEPT_BYTES) break;
      if (oldest !== file) forget(oldest);
    }
    return lines;
  } catch {
    forget(file);
    return undefined;
  }
}

function forget(file: string): void {
  const known = kept.get(file);
  if (!known) return;
  kept.delete(file);
  keptBytes -= known.print.size;
}
