/** Project roots: the folders holding a root marker (package.json, go.mod, pyproject.toml, …). */
import { type Dirent, existsSync, readdirSync } from "node:fs";
import path from "node:path";

/** The nearest folder at or above `dir` (never above the workdir) that holds one of `markers`. */
export function rootAbove(workdir: string, dir: string, markers: readonly string[]): string | undefined {
  // A server without markers (Bash, YAML, CSS, …: no project file says where their project is) serves the workdir.
  if (markers.length === 0) return workdir;
  for (let d = dir; ; d = path.dirname(d)) {
    if (markers.some((marker) => existsSync(path.join(d, marker)))) return d;
    if (d === workdir || !d.startsWith(workdir) || path.dirname(d) === d) return undefined;
  }
}

/**
 * Folders with a marker: the workdir and up to two levels below, skipping hidden folders and node_modules. Without
 * markers (a language with no project file): the workdir, when a file `serves` takes lies that near.
 */
export function rootsIn(
  workdir: string,
  markers: readonly string[],
  serves?: (fileName: string) => boolean,
): string[] {
  if (markers.length === 0) return serves && listingNear(workdir).files.some(serves) ? [workdir] : [];
  return listingNear(workdir).folders.filter((dir) => markers.some((m) => existsSync(path.join(dir, m))));
}

/**
 * The folders rootsIn looks in, listed once per turn of the event loop: `lsp status` asks for every server's roots,
 * and each listing of a folder of 100,000 files took ~40 ms of the host's thread (1.2 s a status).
 */
let listed: Listing | undefined;

/** The names of the files in the workdir and up to two levels below (the folders rootsIn looks in). */
export function fileNamesNear(workdir: string): readonly string[] {
  return listingNear(workdir).files;
}

interface Listing {
  readonly workdir: string;
  readonly folders: readonly string[];
  /** The names of the files in those folders. */
  readonly files: readonly string[];
}

function listingNear(workdir: string): Listing {
  if (listed?.workdir === workdir) return listed;
  const folders: string[] = [];
  const files: string[] = [];
  const visit = (dir: string, depth: number) => {
    folders.push(dir);
    if (depth === 0) return;
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (e.isDirectory() && !e.name.startsWith(".") && e.name !== "node_modules")
        visit(path.join(dir, e.name), depth - 1);
      else if (e.isFile()) files.push(e.name);
    }
  };
  visit(workdir, 2);
  listed = { workdir, folders, files };
  setImmediate(() => {
    listed = undefined;
  });
  return listed;
}
