/**
 * The search processes of one run: one per core, started as a search first needs them, kept warm (with the trees
 * they parsed), ended with the run. Each file goes to the process that holds its tree (else one chosen by a hash of
 * its path), so a later search finds the tree where it was parsed. A process that runs out of its own files takes
 * files whose tree no process holds from another's queue, so a few large files do not stall the rest; files whose
 * tree another holds only from a queue still long enough to be worth a parse. A search that is stopped (its call
 * cancelled, or its deadline reached) ends the processes still matching for it: native matching cannot be
 * interrupted, and the next search starts them again.
 */
import { availableParallelism } from "node:os";
import { IdleCheck } from "../../idle.js";
import type { ProcessTracker } from "../../proc/tracker.js";
import type { FileRef } from "../match.js";
import { failureOf, Searcher, SearchStopped } from "./searcher.js";
import type { FileOutcome, SearchJob, SearchTask } from "./task.js";

/**
 * A task is at most this many files or bytes of source (at least one file): each task is two messages through a
 * pipe, so 100,000 small files as tasks of 16 were 12,500 messages; large files still spread over the processes.
 */
const CHUNK = { files: 256, bytes: 128 * 1024 };
/** Another process's searched files are taken only from a queue longer than this. */
const STEAL_HOMED_ABOVE = 96;
/** A search of fewer files uses only the processes its files are routed to (a one-file search starts one). */
const ALL_PROCESSES_FROM = 32;

export const SEARCH_PROCESSES = Math.max(1, availableParallelism());

export class SearchPool {
  readonly #tracker: ProcessTracker;
  readonly #slots: (Searcher | undefined)[] = Array.from({ length: SEARCH_PROCESSES }, () => undefined);
  readonly #treeBudget: number;
  /** Which process holds each file's tree (as far as its last search of the file tells). */
  readonly #home = new Map<string, number>();
  #next = 0;
  readonly #idleMs: number;
  readonly #idle: IdleCheck;
  #searching = 0;
  #lastUse = Date.now();

  /**
   * `treeBudget`: bytes of parsed trees each process may keep between searches (0: none); `idleMs`: after this
   * long without a search the processes end, their trees with them (0: never).
   */
  constructor(
    tracker: ProcessTracker,
    treeBudget: number,
    idleMs: number,
    /** Where runbound's home keeps the grammars not shipped with it (each process registers them). */
    private readonly grammarsFrom?: string,
  ) {
    this.#tracker = tracker;
    this.#treeBudget = treeBudget;
    this.#idleMs = idleMs;
    this.#idle = new IdleCheck(idleMs, () => {
      if (this.#searching === 0 && Date.now() - this.#lastUse >= this.#idleMs) void this.#endAll();
    });
  }

  #searcher(i: number): Searcher {
    const kept = this.#slots[i];
    if (kept?.alive) return kept;
    if (kept) this.#forget(i);
    const started = new Searcher(this.#tracker, "a search process", this.#treeBudget, this.grammarsFrom);
    this.#slots[i] = started;
    return started;
  }

  /** The trees of a process that ended are gone with it (unless another already took its place). */
  #forget(i: number, searcher?: Searcher): void {
    if (searcher && this.#slots[i] !== searcher) return;
    this.#slots[i] = undefined;
    for (const [file, home] of this.#home) if (home === i) this.#home.delete(file);
  }

  /**
   * One task on process `i`. A process ended for another search (stopped while it also had this task) is replaced
   * and the task sent again; one that crashed or that the system ended stops this search.
   */
  async #match(
    i: number,
    task: SearchTask,
    signal: AbortSignal,
    matching: Map<number, { searcher: Searcher; chunk: FileRef[] }>,
  ) {
    for (let attempt = 0; ; attempt++) {
      const searcher = this.#searcher(i);
      matching.set(i, { searcher, chunk: [...task.files] });
      try {
        const result = await searcher.run(task);
        matching.delete(i);
        return result;
      } catch (error) {
        if (!(error instanceof SearchStopped)) throw error;
        this.#forget(i, searcher);
        if (error.exit !== undefined || signal.aborted || attempt > 0) throw error;
      }
    }
  }

  async search(job: SearchJob, files: readonly FileRef[], signal: AbortSignal) {
    const slots = this.#slots.length;
    // Per process: the files whose trees it holds, and files whose tree no process holds.
    const queues = this.#slots.map(() => ({ homed: new FileQueue(), fresh: new FileQueue() }));
    for (const file of files) {
      const home = this.#home.get(file.abs);
      if (home === undefined) queues[hashed(file.abs, slots)]!.fresh.push(file);
      else queues[home]!.homed.push(file);
    }
    const take = (own: (typeof queues)[number]): FileRef[] | undefined => {
      if (own.homed.length) return own.homed.front();
      if (own.fresh.length) return own.fresh.front();
      // A fresh file costs a parse wherever it goes; taking another's searched file costs the tree it may keep.
      const fresh = queues.reduce((a, b) => (b.fresh.length > a.fresh.length ? b : a));
      if (fresh.fresh.length) return fresh.fresh.back();
      const homed = queues.reduce((a, b) => (b.homed.length > a.homed.length ? b : a));
      return homed.homed.length > STEAL_HOMED_ABOVE ? homed.homed.back() : undefined;
    };
    const found: FileOutcome[] = [];
    let parsed = 0;
    let reused = 0;
    let unreadable = 0;
    // What each process is matching for this search: a stopped search ends exactly those.
    const matching = new Map<number, { searcher: Searcher; chunk: FileRef[] }>();
    const stop = () => {
      for (const [i, { searcher, chunk }] of matching) {
        void searcher.kill(new SearchStopped(chunk));
        this.#forget(i, searcher);
      }
    };
    signal.addEventListener("abort", stop, { once: true });
    this.#searching++;
    const feed = async (i: number): Promise<void> => {
      for (let chunk = take(queues[i]!); chunk; chunk = take(queues[i]!)) {
        signal.throwIfAborted();
        const result = await this.#match(i, { ...job, id: this.#next++, files: chunk }, signal, matching);
        if (result.error) throw new Error(`a search process failed: ${result.error}`);
        for (const k of result.held) this.#home.set(chunk[k]!.abs, i);
        for (const k of result.dropped)
          if (this.#home.get(chunk[k]!.abs) === i) this.#home.delete(chunk[k]!.abs);
        parsed += result.parsed;
        reused += result.reused;
        unreadable += result.unreadable;
        found.push(...result.files);
      }
    };
    const used = queues.flatMap((q, i) =>
      files.length >= ALL_PROCESSES_FROM || q.homed.length || q.fresh.length ? [i] : [],
    );
    try {
      // Every feed ends before the search answers (none left sending to a process), stopped or not.
      const failure = failureOf(await Promise.allSettled(used.map(feed)));
      if (failure) throw failure;
    } finally {
      signal.removeEventListener("abort", stop);
      this.#searching--;
      this.#lastUse = Date.now();
    }
    return { found, parsed, reused, unreadable };
  }

  async dispose(): Promise<void> {
    this.#idle.dispose();
    await this.#endAll();
  }

  async #endAll(): Promise<void> {
    this.#home.clear();
    const slots = [...this.#slots];
    this.#slots.fill(undefined);
    await Promise.all(slots.map((s) => s?.end()));
  }
}

/**
 * Files waiting for a process: its own taken from the front, another's from the back, the rest never moved (taking
 * 16 from the front of an array of 50,000 moved the other 49,984: 0.7 s of the host's time for 100,000 files).
 */
class FileQueue {
  readonly #items: FileRef[] = [];
  #head = 0;

  get length(): number {
    return this.#items.length - this.#head;
  }

  push(file: FileRef): void {
    this.#items.push(file);
  }

  /** A task's worth of files from the front. */
  front(): FileRef[] {
    const end = this.#head + chunkLength(this.#items, this.#head, 1);
    const taken = this.#items.slice(this.#head, end);
    this.#head = end;
    return taken;
  }

  /** A task's worth of files from the back. */
  back(): FileRef[] {
    const n = chunkLength(this.#items, this.#items.length - 1, -1, this.length);
    return this.#items.splice(this.#items.length - n);
  }
}

/** How many files from `from` (walking by `step`, at most `most`) make one task. */
function chunkLength(
  items: readonly FileRef[],
  from: number,
  step: 1 | -1,
  most = items.length - from,
): number {
  let n = 0;
  let bytes = 0;
  while (n < most && n < CHUNK.files && (n === 0 || bytes < CHUNK.bytes)) {
    bytes += items[from + n * step]?.size ?? 4096;
    n++;
  }
  return n;
}

/** FNV-1a of the path: a file no process has searched yet goes to the same one every time. */
function hashed(file: string, slots: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < file.length; i++) h = Math.imul(h ^ file.charCodeAt(i), 0x01000193);
  return (h >>> 0) % slots;
}
