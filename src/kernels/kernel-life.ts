/**
 * A kernel's start: one whose process exits before it answers (a broken interpreter, a sandbox that cannot start)
 * is told at once with what it wrote to stderr, instead of a call that waits until the harness's request times out.
 * (A kernel that goes later is watched by cell.ts's onGone: during a cell there, between cells in pool.ts.)
 */
import type { Kernel } from "@jupyterlab/services";
import { visibleTail } from "../files/tail.js";
import { isGone, onGone } from "./cell.js";

/** Why a kernel did not come up: its process exited, or it did not answer in time. */
export class KernelStartFailure extends Error {
  constructor(readonly reason: "exited" | "timeout") {
    super(reason === "exited" ? "the kernel's process exited" : "the kernel did not answer");
  }
}

/** The program a kernel runs, as the answer names it, and whether it is the project's own environment. */
export interface Interpreter {
  readonly program: string;
  readonly project: boolean;
}

/** What an eval says when its kernel did not come up: what happened, its own words, and what to do. */
export function startFailure(
  language: "python" | "javascript",
  interpreter: Interpreter | undefined,
  failure: KernelStartFailure,
  timeoutMs: number,
  stderr: string | undefined,
): string {
  const what = interpreter ? `The ${language} kernel (${interpreter.program})` : `The ${language} kernel`;
  const happened =
    failure.reason === "exited"
      ? "exited before it answered"
      : `did not answer within ${timeoutMs / 1000} s (kernels.startTimeoutSeconds)`;
  const words = stderr ? `Its stderr ended with:\n${stderr}\n` : "It wrote nothing to stderr. ";
  const fix = !interpreter
    ? "Check the Jupyter server the harness gave; the next eval tries again."
    : interpreter.project
      ? `It is the project's environment, used because it has ipykernel: repair it (\`${interpreter.program} -m ipykernel_launcher --help\` shows the fault), or uninstall ipykernel from it to run cells in runbound's environment; the next eval tries again.`
      : "`npx runbound doctor` checks runbound's components (`npx runbound setup` repairs them); the next eval tries again.";
  return `${what} ${happened}, so no cell ran. ${words}${fix}`;
}

/** Settles once the kernel answered kernel_info; rejects with a KernelStartFailure when it dies or times out. */
export async function answered(kernel: Kernel.IKernelConnection, timeoutMs: number): Promise<void> {
  let stopWatching = () => {};
  let timer: NodeJS.Timeout | undefined;
  const failed = new Promise<never>((_, reject) => {
    stopWatching = onGone(kernel, () => reject(new KernelStartFailure("exited")));
    timer = setTimeout(() => reject(new KernelStartFailure("timeout")), timeoutMs);
  });
  try {
    if (isGone(kernel.status)) throw new KernelStartFailure("exited");
    await Promise.race([kernel.info, failed]);
  } finally {
    clearTimeout(timer);
    stopWatching();
  }
}

const TAIL_BYTES = 2000;
const TAIL_LINES = 12;

/** The last lines a kernel wrote to stderr, as printable text; undefined when there is none. */
export function stderrTail(file: string | undefined): string | undefined {
  return file ? visibleTail(file, TAIL_BYTES, TAIL_LINES) : undefined;
}
