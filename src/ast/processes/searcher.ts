/**
 * One search process: parses and matches the files it is sent, one task after another, keeping trees up to its
 * budget. A process, not a thread, because matching is native code that nothing can interrupt: a rule whose cost
 * grows with a hostile file's depth runs for minutes, and only a process can be stopped then — and a grammar that
 * crashes on a file ends it, not the host.
 */
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { ProcessTracker, TrackedProcess } from "../../proc/tracker.js";
import type { FileRef } from "../match.js";
import type { SearchTask, SearchTaskResult } from "./task.js";

interface Pending {
  readonly files: readonly FileRef[];
  readonly resolve: (result: SearchTaskResult) => void;
  readonly reject: (error: Error) => void;
}

export class Searcher {
  readonly #proc: TrackedProcess;
  readonly #tracker: ProcessTracker;
  readonly #pending = new Map<number, Pending>();
  /** What every pending task is told when the process ends (else its exit, with its last words). */
  #endedBecause: Error | undefined;
  #stderr = "";

  /** `treeBudget`: bytes of trees it keeps between tasks (0: none). */
  constructor(tracker: ProcessTracker, label: string, treeBudget: number, grammarsFrom?: string) {
    this.#tracker = tracker;
    const fromSource = import.meta.url.endsWith(".ts");
    const entry = fileURLToPath(new URL(fromSource ? "./process.ts" : "./process.js", import.meta.url));
    const args = fromSource ? ["--import", import.meta.resolve("tsx/esm"), entry] : [entry];
    this.#proc = tracker.spawn(
      label,
      process.execPath,
      [...args, String(treeBudget), ...(grammarsFrom ? [grammarsFrom] : [])],
      {
        stdio: ["ignore", "ignore", "pipe", "ipc"],
        serialization: "advanced",
      },
    );
    const { child } = this.#proc;
    child.stderr?.on("data", (chunk: Buffer) => {
      this.#stderr = (this.#stderr + chunk.toString()).slice(-2000);
    });
    child.on("message", (result: SearchTaskResult) => {
      const pending = this.#pending.get(result.id);
      if (!pending) return;
      this.#pending.delete(result.id);
      this.#hold();
      pending.resolve(result);
    });
    child.once("exit", (code, signal) => {
      // Ended on its own: the system's SIGKILL (out of memory, most often) or a crash.
      const exit =
        signal === "SIGKILL"
          ? "SIGKILL: most often, out of memory"
          : `${signal ? `killed by ${signal}` : `exit code ${code}`}${this.#said()}`;
      for (const pending of this.#pending.values())
        pending.reject(this.#endedBecause ?? new SearchStopped(pending.files, exit));
      this.#pending.clear();
    });
    // When memory runs out, the kernel ends this process first — not the host.
    try {
      writeFileSync(`/proc/${this.#proc.pid}/oom_score_adj`, "1000");
    } catch {
      // Not Linux, or not allowed: the limit on file size still holds.
    }
    this.#hold();
  }

  get pid(): number {
    return this.#proc.pid;
  }

  /** Whether it can take a task (it has not exited or been told to end). */
  get alive(): boolean {
    return this.#endedBecause === undefined && this.#proc.child.connected;
  }

  run(task: SearchTask): Promise<SearchTaskResult> {
    if (!this.alive) return Promise.reject(this.#endedBecause ?? new Error("a search process has ended"));
    return new Promise((resolve, reject) => {
      this.#pending.set(task.id, { files: task.files, resolve, reject });
      this.#hold();
      this.#proc.child.send(task);
    });
  }

  /** Ends it at once; its pending tasks fail with `why`. */
  async kill(why: Error): Promise<void> {
    this.#endedBecause ??= why;
    await this.#tracker.kill(this.#proc.pid, 0);
  }

  /** Ends it when it is done: disconnected, it exits by itself; one that does not within a second is ended. */
  async end(): Promise<void> {
    this.#endedBecause ??= new Error("the search process was ended");
    if (this.#proc.child.connected) this.#proc.child.disconnect();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), 1000);
    });
    const exited = await Promise.race([this.#proc.exited.then(() => true as const), late]);
    clearTimeout(timer);
    if (!exited) await this.#tracker.kill(this.#proc.pid, 1000);
  }

  /** While it has work it keeps the host's process alive; idle, it does not (as a thread would not). */
  #hold(): void {
    const { child } = this.#proc;
    if (this.#pending.size) {
      child.ref();
      child.channel?.ref();
    } else {
      child.unref();
      child.channel?.unref();
    }
  }

  #said(): string {
    const last = this.#stderr.trim().split("\n").slice(-3).join(" | ");
    return last ? `: ${last}` : "";
  }
}

/** A search stopped while these files were being matched: cancelled, at its deadline, or its process ended. */
export class SearchStopped extends Error {
  readonly files: readonly FileRef[];
  /** How its process ended on its own (the system's SIGKILL, a crash), when it did; else it was ended. */
  readonly exit: string | undefined;

  constructor(files: readonly FileRef[], exit?: string) {
    super(`the search stopped while matching ${files.length} file(s)`);
    this.files = files;
    this.exit = exit;
  }
}

/**
 * The failure of work that ran side by side, once all of it settled: one SearchStopped holding every file still
 * being matched (so the answer can name them all), else the first failure; undefined when nothing failed.
 */
export function failureOf(outcomes: readonly PromiseSettledResult<unknown>[]): Error | undefined {
  const failures = outcomes.flatMap((o) => (o.status === "rejected" ? [o.reason as Error] : []));
  const stopped = failures.filter((f): f is SearchStopped => f instanceof SearchStopped);
  if (stopped.length === 0) return failures[0];
  return new SearchStopped(
    stopped.flatMap((s) => s.files),
    stopped.find((s) => s.exit)?.exit,
  );
}
