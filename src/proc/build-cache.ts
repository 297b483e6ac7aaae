/**
 * Build caches that a folder's confined processes keep between sandboxes: the home is private and empty in each, so
 * Go's build cache started empty at every start — a confined delve rebuilt the standard library for each launch
 * (11.4 s to the first stop), a confined gopls recompiled what it lists for its first answer (2.2 s against 0.35 s on
 * the host). One per folder (what one project's code writes there is never read by another's builds, nor by the
 * host's — a run is a tenant), in runbound's cache folder, never runbound's home, which no sandbox may write. A
 * folder's cache goes when the folder does: each names its folder in a record beside it (not in it, where the
 * sandbox writes), and the first use in a process removes those whose folder is gone — one checkout per
 * conversation left ~30 MB each behind for good. Folders that stay (a machine's many checkouts) are bounded too:
 * past the cap (`RUNBOUND_GO_CACHE_MB`, default 2048) the caches used longest ago go first, never one this process
 * uses. Not one cache for all folders: what one project's code writes into a build cache would be read by another's
 * builds.
 */
import { createHash } from "node:crypto";
import { type Dirent, existsSync, mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { lstat, readdir, readFile, rm, stat } from "node:fs/promises";
import path from "node:path";
import { cacheFolder } from "../setup/home.mjs";

export interface BuildCache {
  /** The folder, by its real path (a place mounts nothing through a link). */
  readonly dir: string;
  /** What tells the tool to use it. */
  readonly env: Readonly<Record<string, string>>;
}

const RECORD = ".folder";
/** How often a long-lived host sweeps again. */
const SWEEP_EVERY_MS = 60 * 60 * 1000;
let sweptAt = 0;
/** The caches this process has handed out: never evicted under it. */
const inUse = new Set<string>();

/** The cap on the Go caches together, in bytes: `RUNBOUND_GO_CACHE_MB`, default 2048. */
export function goCacheCap(env: NodeJS.ProcessEnv = process.env): number {
  const mb = Number(env.RUNBOUND_GO_CACHE_MB);
  return (Number.isFinite(mb) && mb > 0 ? mb : 2048) * 1024 * 1024;
}

/** Where the Go caches live. */
export function goCacheRoot(): string {
  return path.join(cacheFolder(), "go-build");
}

/**
 * Go's caches for the processes of `folder`, made if need be: the build cache (GOCACHE) and gopls's own (GOPLSCACHE:
 * its type and analysis results; without it a warm build cache still left gopls 1.1 s slower to its first answer).
 */
export function goBuildCache(folder: string): BuildCache {
  const root = goCacheRoot();
  const name = createHash("sha256").update(folder).digest("hex").slice(0, 16);
  inUse.add(name);
  if (Date.now() - sweptAt > SWEEP_EVERY_MS) {
    sweptAt = Date.now();
    // In the background: removing old caches (tens of MB each) must not hold the host's thread.
    void sweepGone(root).then(() => evictOldest(root, goCacheCap(), inUse));
  }
  const dir = path.join(root, name);
  // The record first: another process's sweep then never takes the new cache for one whose folder is gone. Written
  // on every use, its time is the cache's last use.
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

/** The caches under `root` with their size in bytes and last use (their record's time), oldest first. */
export async function goCaches(root: string): Promise<{ name: string; bytes: number; usedAt: number }[]> {
  let names: string[];
  try {
    names = await readdir(root);
  } catch {
    return [];
  }
  const caches = [];
  for (const name of names.filter((n) => !n.endsWith(RECORD))) {
    const usedAt = await stat(path.join(root, `${name}${RECORD}`)).then(
      (s) => s.mtimeMs,
      () => 0,
    );
    caches.push({ name, bytes: await sizeOf(path.join(root, name)), usedAt });
  }
  return caches.sort((a, b) => a.usedAt - b.usedAt);
}

/** Removes the caches used longest ago until the rest fit in `capBytes`, never one in `keep`. */
export async function evictOldest(root: string, capBytes: number, keep: ReadonlySet<string>): Promise<void> {
  const caches = await goCaches(root);
  let total = caches.reduce((sum, c) => sum + c.bytes, 0);
  for (const cache of caches) {
    if (total <= capBytes) return;
    if (keep.has(cache.name)) continue;
    await rm(path.join(root, cache.name), { recursive: true, force: true }).catch(() => undefined);
    await rm(path.join(root, `${cache.name}${RECORD}`), { force: true }).catch(() => undefined);
    total -= cache.bytes;
  }
}

/** Bytes of the files under `dir`, following no link. */
async function sizeOf(dir: string): Promise<number> {
  let total = 0;
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const e of entries) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) total += await sizeOf(full);
    else if (e.isFile())
      total += await lstat(full).then(
        (s) => s.size,
        () => 0,
      );
  }
  return total;
}
