/**
 * Where a server's binary comes from: the project first (node_modules/.bin and .venv/bin, walking up from the
 * root to the workdir), then runbound's own npm dependencies (by module resolution), then runbound's home (what
 * `runbound setup` installs), then PATH — including versioned names such as clangd-14. A rustup proxy whose
 * component is not installed does not count.
 */
import { closeSync, openSync, readSync, realpathSync } from "node:fs";
import path from "node:path";
import { executable, onPath } from "../setup/components.mjs";
import { homeLayout } from "../setup/home.mjs";
import { isNodeScript } from "../setup/npm.js";

export interface BinaryCandidate {
  /** A name looked up as the ladder says (project node_modules/.bin, .venv/bin, runbound's home, PATH). */
  readonly name: string;
  readonly args: readonly string[];
  /** Also accept versioned names on PATH (`clangd-14`, `clangd-22`: the newest wins, over the plain name too). */
  readonly versioned?: boolean;
  /** A file resolved by runbound itself (its npm dependencies); a JavaScript file runs with this Node. */
  readonly embedded?: () => string | undefined;
}

/** project: the workdir's own; runbound: its npm dependencies; home: runbound's home; PATH. */
export type BinarySource = "project" | "runbound" | "home" | "PATH";

export interface Resolved {
  readonly command: string;
  readonly args: readonly string[];
  readonly from: BinarySource;
}

/** The real path of `file` when it is a Node script (by its extension or a `#!` line naming node), else undefined. */
function nodeScript(file: string): string | undefined {
  try {
    const real = realpathSync(file);
    if (isNodeScript(real)) return real;
    const head = Buffer.alloc(64);
    const fd = openSync(real, "r");
    try {
      readSync(fd, head, 0, 64, 0);
    } finally {
      closeSync(fd);
    }
    return /^#!\S*(\/env\s+)?\S*node\b/.test(head.toString("latin1").split("\n")[0] ?? "") ? real : undefined;
  } catch {
    return undefined;
  }
}

function sameFile(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}

/** Folders to look in, in order, for a server rooted at `root` inside `workdir`. */
export function searchDirs(
  root: string,
  workdir: string,
  home: string,
): { dir: string; from: BinarySource }[] {
  const dirs: { dir: string; from: BinarySource }[] = [];
  for (let dir = root; ; dir = path.dirname(dir)) {
    dirs.push({ dir: path.join(dir, "node_modules", ".bin"), from: "project" });
    dirs.push({ dir: path.join(dir, ".venv", "bin"), from: "project" });
    dirs.push({ dir: path.join(dir, "venv", "bin"), from: "project" });
    if (dir === workdir || path.dirname(dir) === dir || !dir.startsWith(workdir)) break;
  }
  dirs.push({ dir: homeLayout(home).goBin, from: "home" });
  dirs.push({ dir: homeLayout(home).npmBin, from: "home" });
  return dirs;
}

/**
 * `project: false` (an untrusted workspace): the project's own binaries are not run — a repository's
 * node_modules/.bin or .venv/bin is its code.
 */
export function resolveBinary(
  candidate: BinaryCandidate,
  root: string,
  workdir: string,
  home: string,
  options: { readonly project?: boolean } = {},
): Resolved | undefined {
  const dirs = searchDirs(root, workdir, home).filter(
    (d) => options.project !== false || d.from !== "project",
  );
  const embedded = candidate.embedded?.();
  const ours = (): Resolved | undefined => {
    if (embedded && isNodeScript(embedded))
      return { command: process.execPath, args: [embedded, ...candidate.args], from: "runbound" };
    if (embedded && executable(embedded))
      return { command: embedded, args: candidate.args, from: "runbound" };
    return undefined;
  };
  // The project's own copy wins over runbound's — unless it is runbound's: npm hoists runbound's dependencies into
  // the project's node_modules, and their bin links land in its node_modules/.bin.
  for (const { dir, from } of dirs.filter((d) => d.from === "project")) {
    const file = path.join(dir, candidate.name);
    if (!executable(file)) continue;
    if (embedded && sameFile(file, embedded)) return ours();
    return { command: file, args: candidate.args, from };
  }
  const shipped = ours();
  if (shipped) return shipped;
  for (const { dir, from } of dirs.filter((d) => d.from === "home")) {
    const file = path.join(dir, candidate.name);
    // An npm server's bin is a script for the `node` on PATH: run by this Node, as runbound's own are.
    const script = executable(file) ? nodeScript(file) : undefined;
    if (script) return { command: process.execPath, args: [script, ...candidate.args], from };
    if (executable(file)) return { command: file, args: candidate.args, from };
  }
  const onSystem = onPath(candidate.name, candidate.versioned);
  return onSystem ? { command: onSystem, args: candidate.args, from: "PATH" } : undefined;
}
