/**
 * The memory and process-count limits of a run's confined processes, taken together: a control group of the run's
 * own where the system lets this process make one (cgroup v2, or v1's pids and memory controllers), else rlimits
 * per process. A fork bomb or a memory bomb then fails inside the sandbox instead of taking the host down.
 */
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { ownerGone } from "./tree.js";

export interface Limits {
  /** The sum of the run's confined processes' memory (a control group), or each one's data size (rlimit). */
  readonly memoryMB: number;
  /** Processes and threads at once. */
  readonly processes: number;
}

export interface Enforcement {
  /** What holds the limits, for status and doctor: "cgroup v1 (pids, memory)", "rlimits per process", … */
  readonly by: string;
  /** Control-group folders a process joins before it execs (its pid goes into each one's cgroup.procs). */
  readonly groups: readonly string[];
  /** rlimit arguments for prlimit, applied to every confined process. */
  readonly rlimits: readonly string[];
  /** Ends whatever is left in the groups and removes them. */
  release(): Promise<void>;
}

const ROOT = "/sys/fs/cgroup";
const PREFIX = "runbound-";

/** Empty groups of this machine's runs whose host process is gone. */
function sweepStaleGroups(): void {
  const v2 = readFileSync("/proc/self/cgroup", "utf8").match(/^0::(.*)$/m)?.[1];
  const parents = [
    path.join(ROOT, "pids"),
    path.join(ROOT, "memory"),
    ...(v2 !== undefined ? [path.join(ROOT, v2)] : []),
  ];
  for (const parent of parents) {
    let names: string[];
    try {
      names = readdirSync(parent).filter((name) => name.startsWith(PREFIX));
    } catch {
      continue;
    }
    for (const name of names) {
      const owner = Number(name.slice(PREFIX.length).split("-")[0]);
      if (ownerGone(owner)) tryRemove(path.join(parent, name));
    }
  }
}

/** Sets up the limits for one run; never throws (a limit that cannot be set is said in `by`). */
export function enforceLimits(limits: Limits): Enforcement {
  sweepStaleGroups();
  // The owner's pid in the name: a host killed before it could release its groups leaves them to the next run.
  const name = `${PREFIX}${process.pid}-${randomUUID().slice(0, 8)}`;
  const bytes = limits.memoryMB * 1024 * 1024;
  // RLIMIT_DATA counts what a process can write, not what it reserves (V8 and Go reserve far more than they use).
  const rlimits = [`--data=${bytes}`];
  const groups = cgroupV2(name, limits, bytes) ?? cgroupV1(name, limits, bytes);
  if (groups)
    return { by: groups.by, groups: groups.dirs, rlimits, release: () => releaseGroups(groups.dirs) };
  const nonRoot = process.getuid?.() !== 0;
  return {
    by: nonRoot
      ? "rlimits per process (data size; processes counted with the user's own)"
      : "rlimits per process (data size only: no control group could be made, and root is not held to a process count)",
    groups: [],
    rlimits: nonRoot ? [...rlimits, `--nproc=${limits.processes + userProcessCount()}`] : rlimits,
    release: async () => undefined,
  };
}

function cgroupV2(name: string, limits: Limits, bytes: number): { by: string; dirs: string[] } | undefined {
  if (!existsSync(path.join(ROOT, "cgroup.controllers"))) return undefined;
  const own = readFileSync("/proc/self/cgroup", "utf8").match(/^0::(.*)$/m)?.[1];
  if (own === undefined) return undefined;
  const dir = path.join(ROOT, own, name);
  try {
    mkdirSync(dir);
    writeFileSync(path.join(dir, "pids.max"), String(limits.processes));
    writeFileSync(path.join(dir, "memory.max"), String(bytes));
    writeFileSync(path.join(dir, "memory.swap.max"), "0");
    return { by: "cgroup v2 (pids, memory)", dirs: [dir] };
  } catch {
    tryRemove(dir);
    return undefined;
  }
}

function cgroupV1(name: string, limits: Limits, bytes: number): { by: string; dirs: string[] } | undefined {
  const dirs: string[] = [];
  const set: string[] = [];
  const pids = path.join(ROOT, "pids", name);
  try {
    mkdirSync(pids);
    writeFileSync(path.join(pids, "pids.max"), String(limits.processes));
    dirs.push(pids);
    set.push("pids");
  } catch {
    tryRemove(pids);
  }
  const memory = path.join(ROOT, "memory", name);
  try {
    mkdirSync(memory);
    writeFileSync(path.join(memory, "memory.limit_in_bytes"), String(bytes));
    dirs.push(memory);
    set.push("memory");
    // Where swap is accounted, hold it too; the file is absent when it is not.
    writeFileSync(path.join(memory, "memory.memsw.limit_in_bytes"), String(bytes));
  } catch {
    if (!dirs.includes(memory)) tryRemove(memory);
  }
  return dirs.length ? { by: `cgroup v1 (${set.join(", ")})`, dirs } : undefined;
}

async function releaseGroups(dirs: readonly string[]): Promise<void> {
  for (const dir of dirs) {
    for (let attempt = 0; attempt < 50 && existsSync(dir); attempt++) {
      for (const pid of members(dir)) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // gone already
        }
      }
      if (tryRemove(dir)) break;
      await delay(20);
    }
  }
}

function members(dir: string): number[] {
  try {
    return readFileSync(path.join(dir, "cgroup.procs"), "utf8").split("\n").filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

function tryRemove(dir: string): boolean {
  try {
    rmdirSync(dir);
    return true;
  } catch {
    return !existsSync(dir);
  }
}

/** The user's tasks now (RLIMIT_NPROC counts every thread of the user's, not only the run's). */
function userProcessCount(): number {
  const uid = process.getuid?.();
  let count = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let status: string;
    try {
      status = readFileSync(`/proc/${entry}/status`, "utf8");
    } catch {
      continue; // it ended while being read
    }
    if (new RegExp(`^Uid:\\s+${uid}\\b`, "m").test(status))
      count += Number(/^Threads:\s+(\d+)/m.exec(status)?.[1] ?? 1);
  }
  return count;
}
