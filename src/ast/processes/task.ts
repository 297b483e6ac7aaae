/**
 * One share of a search, as a search process (one of the run's, or one of its own for files too large to keep
 * trees of) runs it: read, prefilter, parse or reuse, match — and, for ast_edit, stage the rewrite there too.
 */
import type { NapiConfig } from "@ast-grep/napi";
import { type FileMatches, type FileRef, type MatchSpec, matchFile } from "../match.js";
import { MAX_REPLACEMENTS, type StagedText, stageFile } from "../rewrite/staging.js";
import type { TreeCache } from "./tree-cache.js";

/** What a search asks of every file, wherever the file is matched. */
export interface SearchJob {
  /** The search this belongs to (the tree cache never evicts a tree the same search used). */
  readonly search: number;
  readonly lang: string;
  readonly rule: NapiConfig;
  readonly spec: MatchSpec;
  /** Matches per file to turn into answers (a search shows at most max_results); the rest are counted. */
  readonly keep: number;
  /** ast_edit's template: files are staged where they are matched, and sent back with their text. */
  readonly rewrite?: string;
}

export interface SearchTask extends SearchJob {
  readonly id: number;
  readonly files: readonly FileRef[];
}

/** A matched file; for a rewrite, with its staged text (or why it was refused) instead of its matches. */
export interface FileOutcome extends FileMatches {
  readonly staged?: StagedText | { readonly refused: string };
}

export interface SearchTaskResult {
  readonly id: number;
  readonly files: FileOutcome[];
  parsed: number;
  reused: number;
  /** Files that could not be read. */
  unreadable: number;
  /** Indexes into the task's files: the trees this process now holds, and the files it parsed without keeping. */
  readonly held: number[];
  readonly dropped: number[];
  error?: string;
}

/**
 * Runs one task against `trees`; an error is sent back, not thrown. `afterFile` runs between files (a process
 * collects the trees it let go there).
 */
export async function runTask(
  task: SearchTask,
  trees: TreeCache,
  afterFile: () => Promise<void>,
): Promise<SearchTaskResult> {
  const result: SearchTaskResult = {
    id: task.id,
    files: [],
    parsed: 0,
    reused: 0,
    unreadable: 0,
    held: [],
    dropped: [],
  };
  try {
    for (const [i, file] of task.files.entries()) {
      if (i > 0) await afterFile();
      const { cost, held, found } = matchOne(file, task, trees);
      if (cost === "parsed") result.parsed++;
      else if (cost === "reused") result.reused++;
      else if (cost === "unreadable") result.unreadable++;
      if (held === true) result.held.push(i);
      else if (held === false) result.dropped.push(i);
      if (found) result.files.push(found);
    }
  } catch (error) {
    result.error = (error as Error).message;
  }
  return result;
}

/** One file of a job: its matches for a search (without its text), its staged text for a rewrite. */
export function matchOne(file: FileRef, job: SearchJob, trees: TreeCache) {
  const rewriting = job.rewrite !== undefined;
  // One more than an ast_edit stages: enough to tell that it is too many.
  const options = rewriting ? { outermost: MAX_REPLACEMENTS + 1 } : { keep: job.keep };
  const { cost, held, found } = matchFile(file, job.lang, job.rule, job.spec, trees, job.search, options);
  if (!found) return { cost, held };
  if (job.rewrite === undefined) return { cost, held, found: { ...found, text: "" } };
  const staged = stageFile(found, job.rewrite);
  return { cost, held, found: { ...found, matches: [], ...(staged ? { staged } : {}) } };
}
