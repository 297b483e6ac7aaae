/**
 * The search workers of one run: one per core, started on the first large search, kept warm (with the trees they
 * parsed), ended with the run. Each file goes to the worker that last searched it (else one chosen by a hash of its
 * path), so a later search finds its tree where it was parsed; a worker that runs out of its own files takes chunks
 * from the end of a queue still holding more than two, so a few large files do not stall the rest.
 */
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import type { NapiConfig } from "@ast-grep/napi";
import type { FileMatches, FileRef, MatchSpec } from "./match.js";

export interface SearchTask {
  readonly id: number;
  /** The search this chunk belongs to (the tree cache never evicts a tree the same search used). */
  readonly search: number;
  readonly lang: string;
  readonly rule: NapiConfig;
  readonly spec: MatchSpec;
  readonly files: readonly FileRef[];
  /** Send back the text of files with matches (a staged rewrite needs it; a search does not). */
  readonly withText: boolean;
}

export interface SearchTaskResult {
  readonly id: number;
  readonly files: FileMatches[];
  parsed: number;
  reused: number;
  error?: string;
}

const CHUNK = 48;

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
  /** Which worker last searched each file (and so holds its tree, if it kept it). */
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

  async search(
    search: number,
    lang: string,
    rule: NapiConfig,
    spec: MatchSpec,
    files: readonly FileRef[],
    withText: boolean,
    signal: AbortSignal,
  ) {
    const workers = this.#ensure();
    const queues: FileRef[][] = workers.map(() => []);
    for (const file of files)
      queues[this.#home.get(file.abs) ?? hashed(file.abs, workers.length)]!.push(file);
    // Taking from another queue costs that worker's kept trees, so only where the imbalance is worth it.
    const take = (own: FileRef[]): FileRef[] | undefined => {
      if (own.length) return own.splice(0, CHUNK);
      const longest = queues.reduce((a, b) => (b.length > a.length ? b : a));
      return longest.length > 2 * CHUNK ? longest.splice(-CHUNK) : undefined;
    };
    const found: FileMatches[] = [];
    let parsed = 0;
    let reused = 0;
    await Promise.all(
      workers.map(async (worker, i) => {
        for (let chunk = take(queues[i]!); chunk; chunk = take(queues[i]!)) {
          signal.throwIfAborted();
          const task: SearchTask = { id: this.#next++, search, lang, rule, spec, files: chunk, withText };
          for (const file of chunk) this.#home.set(file.abs, i);
          const result = await this.#run(worker, task);
          if (result.error) throw new Error(`a search worker failed: ${result.error}`);
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

/** FNV-1a of the path: a file no worker has searched yet goes to the same one every time. */
function hashed(file: string, workers: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < file.length; i++) h = Math.imul(h ^ file.charCodeAt(i), 0x01000193);
  return (h >>> 0) % workers;
}
