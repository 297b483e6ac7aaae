/**
 * The text and lines of source files, kept while a stat proves the file unchanged (fingerprint.ts): answers that
 * show one line of a file (a debug stop, an lsp snippet) or find a symbol on a line read it again on every call
 * otherwise. Shared by the run's resources; the most recently read files are kept, as many as the largest answer
 * shows and within a byte budget (ARCHITECTURE.md's measured notes have the figures).
 */
import { type Fingerprint, fingerprint, unchanged } from "./fingerprint.js";
import { isBytes, readRegularSync } from "./regular.js";

interface Kept {
  print: Fingerprint;
  /** The bytes read: when a stat cannot prove the file unchanged, equal bytes keep the decoded text (and lines). */
  readonly bytes: Buffer;
  readonly text: string;
  /** Split on the first ask for lines. */
  lines?: readonly string[];
}

const kept = new Map<string, Kept>();
const KEPT_FILES = 256;
const KEPT_BYTES = 64 * 1024 * 1024;
let keptBytes = 0;

/** The file's text as it is now, or undefined when it cannot be read. */
export function fileText(file: string): string | undefined {
  return entryOf(file)?.text;
}

/** The file's lines, or undefined when it cannot be read. */
export function fileLines(file: string): readonly string[] | undefined {
  const entry = entryOf(file);
  if (!entry) return undefined;
  entry.lines ??= entry.text.split("\n");
  return entry.lines;
}

function entryOf(file: string): Kept | undefined {
  try {
    const print = fingerprint(file);
    const known = kept.get(file);
    if (known && unchanged(known.print, print)) {
      kept.delete(file);
      kept.set(file, known);
      return known;
    }
    const bytes = readRegularSync(file);
    if (!isBytes(bytes)) {
      forget(file);
      return undefined;
    }
    if (known?.bytes.equals(bytes)) {
      // Decoding is most of a read: the same bytes keep the same text.
      known.print = print;
      kept.delete(file);
      kept.set(file, known);
      return known;
    }
    const entry: Kept = { print, bytes, text: bytes.toString("utf8") };
    forget(file);
    kept.set(file, entry);
    keptBytes += 2 * bytes.length;
    for (const oldest of kept.keys()) {
      if (kept.size <= KEPT_FILES && keptBytes <= KEPT_BYTES) break;
      if (oldest !== file) forget(oldest);
    }
    return entry;
  } catch {
    forget(file);
    return undefined;
  }
}

function forget(file: string): void {
  const known = kept.get(file);
  if (!known) return;
  kept.delete(file);
  keptBytes -= 2 * known.bytes.length;
}
