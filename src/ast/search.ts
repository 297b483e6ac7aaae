/**
 * Structural search over files: a literal prefilter (a file lacking one of the pattern's words is never parsed —
 * parsing is most of the cost), trees kept from earlier searches when the text is unchanged, then matching — on
 * the calling thread for a few small files, on the run's search workers (one per core) for more or larger ones.
 */
import { statSync } from "node:fs";
import type { Grammar } from "../../grammars/index.js";
import type { CompiledPattern } from "./compile.js";
import { type FileMatches, type FileRef, matchFile } from "./match.js";
import type { SearchPool } from "./pool.js";
import type { TreeCache } from "./tree-cache.js";

export type { AstMatch, FileMatches, FileRef } from "./match.js";

export interface SearchOutcome {
  readonly files: FileMatches[];
  readonly searched: number;
  /** Where the files were parsed and matched. */
  readonly ranOn: "calling thread" | "search workers";
  /** Files whose tree was parsed by this search, and files whose tree an earlier search had kept. */
  readonly parsed: number;
  readonly reused: number;
}

/** Below this many files the workers' hand-off costs more than it saves… */
const LOCAL_LIMIT = 64;
/**
 * …unless they are large: parsing blocks the thread it runs on, and the calling thread is the host's (one 2.6 MB file
 * held its event loop — its UI, its other runs — for 0.5–1.3 s).
 */
const LOCAL_BYTES = 256 * 1024;

function fewAndSmall(files: readonly FileRef[]): boolean {
  if (files.length > LOCAL_LIMIT) return false;
  let total = 0;
  for (const file of files) {
    try {
      total += statSync(file.abs).size;
    } catch {
      // Unreadable: matchFile skips it.
    }
    if (total > LOCAL_BYTES) return false;
  }
  return true;
}

export interface SearchPlace {
  readonly pool: SearchPool;
  /** The calling thread's own trees (for searches of a few files). */
  readonly trees: TreeCache;
  /** A number per search, for the tree caches' eviction. */
  readonly search: number;
}

export async function searchFiles(
  files: readonly FileRef[],
  grammar: Grammar,
  compiled: CompiledPattern,
  signal: AbortSignal,
  place: SearchPlace,
  withText: boolean,
  /** Matches per file to turn into answers; the rest are only counted. */
  keep = Number.POSITIVE_INFINITY,
): Promise<SearchOutcome> {
  let found: FileMatches[] = [];
  let parsed = 0;
  let reused = 0;
  const here = fewAndSmall(files);
  if (here) {
    for (const file of files) {
      signal.throwIfAborted();
      const one = matchFile(file, grammar.lang, compiled.rule, compiled, place.trees, place.search, keep);
      if (one.cost === "parsed") parsed++;
      else if (one.cost === "reused") reused++;
      if (one.found) found.push(one.found);
    }
  } else {
    ({ found, parsed, reused } = await place.pool.search(
      place.search,
      grammar.lang,
      compiled.rule,
      compiled,
      files,
      withText,
      keep,
      signal,
    ));
  }
  found.sort((a, b) => a.file.rel.localeCompare(b.file.rel));
  return {
    files: found,
    searched: files.length,
    parsed,
    reused,
    ranOn: here ? "calling thread" : "search workers",
  };
}
