/**
 * The search workers of one run: one per core, started on the first large search, kept warm, ended with the run.
 * Files are handed out in chunks to whichever worker is free, so a few large files do not stall the rest.
 */
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import type { NapiConfig } from "@ast-grep/napi";
import type { AstMatch, MatchSpec } from "./match.js";

export interface FileRef {
  readonly abs: string;
  readonly rel: string;
}

export interface FileMatches {
  readonly file: FileRef;
  readonly text: string;
  readonly matches: AstMatch[];
}

export interface SearchTask {
  readonly id: number;
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

export class SearchPool {
  readonly #workers: Worker[] = [];
  #next = 0;

  #ensure(): Worker[] {
    if (this.#workers.length) return this.#workers;
    // From TypeScript source (tests, tsx) the worker registers tsx's loader first (in Node 20 a loader given in a
    // Worker's execArgv is not applied); from dist it is plain JavaScript.
    const fromSource = import.meta.url.endsWith(".ts");
    const entry = new URL(fromSource ? "./worker.ts" : "./worker.js", import.meta.url).href;
    const workerData = { entry, tsx: fromSource ? import.meta.resolve("tsx/esm/api") : undefined };
    for (let i = 0; i < Math.max(1, availableParallelism()); i++) {
      const worker = new Worker(BOOT, { eval: true, workerData });
      worker.unref();
      this.#workers.push(worker);
    }
    return this.#workers;
  }

  async search(
    lang: string,
    rule: NapiConfig,
    spec: MatchSpec,
    files: readonly FileRef[],
    withText: boolean,
    signal: AbortSignal,
  ) {
    const workers = this.#ensure();
    const chunks: FileRef[][] = [];
    for (let i = 0; i < files.length; i += CHUNK) chunks.push(files.slice(i, i + CHUNK));
    const found: FileMatches[] = [];
    let parsed = 0;
    let nextChunk = 0;
    await Promise.all(
      workers.map(async (worker) => {
        while (nextChunk < chunks.length) {
          signal.throwIfAborted();
          const task: SearchTask = {
            id: this.#next++,
            lang,
            rule,
            spec,
            files: chunks[nextChunk++]!,
            withText,
          };
          const result = await this.#run(worker, task);
          if (result.error) throw new Error(`a search worker failed: ${result.error}`);
          parsed += result.parsed;
          found.push(...result.files);
        }
      }),
    );
    return { found, parsed };
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
    await Promise.all(this.#workers.splice(0).map((w) => w.terminate()));
  }
}
