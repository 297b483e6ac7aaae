/**
 * Structural search over files: a literal prefilter (a file lacking one of the pattern's words is never parsed —
 * parsing is most of the cost), trees kept from earlier searches when the text is unchanged, then matching — in the
 * run's search processes (one per core), and in a process of its own for files over a megabyte. Never on the
 * calling thread: it is the host's, and matching is native code that cannot be interrupted (a benign rule over a
 * hostile file nested 100,000 levels deep runs for minutes), so a search that is cancelled or reaches its deadline
 * ends the processes still matching for it.
 */
import { statSync } from "node:fs";
import type { Grammar } from "../../grammars/index.js";
import { ToolError } from "../errors.js";
import { sizeText } from "../files/text.js";
import { shownPath } from "../files/visible.js";
import type { ProcessTracker } from "../proc/tracker.js";
import type { FileRef, Matcher } from "./match.js";
import type { SearchPool } from "./processes/pool.js";
import { failureOf, SearchStopped } from "./processes/searcher.js";
import { SOLO_BYTES, searchAlone } from "./processes/solo.js";
import type { FileOutcome, SearchJob } from "./processes/task.js";

export type { AstMatch, FileMatches, FileRef } from "./match.js";
export type { FileOutcome } from "./processes/task.js";

export type Ran = "search processes" | "search process of its own";

export interface SearchOutcome {
  readonly files: FileOutcome[];
  readonly searched: number;
  /** Where the files were parsed and matched. */
  readonly ranOn: Ran[];
  /** Files whose tree was parsed by this search, and files whose tree an earlier search had kept. */
  readonly parsed: number;
  readonly reused: number;
  /** Files that could not be read when their turn came (gone, or no longer regular files). */
  readonly unreadable: number;
}

export interface SearchPlace {
  readonly pool: SearchPool;
  /** A number per search, for the tree caches' eviction. */
  readonly search: number;
  /** Where a search process for large files is started. */
  readonly processes: ProcessTracker;
  /** How long a search may run before it is stopped. */
  readonly seconds: number;
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
  const rest = sized.filter((f) => f.size <= SOLO_BYTES);
  const deadline = AbortSignal.timeout(place.seconds * 1000);
  const stopping = AbortSignal.any([signal, deadline]);
  const [pooled, alone] = await Promise.allSettled([
    rest.length ? place.pool.search(job, rest, stopping) : undefined,
    large.length ? searchAlone(place.processes, job, large, stopping) : undefined,
  ]);
  if (pooled.status === "rejected" || alone.status === "rejected") {
    signal.throwIfAborted();
    throw stoppedAnswer([pooled, alone], sized, place.seconds);
  }
  const ranOn: Ran[] = [];
  // Concatenated, never spread as arguments: 130,000 matched files overflowed the stack.
  let found: FileOutcome[] = [];
  let parsed = 0;
  let reused = 0;
  let unreadable = 0;
  if (pooled.value) {
    ranOn.push("search processes");
    found = found.concat(pooled.value.found);
    parsed += pooled.value.parsed;
    reused += pooled.value.reused;
    unreadable += pooled.value.unreadable;
  }
  if (alone.value) {
    ranOn.push("search process of its own");
    found = found.concat(alone.value.found);
    parsed += alone.value.parsed;
    unreadable += alone.value.unreadable;
  }
  found.sort((a, b) => a.file.rel.localeCompare(b.file.rel));
  return { files: found, searched: files.length, parsed, reused, unreadable, ranOn };
}

/** What a search that did not finish answers: where it was when it stopped, and why. */
function stoppedAnswer(
  outcomes: readonly PromiseSettledResult<unknown>[],
  sized: readonly (FileRef & { readonly size: number })[],
  seconds: number,
): Error {
  const stopped = failureOf(outcomes);
  if (!(stopped instanceof SearchStopped)) return stopped ?? new Error("the search failed");
  const files = stopped.files;
  const sizes = new Map(sized.map((f) => [f.abs, f.size]));
  const where = namedFiles(files, sizes);
  const { exit } = stopped;
  if (exit?.startsWith("SIGKILL"))
    return new ToolError(
      `The search of ${where} was ended by the system (${exit}); the host and the run are unaffected, nothing was answered. ${
        files.length === 1
          ? "Leave that file out with a narrower `path` (a harness can lower ast.maxFileKB to skip files this large)."
          : "Search a narrower `path`: fewer files at once, or without those."
      }`,
    );
  if (exit)
    return new ToolError(
      `The search process matching ${where} ended (${exit}); the host and the run are unaffected, nothing was answered. Leave ${files.length === 1 ? "that file" : "those files"} out with a narrower \`path\`.`,
    );
  return new ToolError(
    `The search stopped after ${seconds} s (the run's ast.searchSeconds) while matching ${where}; nothing was answered. Matching time grows with how deeply a file nests where a rule's \`inside\` or \`has\` has stopBy "end" (or a pattern nests deeply): search a narrower \`path\` that leaves ${files.length === 1 ? "that file" : "those files"} out, or a simpler rule.`,
  );
}

/** Up to three files by name (with their size when one), the rest counted. */
function namedFiles(files: readonly FileRef[], sizes: ReadonlyMap<string, number>): string {
  const one = files[0];
  if (files.length === 1 && one) return `${shownPath(one.rel)} (${sizeText(sizes.get(one.abs) ?? 0)})`;
  const named = files.slice(0, 3).map((f) => shownPath(f.rel));
  return `one of ${named.join(", ")}${files.length > 3 ? ` and ${files.length - 3} more` : ""} (${files.length} files)`;
}

function sizeOf(file: FileRef): number {
  try {
    return statSync(file.abs).size;
  } catch {
    return 0; // Unreadable: matchFile skips it.
  }
}
