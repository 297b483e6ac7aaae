/**
 * Process trees. Every child a run starts gets its own process group, and is ended as a tree: the group and every
 * descendant found through /proc (which also catches those that moved to a group of their own), SIGTERM first,
 * SIGKILL after a grace period.
 */
import { readdir, readFile } from "node:fs/promises";

/** The pid and all its descendants (Linux /proc; elsewhere the pid alone). */
export async function descendantsOf(pid: number): Promise<number[]> {
  const children = new Map<number, number[]>();
  let entries: string[];
  try {
    entries = await readdir("/proc");
  } catch {
    return [pid];
  }
  await Promise.all(
    entries
      .filter((e) => /^\d+$/.test(e))
      .map(async (e) => {
        const stat = await readFile(`/proc/${e}/stat`, "utf8").catch(() => "");
        // pid (comm) state ppid ... — comm may contain spaces and parentheses, so parse from the last ")".
        const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
        if (Number.isFinite(ppid)) {
          const list = children.get(ppid) ?? [];
          list.push(Number(e));
          children.set(ppid, list);
        }
      }),
  );
  const found: number[] = [];
  const queue = [pid];
  while (queue.length) {
    const next = queue.shift()!;
    found.push(next);
    queue.push(...(children.get(next) ?? []));
  }
  return found;
}

/** Processes whose environment holds `name=value` (Linux /proc): how a daemonized descendant is still found. */
export async function processesMarked(name: string, value: string): Promise<number[]> {
  const marker = `${name}=${value}`;
  let entries: string[];
  try {
    entries = await readdir("/proc");
  } catch {
    return [];
  }
  const found = await Promise.all(
    entries
      .filter((e) => /^\d+$/.test(e) && Number(e) !== process.pid)
      .map(async (e) => {
        const environ = await readFile(`/proc/${e}/environ`, "utf8").catch(() => "");
        return environ.split("\0").includes(marker) ? Number(e) : undefined;
      }),
  );
  return found.filter((pid): pid is number => pid !== undefined);
}

/**
 * Whether the pid named as a folder's or group's owner (runbound's host process) is gone, so what it left may be
 * swept. A pid that exists but is not ours (EPERM) counts as alive.
 */
export function ownerGone(owner: number): boolean {
  if (!Number.isInteger(owner) || owner <= 0) return false;
  try {
    process.kill(owner, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== "EPERM";
  }
}

/** Whether a process exists and is not a zombie waiting to be reaped. */
export async function isAlive(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => undefined);
  if (stat === undefined) return process.platform !== "linux";
  return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}

/** Ends the process `pid` (a group leader when spawned detached) and all its descendants; resolves when none is left. */
export async function killTree(pid: number, graceMs = 2000): Promise<void> {
  const tree = await descendantsOf(pid);
  signal(-pid, "SIGTERM");
  for (const p of tree) signal(p, "SIGTERM");
  if (await waitGone(tree, graceMs)) return;
  // Late forks during the grace period are caught by looking again.
  const again = [...new Set([...tree, ...(await descendantsOf(pid))])];
  signal(-pid, "SIGKILL");
  for (const p of again) signal(p, "SIGKILL");
  await waitGone(again, graceMs);
}

/** Ends single processes (no tree walk): SIGTERM, then SIGKILL after the grace period. */
export async function killAllOf(pids: number[], graceMs = 2000): Promise<void> {
  for (const p of pids) signal(p, "SIGTERM");
  if (await waitGone(pids, graceMs)) return;
  for (const p of pids) signal(p, "SIGKILL");
  await waitGone(pids, graceMs);
}

async function waitGone(pids: number[], ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    const alive = await Promise.all(pids.map(isAlive));
    if (!alive.some(Boolean)) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
}
