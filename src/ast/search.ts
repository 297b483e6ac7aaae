/**
 * Structural search over files: a literal prefilter (a file lacking one of the pattern's words is never parsed —
 * parsing is most of the cost), trees kept from earlier searches when the text is unchanged, then matching — on
 * the calling thread for a few files, on the run's search workers (one per core) for more.
 */
import type { Grammar } from "../../grammars/index.js";
import type { CompiledPattern } from "./compile.js";
import { type FileMatches, type FileRef, matchFile } from "./match.js";
import type { SearchPool } from "./pool.js";
import type { TreeCache } from "./tree-cache.js";

export type { AstMatch, FileMatches, FileRef } from "./match.js";

export interface SearchOutcome {
  readonly files: FileMatches[];
  readonly searched: number;
  /** Files whose tree was parsed by this search, and files whose tree an earlier search had kept. */
  readonly parsed: number;
  readonly reused: number;
}

/** Below this many files the workers' hand-off costs more than it saves. */
const LOCAL_LIMIT = 64;

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
): Promise<SearchOutcome> {
  let found: FileMatches[] = [];
  let parsed = 0;
  let reused = 0;
  if (files.length <= LOCAL_LIMIT) {
    for (const file of files) {
      signal.throwIfAborted();
      const one = matchFile(file, grammar.lang, compiled.rule, compiled, place.trees, place.search);
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
      signal,
    ));
  }
  found.sort((a, b) => a.file.rel.localeCompare(b.file.rel));
  return { files: found, searched: files.length, parsed, reused };
}
