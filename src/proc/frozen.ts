/**
 * What of the workdir a confined process may read but not change: every repository's `.git` (nested ones too: a
 * vendored checkout, a submodule), every `node_modules` (its `.bin` is what the next `npm run` executes) and every
 * Python environment — a hook or a binary planted there runs the next time the harness or its person runs git or
 * npm, on the host. Found by a walk that follows no link and is bounded; a link named so is frozen where it leads
 * only when that is inside the workdir (elsewhere it is not writable inside anyway).
 */
import { type Dirent, lstatSync, readdirSync, realpathSync } from "node:fs";
import path from "node:path";
import { within } from "./bubblewrap.js";

/** The names frozen wherever they are in the workdir. */
const FROZEN_NAMES = new Set([".git", ".hg", "node_modules", ".venv", "venv"]);
/** Folders that hold no repository and no install of their own: not entered. */
const NOT_ENTERED = new Set(["__pycache__"]);

/**
 * How much a walk may list: folders, and time. Each listing costs ~0.1 ms on a sandboxed kernel (gVisor), and the
 * walk runs on the host's thread at every sandbox's start: a workdir with a Python environment of 2,000 folders
 * took 0.4 s, /usr-sized trees 2.5 s. Environments are frozen whole and not entered, whatever their name.
 */
export const FROZEN_WALK_LIMIT = { folders: 20_000, ms: 150 };

export interface FrozenFolders {
  /** Paths to mount read-only, each free of links (by real path) when the walk saw it. */
  readonly paths: readonly string[];
  /** Whether the walk stopped at its limit (the rest of the workdir was not looked at). */
  readonly truncated: boolean;
}

export function frozenFolders(workdir: string, limit = FROZEN_WALK_LIMIT): FrozenFolders {
  const found = new Set<string>();
  const queue = [workdir];
  const until = performance.now() + limit.ms;
  let next = 0;
  while (next < queue.length && next < limit.folders && performance.now() < until) {
    const dir = queue[next++]!;
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    // A Python environment by any name (env/, .tox/py311/): frozen whole, its thousands of folders not walked.
    if (dir !== workdir && entries.some((e) => e.name === "pyvenv.cfg" && e.isFile())) {
      found.add(dir);
      continue;
    }
    for (const entry of entries) {
      const file = path.join(dir, entry.name);
      if (FROZEN_NAMES.has(entry.name)) {
        const kept = frozenPath(file, entry, workdir);
        if (kept) found.add(kept);
      } else if (entry.isDirectory() && !NOT_ENTERED.has(entry.name)) queue.push(file);
    }
  }
  return { paths: [...found], truncated: next < queue.length };
}

/** The path to freeze for an entry of a frozen name: itself, or where its link leads when inside the workdir. */
function frozenPath(file: string, entry: Dirent, workdir: string): string | undefined {
  if (entry.isDirectory() || entry.isFile()) return file;
  if (!entry.isSymbolicLink()) return undefined;
  try {
    const target = realpathSync(file);
    return within(target, workdir) && target !== workdir && lstatSync(target).isDirectory()
      ? target
      : undefined;
  } catch {
    return undefined;
  }
}
