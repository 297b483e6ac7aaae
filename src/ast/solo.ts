/**
 * Searching files larger than the threads' share: each search starts one process for them, sends it one file at a
 * time, and ends it. A large tree costs ~90 bytes per character (a 10 MB minified file: ~1 GB) in native memory that
 * a thread would keep until its heap is collected and the allocator hands back; a process that exits gives back
 * everything, at once.
 */
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { ToolError } from "../errors.js";
import { sizeText } from "../files/text.js";
import { shownPath } from "../files/visible.js";
import type { ProcessTracker, TrackedProcess } from "../proc/tracker.js";
import type { FileRef } from "./match.js";
import type { FileOutcome, SearchJob, SearchTask, SearchTaskResult } from "./task.js";

/** Files larger than this many bytes are searched by a search process (the default per-file limit is 1 MB). */
export const SOLO_BYTES = 2 ** 20;

export interface SoloOutcome {
  readonly found: FileOutcome[];
  readonly parsed: number;
}

export async function searchAlone(
  processes: ProcessTracker,
  job: SearchJob,
  files: readonly (FileRef & { readonly size: number })[],
  signal: AbortSignal,
): Promise<SoloOutcome> {
  const { proc, said } = start(processes);
  const onAbort = () => void processes.kill(proc.pid, 0);
  signal.addEventListener("abort", onAbort, { once: true });
  const found: FileOutcome[] = [];
  let parsed = 0;
  try {
    for (const [id, file] of files.entries()) {
      signal.throwIfAborted();
      const result = await ask(proc, { ...job, id, files: [file] }, file, said);
      if (result.error) throw new Error(`a search process failed on ${shownPath(file.rel)}: ${result.error}`);
      parsed += result.parsed;
      found.push(...result.files);
    }
  } finally {
    signal.removeEventListener("abort", onAbort);
    // Disconnected, it exits by itself; one that does not within a second is ended.
    if (proc.child.connected) proc.child.disconnect();
    if (!(await exitsWithin(proc, 1000))) await processes.kill(proc.pid, 1000);
  }
  signal.throwIfAborted();
  return { found, parsed };
}

async function exitsWithin(proc: TrackedProcess, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const exited = await Promise.race([proc.exited.then(() => true as const), late]);
  clearTimeout(timer);
  return exited;
}

function start(processes: ProcessTracker): { proc: TrackedProcess; said: () => string } {
  const fromSource = import.meta.url.endsWith(".ts");
  const entry = fileURLToPath(
    new URL(fromSource ? "./solo-process.ts" : "./solo-process.js", import.meta.url),
  );
  const args = fromSource ? ["--import", import.meta.resolve("tsx/esm"), entry] : [entry];
  const proc = processes.spawn("a search of large files", process.execPath, args, {
    stdio: ["ignore", "ignore", "pipe", "ipc"],
    serialization: "advanced",
  });
  // Its last words, for an exit that is not an answer.
  let stderr = "";
  proc.child.stderr?.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-2000);
  });
  const said = () => stderr.trim().split("\n").slice(-3).join(" | ");
  // When memory runs out, the kernel ends this process first — not the host.
  try {
    writeFileSync(`/proc/${proc.pid}/oom_score_adj`, "1000");
  } catch {
    // Not Linux, or not allowed: the limit on file size still holds.
  }
  return { proc, said };
}

function ask(
  proc: TrackedProcess,
  task: SearchTask,
  file: FileRef & { size: number },
  said: () => string,
): Promise<SearchTaskResult> {
  return new Promise((resolve, reject) => {
    const { child } = proc;
    const done = () => {
      child.off("message", onMessage);
      child.off("exit", onExit);
    };
    const onMessage = (result: SearchTaskResult) => {
      if (result.id !== task.id) return;
      done();
      resolve(result);
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
      done();
      const size = sizeText(file.size);
      const last = said();
      reject(
        signal === "SIGKILL"
          ? new ToolError(
              `The search of ${shownPath(file.rel)} (${size}) was ended by the system (SIGKILL: most often, out of memory); the host and the run are unaffected. Search a smaller file, or leave this one out (the harness lowers ast.maxFileKB).`,
            )
          : new Error(
              `the search process for ${shownPath(file.rel)} (${size}) exited (${signal ?? `code ${code}`})${last ? `: ${last}` : ""}`,
            ),
      );
    };
    child.on("message", onMessage);
    child.once("exit", onExit);
    child.send(task);
  });
}
