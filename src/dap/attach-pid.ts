/**
 * `attach` by process id: which program a pid is (Python, a Go binary, anything else native), whether runbound may
 * join it — a program running in the workdir, never runbound itself or what started it — and whether the system
 * lets a debugger trace it (Yama's ptrace_scope). Read from Linux /proc; the debugger then joins from the host,
 * since a confined one could not see the process.
 */
import { closeSync, openSync, readFileSync, readlinkSync, readSync } from "node:fs";
import path from "node:path";
import { ToolError } from "../errors.js";
import { RUN_MARKER } from "../proc/tracker.js";
import type { BuiltInAdapter } from "./adapters.js";

export interface TracedProcess {
  readonly pid: number;
  readonly argv: readonly string[];
  readonly exe: string;
  readonly cwd: string;
  readonly adapter: Exclude<BuiltInAdapter, "dart">;
}

/** What a Go binary carries in its build-info section (the first bytes of it), to tell it from other native code. */
const GO_BUILDINFO = Buffer.from("\xff Go buildinf:", "latin1");
const SCAN_BYTES = 64 * 1024 * 1024;

/** The process `pid` as attach may join it, or a ToolError saying why not and what to do. */
export function traceable(pid: number, workdir: string): TracedProcess {
  let argv: string[];
  let exe: string;
  let cwd: string;
  try {
    argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
    exe = readlinkSync(`/proc/${pid}/exe`);
    cwd = readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    throw new ToolError(
      `No process ${pid} that runbound can see (it has ended, or it is not this user's). \`pid\` is a running program's process id (ps, pgrep).`,
    );
  }
  const shown = `\`${argv.join(" ").slice(0, 200)}\` (pid ${pid})`;
  if (lineage(process.pid).includes(pid))
    throw new ToolError(
      `${shown} is runbound or the process that runs it; attach joins programs in the workdir only.`,
    );
  // Its language servers run on the host beside it: a debugger joining one could make it run anything, outside the
  // sandbox the run keeps code in. Every process a run starts carries its marker (and cannot shed it: a debuggee
  // that does shed it in a child is still confined).
  if (markedByRunbound(pid))
    throw new ToolError(
      `${shown} is one of runbound's own processes (a language server, a kernel, a debuggee, a worker); attach joins programs started outside runbound. Debug your program with launch.`,
    );
  if (cwd !== workdir && !cwd.startsWith(`${workdir}${path.sep}`))
    throw new ToolError(
      `${shown} runs in ${cwd}, outside the workdir; attach joins only programs started in the workdir (a debugger reads all of a process's memory).`,
    );
  const adapter = adapterFor(exe);
  // Node opens its inspector on a signal: nothing traces it.
  const problem = adapter === "node" ? undefined : ptraceProblem();
  if (problem) throw new ToolError(`Cannot attach to ${shown}: ${problem}`);
  return { pid, argv, exe, cwd, adapter };
}

/** A process and its ancestors, up to init (as far as /proc shows them). */
function lineage(start: number): number[] {
  const pids: number[] = [];
  for (let pid = start; pid > 1 && pids.length < 64; ) {
    pids.push(pid);
    let status: string;
    try {
      status = readFileSync(`/proc/${pid}/status`, "utf8");
    } catch {
      break;
    }
    pid = Number(/^PPid:\s+(\d+)/m.exec(status)?.[1] ?? 0);
  }
  return pids;
}

function markedByRunbound(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`, "utf8")
      .split("\0")
      .some((entry) => entry.startsWith(`${RUN_MARKER}=`));
  } catch {
    return false;
  }
}

/** The command line of a process, for a permission card: "" when it cannot be read. */
export function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean).join(" ").slice(0, 120);
  } catch {
    return "";
  }
}

function adapterFor(exe: string): TracedProcess["adapter"] {
  if (/^python[\d.]*$/.test(path.basename(exe))) return "debugpy";
  if (isNodeExecutable(exe)) return "node";
  return isGoBinary(exe) ? "delve" : "lldb";
}

/** node, nodejs, or a versioned node (node22): Node's inspector, not ptrace, is how it is joined. */
export function isNodeExecutable(exe: string): boolean {
  return /^node(js)?\d*$/.test(path.basename(exe));
}

function isGoBinary(exe: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(exe, "r");
    const chunk = Buffer.alloc(1024 * 1024);
    for (let offset = 0; offset < SCAN_BYTES; offset += chunk.length - GO_BUILDINFO.length) {
      const read = readSync(fd, chunk, 0, chunk.length, offset);
      if (read <= 0) return false;
      if (chunk.subarray(0, read).includes(GO_BUILDINFO)) return true;
      if (read < chunk.length) return false;
    }
    return false;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Why Yama forbids this user to trace the process, with how to allow it; undefined when it may. */
export function ptraceProblem(): string | undefined {
  let scope: number;
  try {
    scope = Number(readFileSync("/proc/sys/kernel/yama/ptrace_scope", "utf8").trim());
  } catch {
    return undefined; // No Yama: classic ptrace rules (same user, or root).
  }
  const root = process.getuid?.() === 0;
  if (scope === 0 || (root && scope < 3)) return undefined;
  if (scope === 1)
    return "kernel.yama.ptrace_scope is 1, so only a program's parent may trace it. Allow attaching with `sudo sysctl kernel.yama.ptrace_scope=0` (until reboot), or start the program under the debugger with launch.";
  if (scope === 2)
    return "kernel.yama.ptrace_scope is 2, so only root may trace a process. Run the harness as root, or set `sudo sysctl kernel.yama.ptrace_scope=0`, or use launch.";
  return "kernel.yama.ptrace_scope is 3: no process may be traced on this system until it reboots with another setting. Use launch.";
}
