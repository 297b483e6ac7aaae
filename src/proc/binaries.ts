/**
 * Where a server's binary comes from: the project first (node_modules/.bin and .venv/bin, walking up from the
 * root to the workdir), then runbound's own (embedded npm dependencies, .tools/), then PATH — including
 * versioned names such as clangd-14. A rustup proxy whose component is not installed does not count.
 */
import { spawnSync } from "node:child_process";
import { accessSync, constants, readdirSync, realpathSync } from "node:fs";
import path from "node:path";

export interface BinaryCandidate {
  /** A name looked up as the ladder says (project node_modules/.bin, .venv/bin, runbound's own, .tools, PATH). */
  readonly name: string;
  readonly args: readonly string[];
  /** Also accept versioned names on PATH (`clangd-14`, `clangd-16`: the highest wins). */
  readonly versioned?: boolean;
  /** An absolute path resolved by runbound itself (embedded defaults shipped as npm dependencies). */
  readonly embedded?: () => string | undefined;
}

export interface Resolved {
  readonly command: string;
  readonly args: readonly string[];
  /** Where it was found: "project", "runbound", "PATH". */
  readonly from: string;
}

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Folders to look in, in order, for a server rooted at `root` inside `workdir`. */
export function searchDirs(
  root: string,
  workdir: string,
  runboundHome: string,
): { dir: string; from: string }[] {
  const dirs: { dir: string; from: string }[] = [];
  for (let dir = root; ; dir = path.dirname(dir)) {
    dirs.push({ dir: path.join(dir, "node_modules", ".bin"), from: "project" });
    dirs.push({ dir: path.join(dir, ".venv", "bin"), from: "project" });
    dirs.push({ dir: path.join(dir, "venv", "bin"), from: "project" });
    if (dir === workdir || path.dirname(dir) === dir || !dir.startsWith(workdir)) break;
  }
  dirs.push({ dir: path.join(runboundHome, "node_modules", ".bin"), from: "runbound" });
  dirs.push({ dir: path.join(runboundHome, ".tools", "go", "bin"), from: "runbound" });
  dirs.push({ dir: path.join(runboundHome, ".tools", "bin"), from: "runbound" });
  for (const dir of (process.env.PATH ?? "").split(path.delimiter).filter(Boolean))
    dirs.push({ dir, from: "PATH" });
  return dirs;
}

export function resolveBinary(
  candidate: BinaryCandidate,
  root: string,
  workdir: string,
  runboundHome: string,
): Resolved | undefined {
  const dirs = searchDirs(root, workdir, runboundHome);
  // The project's own copy wins over runbound's embedded one.
  for (const { dir, from } of dirs.filter((d) => d.from === "project")) {
    const file = path.join(dir, candidate.name);
    if (executable(file)) return { command: file, args: candidate.args, from };
  }
  const embedded = candidate.embedded?.();
  if (embedded && executable(embedded)) return { command: embedded, args: candidate.args, from: "runbound" };
  for (const { dir, from } of dirs.filter((d) => d.from !== "project")) {
    const file = path.join(dir, candidate.name);
    if (executable(file) && !isMissingRustupComponent(file))
      return { command: file, args: candidate.args, from };
  }
  if (candidate.versioned) {
    const found = versionedOnPath(
      candidate.name,
      dirs.filter((d) => d.from === "PATH").map((d) => d.dir),
    );
    if (found) return { command: found, args: candidate.args, from: "PATH" };
  }
  return undefined;
}

function versionedOnPath(name: string, dirs: string[]): string | undefined {
  let best: { file: string; version: number } | undefined;
  const pattern = new RegExp(`^${name}-(\\d+)$`);
  for (const dir of dirs) {
    let entries: string[];
    try {
      entries = readdirSync(dir);
    } catch {
      continue;
    }
    for (const entry of entries) {
      const version = Number(pattern.exec(entry)?.[1]);
      const file = path.join(dir, entry);
      if (version && (!best || version > best.version) && executable(file)) best = { file, version };
    }
  }
  return best?.file;
}

/** rustup installs proxies for components that are not installed; running one fails. */
function isMissingRustupComponent(file: string): boolean {
  let real: string;
  try {
    real = realpathSync(file);
  } catch {
    return false;
  }
  if (path.basename(real) !== "rustup" && path.basename(real) !== "rustup-init") return false;
  const check = spawnSync(file, ["--version"], { encoding: "utf8", timeout: 10_000 });
  return check.status !== 0;
}
