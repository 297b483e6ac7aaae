/**
 * Build caches that a folder's confined processes keep between sandboxes: the home is private and empty in each, so
 * Go's build cache started empty at every start — a confined delve rebuilt the standard library for each launch
 * (11.4 s to the first stop), a confined gopls recompiled what it lists for its first answer (2.2 s against 0.35 s on
 * the host). One per folder (what one project's code writes there is never read by another's builds, nor by the
 * host's — a run is a tenant), in runbound's cache folder, never runbound's home, which no sandbox may write. A
 * folder's cache goes when the folder does: each names its folder in a record beside it (not in it, where the
 * sandbox writes), and the first use in a process removes those whose folder is gone — one checkout per
 * conversation left ~30 MB each behind for good.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { readdir, readFile, rm } from "node:fs/promises";
import path from "node:path";
import { cacheFolder } from "../setup/home.mjs";

export interface BuildCache {
  /** The folder, by its real path (a place mounts nothing through a link). */
  readonly dir: string;
  /** What tells the tool to use it. */
  readonly env: Readonly<Record<string, string>>;
}

const RECORD = ".folder";
let swept = false;

/**
 * Go's caches for the processes of `folder`, made if need be: the build cache (GOCACHE) and gopls's own (GOPLSCACHE:
 * its type and analysis results; without it a warm build cache still left gopls 1.1 s slower to its first answer).
 */
export function goBuildCache(folder: string): BuildCache {
  const root = path.join(cacheFolder(), "go-build");
  if (!swept) {
    swept = true;
    // In the background: removing old caches (tens of MB each) must not hold the host's thread.
    void sweepGone(root);
  }
  const name = createHash("sha256").update(folder).digest("hex").slice(0, 16);
  const dir = path.join(root, name);
  // The record first: another process's sweep then never takes the new cache for one whose folder is gone.
  mkdirSync(root, { recursive: true });
  writeFileSync(path.join(root, `${name}${RECORD}`), `${folder}\n`);
  mkdirSync(path.join(dir, "gopls"), { recursive: true });
  const real = realpathSync(dir);
  return { dir: real, env: { GOCACHE: real, GOPLSCACHE: path.join(real, "gopls") } };
}

/** Removes the caches whose folder is gone, and those without a record (made before there were records). */
export async function sweepGone(root: string): Promise<void> {
  let names: string[];
  try {
    names = await readdir(root);
  } catch {
    return;
  }
  for (const name of names) {
    if (name.endsWith(RECORD)) continue;
    const record = path.join(root, `${name}${RECORD}`);
    const folder = await readFile(record, "utf8").then(
      (text) => text.trim(),
      () => undefined,
    );
    if (folder && existsSync(folder)) continue;
    // rm follows no link inside: what a sandbox left there is removed, never what it points at.
    await rm(path.join(root, name), { recursive: true, force: true }).catch(() => undefined);
    await rm(record, { force: true }).catch(() => undefined);
  }
}
