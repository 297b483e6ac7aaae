/**
 * Structural search over files: a literal prefilter (a file lacking one of the pattern's words is never parsed —
 * parsing is most of the cost), trees kept from earlier searches when the text is unchanged, then matching — on
 * the calling thread for a few small files, on the run's search workers (one per core) for more or larger ones,
 * and in a search process of its own for files over a megabyte.
 */
import { statSync } from "node:fs";
import type { Grammar } from "../../grammars/index.js";
import type { ProcessTracker } from "../proc/tracker.js";
import type { FileRef, Matcher } from "./match.js";
import type { SearchPool } from "./pool.js";
import { SOLO_BYTES, searchAlone } from "./solo.js";
import { type FileOutcome, matchOne, type SearchJob } from "./task.js";
import type { TreeCache } from "./tree-cache.js";

export type { AstMatch, FileMatches, FileRef } from "./match.js";
export type { FileOutcome } from "./task.js";

export type Ran = "calling thread" | "search workers" | "search process";

export interface SearchOutcome {
  readonly files: FileOutcome[];
  readonly searched: number;
  /** Where the files were parsed and matched. */
  readonly ranOn: Ran[];
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

export interface SearchPlace {
  readonly pool: SearchPool;
  /** The calling thread's own trees (for searches of a few files). */
  readonly trees: TreeCache;
  /** A number per search, for the tree caches' eviction. */
  readonly search: number;
  /** Where a search process for large files is started. */
  readonly processes: ProcessTracker;
}

/** `how`: matches per file to turn into answers (the rest are counted), or the template a rewrite stages. */
export async function searchFiles(
  files: readonly FileRef[],
  grammar: Grammar,
  compiled: Matcher,
  signal: AbortSignal,
  place: SearchPlace,
  how: { readonly keep: number } | { readonly rewrite: string },
): Promise<SearchOutcome> {
  const job: SearchJob = {
    search: place.search,
    lang: grammar.lang,
    rule: compiled.rule,
    spec: compiled,
    keep: "keep" in how ? how.keep : Number.POSITIVE_INFINITY,
    ...("rewrite" in how ? { rewrite: how.rewrite } : {}),
  };
  const sized = files.map((file) => ({ ...file, size: file.size ?? sizeOf(file) }));
  const large = sized.filter((f) => f.size > SOLO_BYTES);
  const small = sized.filter((f) => f.size <= SOLO_BYTES);
  const rest = small.map(({ abs, rel }) => ({ abs, rel }));
  const here = rest.length <= LOCAL_LIMIT && small.reduce((n, f) => n + f.size, 0) <= LOCAL_BYTES;
  const ranOn: Ran[] = [];
  const found: FileOutcome[] = [];
  let parsed = 0;
  let reused = 0;
  const [alone] = await Promise.all([
    large.length ? searchAlone(place.processes, job, large, signal) : undefined,
    (async () => {
      if (rest.length === 0) return;
      if (here) {
        for (const file of rest) {
          signal.throwIfAborted();
          const one = matchOne(file, job, place.trees);
          if (one.cost === "parsed") parsed++;
          else if (one.cost === "reused") reused++;
          if (one.found) found.push(one.found);
        }
      } else {
        const pooled = await place.pool.search(job, rest, signal);
        found.push(...pooled.found);
        parsed += pooled.parsed;
        reused += pooled.reused;
      }
    })(),
  ]);
  if (rest.length) ranOn.push(here ? "calling thread" : "search workers");
  if (alone) {
    ranOn.push("search process");
    found.push(...alone.found);
    parsed += alone.parsed;
  }
  found.sort((a, b) => a.file.rel.localeCompare(b.file.rel));
  return { files: found, searched: files.length, parsed, reused, ranOn };
}

function sizeOf(file: FileRef): number {
  try {
    return statSync(file.abs).size;
  } catch {
    return 0; // Unreadable: matchFile skips it.
  }
}
