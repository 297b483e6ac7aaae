/**
 * The search workers of one run: one per core, started on the first large search, kept warm (with the trees they
 * parsed), ended with the run. Each file goes to the worker that holds its tree (else one chosen by a hash of its
 * path), so a later search finds the tree where it was parsed. A worker that runs out of its own files takes files
 * whose tree no worker holds from another's queue, so a few large files do not stall the rest; files whose tree
 * another worker holds only from a queue still long enough to be worth a parse.
 */
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import type { FileRef } from "./match.js";
import type { FileOutcome, SearchJob, SearchTask, SearchTaskResult } from "./task.js";

const CHUNK = 16;
/** Another worker's searched files are taken only from a queue longer than this. */
const STEAL_HOMED_ABOVE = 96;

const BOOT = `
const { workerData } = require("node:worker_threads");
(async () => {
  if (workerData.tsx) (await import(workerData.tsx)).register();
  await import(workerData.entry);
})();
`;

export const WORKERS = Math.max(1, availableParallelism());

export class SearchPool {
  readonly #workers: Worker[] = [];
  readonly #treeBudget: number;
  /** Which worker holds each file's tree (as far as its last search of the file tells). */
  readonly #home = new Map<string, number>();
  #next = 0;

  /** `treeBudget`: bytes of parsed trees each worker may keep between searches (0: none). */
  constructor(treeBudget: number) {
    this.#treeBudget = treeBudget;
  }

  #ensure(): Worker[] {
    if (this.#workers.length) return this.#workers;
    // From TypeScript source (tests, tsx) the worker registers tsx's loader first (in Node 20 a loader given in a
    // Worker's execArgv is not applied); from dist it is plain JavaScript.
    const fromSource = import.meta.url.endsWith(".ts");
    const entry = new URL(fromSource ? "./worker.ts" : "./worker.js", import.meta.url).href;
    const workerData = {
      entry,
      tsx: fromSource ? import.meta.resolve("tsx/esm/api") : undefined,
      treeBudget: this.#treeBudget,
    };
    for (let i = 0; i < WORKERS; i++) {
      const worker = new Worker(BOOT, { eval: true, workerData });
      worker.unref();
      this.#workers.push(worker);
    }
    return this.#workers;
  }

  async search(job: SearchJob, files: readonly FileRef[], signal: AbortSignal) {
    const workers = this.#ensure();
    // Per worker: the files whose trees it holds, and files whose tree no worker holds.
    const queues = workers.map(() => ({ homed: new FileQueue(), fresh: new FileQueue() }));
    for (const file of files) {
      const home = this.#home.get(file.abs);
      if (home === undefined) queues[hashed(file.abs, workers.length)]!.fresh.push(file);
      else queues[home]!.homed.push(file);
    }
    const take = (own: (typeof queues)[number]): FileRef[] | undefined => {
      if (own.homed.length) return own.homed.front(CHUNK);
      if (own.fresh.length) return own.fresh.front(CHUNK);
      // A fresh file costs a parse wherever it goes; taking another's searched file costs the tree it may keep.
      const fresh = queues.reduce((a, b) => (b.fresh.length > a.fresh.length ? b : a));
      if (fresh.fresh.length) return fresh.fresh.back(CHUNK);
      const homed = queues.reduce((a, b) => (b.homed.length > a.homed.length ? b : a));
      return homed.homed.length > STEAL_HOMED_ABOVE ? homed.homed.back(CHUNK) : undefined;
    };
    const found: FileOutcome[] = [];
    let parsed = 0;
    let reused = 0;
    await Promise.all(
      workers.map(async (worker, i) => {
        for (let chunk = take(queues[i]!); chunk; chunk = take(queues[i]!)) {
          signal.throwIfAborted();
          const task: SearchTask = { ...job, id: this.#next++, files: chunk };
          const result = await this.#run(worker, task);
          if (result.error) throw new Error(`a search worker failed: ${result.error}`);
          for (const k of result.held) this.#home.set(chunk[k]!.abs, i);
          for (const k of result.dropped)
            if (this.#home.get(chunk[k]!.abs) === i) this.#home.delete(chunk[k]!.abs);
          parsed += result.parsed;
          reused += result.reused;
          found.push(...result.files);
        }
      }),
    );
    return { found, parsed, reused };
  }

  #run(worker: Worker, task: SearchTask): Promise<SearchTaskResult> {
    return new Promise((resolve, reject) => {
      const onMessage = (result: SearchTaskResult) => {
        if (result.id !== task.id) return;
        worker.off("message", onMessage);
        worker.off("error", onError);
        resolve(result);
      };
      const onError = (error: Error) => {
        worker.off("message", onMessage);
        reject(error);
      };
      worker.on("message", onMessage);
      worker.once("error", onError);
      worker.postMessage(task);
    });
  }

  async dispose(): Promise<void> {
    this.#home.clear();
    await Promise.all(this.#workers.splice(0).map((w) => w.terminate()));
  }
}

/**
 * Files waiting for a worker: its own taken from the front, another's from the back, the rest never moved (taking
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

  front(n: number): FileRef[] {
    const taken = this.#items.slice(this.#head, this.#head + n);
    this.#head += taken.length;
    return taken;
  }

  back(n: number): FileRef[] {
    return this.#items.splice(this.#items.length - Math.min(n, this.length));
  }
}

/** FNV-1a of the path: a file no worker has searched yet goes to the same one every time. */
function hashed(file: string, workers: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < file.length; i++) h = Math.imul(h ^ file.charCodeAt(i), 0x01000193);
  return (h >>> 0) % workers;
}
