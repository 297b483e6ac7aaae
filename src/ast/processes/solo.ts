/**
 * Searching files larger than the processes' share: each search starts one process for them, sends it one file at
 * a time, and ends it. A large tree costs ~90 bytes per character (a 10 MB minified file: ~1 GB) in native memory
 * that a process keeping trees would hold until its heap is collected and the allocator hands back; a process that
 * exits gives back everything, at once.
 */
import type { ProcessTracker } from "../../proc/tracker.js";
import type { FileRef } from "../match.js";
import { Searcher, SearchStopped } from "./searcher.js";
import type { FileOutcome, SearchJob } from "./task.js";

/** Files larger than this many bytes are searched by a search process (the default per-file limit is 1 MB). */
export const SOLO_BYTES = 2 ** 20;

export interface SoloOutcome {
  readonly found: FileOutcome[];
  readonly parsed: number;
  readonly unreadable: number;
}

export async function searchAlone(
  processes: ProcessTracker,
  job: SearchJob,
  files: readonly (FileRef & { readonly size: number })[],
  signal: AbortSignal,
): Promise<SoloOutcome> {
  const searcher = new Searcher(processes, "a search of large files", 0);
  let current: FileRef | undefined;
  const onAbort = () => void searcher.kill(new SearchStopped(current ? [current] : []));
  signal.addEventListener("abort", onAbort, { once: true });
  const found: FileOutcome[] = [];
  let parsed = 0;
  let unreadable = 0;
  try {
    for (const [id, file] of files.entries()) {
      signal.throwIfAborted();
      current = file;
      const result = await searcher.run({ ...job, id, files: [file] });
      if (result.error) throw new Error(`a search process failed on a large file: ${result.error}`);
      parsed += result.parsed;
      unreadable += result.unreadable;
      found.push(...result.files);
    }
  } finally {
    signal.removeEventListener("abort", onAbort);
    await searcher.end();
  }
  signal.throwIfAborted();
  return { found, parsed, unreadable };
}
