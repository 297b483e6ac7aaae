/**
 * The command backend: a configured CLI (for example a coding agent's non-interactive mode) given the brief on
 * stdin, run in the workdir; its stdout is the result. Stopped as a process tree.
 */
import { exitedAndDrained } from "../proc/tracker.js";
import type { WorkerBackend } from "./pool.js";

const OUTPUT_LIMIT = 64 * 1024;

export function commandBackend(command: string, args: readonly string[] = []): WorkerBackend {
  return {
    name: `command (${command})`,
    start(brief, context) {
      const proc = context.processes.spawn(`worker ${context.id}`, command, args, {
        cwd: context.workdir,
        stdio: ["pipe", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      proc.child.stdout?.on("data", (d: Buffer) => {
        stdout = (stdout + d.toString()).slice(-OUTPUT_LIMIT);
        context.onActivity();
      });
      proc.child.stderr?.on("data", (d: Buffer) => {
        stderr = (stderr + d.toString()).slice(-4000);
        context.onActivity();
      });
      proc.child.stdin?.on("error", () => undefined);
      proc.child.stdin?.end(brief);
      const finished = exitedAndDrained(proc).then(({ code, signal }) =>
        code === 0
          ? { ok: true, result: stdout.trim() }
          : {
              ok: false,
              result: `${command} exited (${signal ?? `code ${code}`})${stderr.trim() ? `: ${stderr.trim().split("\n").slice(-3).join(" | ")}` : ""}${stdout.trim() ? `\n${stdout.trim()}` : ""}`,
            },
      );
      return { finished, stop: () => context.processes.kill(proc.pid, 1000) };
    },
  };
}
