/**
 * The command backend: a configured CLI (for example a coding agent's non-interactive mode) given the brief on
 * stdin, run in the workdir; its stdout is the result. Stopped as a process tree. runbound cannot see into the
 * program, so it is offered only on the surfaces the harness declares it honours (default: full); the program
 * learns its surface from RUNBOUND_SURFACE and from `{surface}` in its arguments.
 */

import { withoutTerminalEscapes } from "../files/visible.js";
import type { EnvPolicy } from "../proc/environment.js";
import { exitedAndDrained } from "../proc/tracker.js";
import type { Surface } from "../surfaces.js";
import type { WorkerBackend } from "./pool.js";

export interface CommandBackendOptions {
  /**
   * The surfaces the program keeps to when told (RUNBOUND_SURFACE, `{surface}` in args) — e.g. a coding agent
   * started in its own plan mode on plan. Default ["full"]: on plan and readonly vibe_spawn is refused.
   */
  readonly surfaces?: readonly Surface[];
  /** What this program gets beyond the run's environment: credentials it needs (`pass`), values (`set`). */
  readonly env?: EnvPolicy;
}

const OUTPUT_LIMIT = 64 * 1024;

export function commandBackend(
  command: string,
  args: readonly string[] = [],
  options: CommandBackendOptions = {},
): WorkerBackend {
  return {
    name: `command (${command})`,
    surfaces: options.surfaces ?? ["full"],
    start(brief, context) {
      const argv = args.map((arg) => arg.replaceAll("{surface}", context.surface));
      const proc = context.processes.spawn(`worker ${context.id}`, command, argv, {
        cwd: context.workdir,
        env: { ...options.env?.set, RUNBOUND_SURFACE: context.surface },
        passEnv: [...(options.env?.pass ?? []), ...Object.keys(options.env?.set ?? {})],
        stdio: ["pipe", "pipe", "pipe"],
        confined: true,
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
      const finished = exitedAndDrained(proc).then(({ code, signal }) => {
        const out = withoutTerminalEscapes(stdout).trim();
        const err = withoutTerminalEscapes(stderr).trim();
        return code === 0
          ? { ok: true, result: out }
          : {
              ok: false,
              result: `${command} exited (${signal ?? `code ${code}`})${err ? `: ${err.split("\n").slice(-3).join(" | ")}` : ""}${out ? `\n${out}` : ""}`,
            };
      });
      return { finished, stop: () => context.processes.kill(proc.pid, 1000) };
    },
  };
}
