/**
 * Changes made by anything but runbound's write tools — an eval cell, a debuggee, a worker, the user's editor, a
 * `git checkout` — reach the servers: the workdir is watched (from the first server's start, with the walk's
 * ignores and a cap on folders), changes are batched, and each running server is sent `didChangeWatchedFiles` for
 * what it registered to hear; a document it has open is re-sent when its text changed on disk, and closed when the
 * file is gone (it would keep answering from the ghost).
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { type FSWatcher, watch } from "chokidar";
import ignore, { type Ignore } from "ignore";
import { gitignoreIn } from "../../files/gitignore.js";
import { isBytes, readRegularSync, specialKindOf } from "../../files/regular.js";
import type { LspClient } from "./client.js";
import type { LspSupervisor } from "./supervisor.js";
import type { ChangeType } from "./watched-files.js";

/** Quiet time that ends a batch (a checkout writes hundreds of files), and the longest a batch waits. */
const SETTLE_MS = 150;
const MAX_WAIT_MS = 1000;
/** Folders watched at most: each costs an inotify watch; past it, deeper changes are not seen (said in status). */
const MAX_FOLDERS = 5000;
const SKIPPED = new Set(["node_modules", "__pycache__"]);

export class OutsideChanges {
  readonly #supervisor: LspSupervisor;
  #watcher: FSWatcher | undefined;
  readonly #pending = new Map<string, ChangeType>();
  #timer: NodeJS.Timeout | undefined;
  #since = 0;
  readonly #folders = new Set<string>();
  readonly #unwatched = new Set<string>();
  #flushing: Promise<void> = Promise.resolve();
  /** Batches sent, for status and tests. */
  batches = 0;

  constructor(supervisor: LspSupervisor) {
    this.#supervisor = supervisor;
  }

  /** Starts watching, once. */
  start(): void {
    if (this.#watcher) return;
    const workdir = this.#supervisor.workdir;
    const rules = gitignoreIn(workdir) ?? ignore();
    this.#watcher = watch(workdir, {
      ignoreInitial: true,
      followSymlinks: false,
      ignored: (file, stats) => this.#ignored(workdir, rules, file, stats?.isDirectory()),
    });
    this.#watcher.on("add", (f) => this.#queue(f, 1));
    this.#watcher.on("change", (f) => this.#queue(f, 2));
    this.#watcher.on("unlink", (f) => this.#queue(f, 3));
    // A watch that fails (no inotify watches left) must not take the run down; what it saw so far still counts.
    this.#watcher.on("error", () => undefined);
  }

  #ignored(workdir: string, rules: Ignore, file: string, directory: boolean | undefined): boolean {
    if (file === workdir) return false;
    const rel = path.relative(workdir, file);
    // A workdir gone as the watch starts has chokidar watch the folder above for it to come back, and ask of that
    // folder here: not the run's to watch (and the ignore rules throw on a path that leaves the workdir).
    if (rel.startsWith("..") || path.isAbsolute(rel)) return true;
    const name = path.basename(file);
    if (name.startsWith(".") || SKIPPED.has(name)) return true;
    // Cargo's build folder, even where no .gitignore names it: thousands of folders of output.
    if (directory && name === "target" && existsSync(path.join(path.dirname(file), "Cargo.toml")))
      return true;
    if (rules.ignores(directory ? `${rel}/` : rel)) return true;
    // chokidar may ask twice of one folder: each is counted once.
    if (directory && !this.#folders.has(file)) {
      if (this.#folders.size >= MAX_FOLDERS) {
        this.#unwatched.add(file);
        return true;
      }
      this.#folders.add(file);
    }
    return this.#unwatched.has(file);
  }

  #queue(file: string, type: ChangeType): void {
    // A file created and changed in one batch is created; created then deleted, it never was for the servers.
    const before = this.#pending.get(file);
    if (before === 1 && type === 3) this.#pending.delete(file);
    else this.#pending.set(file, before === 1 && type === 2 ? 1 : type);
    const now = Date.now();
    if (this.#timer === undefined) this.#since = now;
    clearTimeout(this.#timer);
    const wait = Math.max(0, Math.min(SETTLE_MS, this.#since + MAX_WAIT_MS - now));
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#flushing = this.#flushing.then(() => this.#flush());
    }, wait);
  }

  async #flush(): Promise<void> {
    // What is not a regular file (a pipe in its place) is gone for the servers, whatever the watch saw: told of a
    // pipe, a server reads it and waits for a writer.
    const batch = [...this.#pending].map(([file, type]) => ({
      file,
      type: type !== 3 && specialKindOf(file) ? 3 : type,
    }));
    this.#pending.clear();
    if (batch.length === 0) return;
    this.batches++;
    for (const client of this.#supervisor.runningClients()) {
      // A change to a document the server has open with that very text is runbound's own write, already synced.
      const news = batch.filter((c) => c.type !== 2 || !openWithText(client, c.file));
      const changes = client.watched.matching(news);
      if (changes.length)
        await client.notify("workspace/didChangeWatchedFiles", { changes }).catch(() => undefined);
      await resyncOpen(client, news);
    }
    for (const { file, type } of batch) if (type === 3) await this.#supervisor.forget(file);
  }

  /** One line for `lsp status`: whether changes made elsewhere are seen, and where not. */
  describe(): string | undefined {
    if (!this.#watcher) return undefined;
    const cap = this.#unwatched.size
      ? `; ${this.#unwatched.size} more folders are not watched (the cap is ${MAX_FOLDERS}): changes there reach the servers only when a call touches the file`
      : "";
    return `Changes made outside runbound's tools are watched in ${this.#folders.size} folders${cap}.`;
  }

  /** Sends what was seen so far now, without waiting for the batch to settle: a call must see the latest files. */
  async settled(): Promise<void> {
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
      this.#flushing = this.#flushing.then(() => this.#flush());
    }
    await this.#flushing;
  }

  async dispose(): Promise<void> {
    clearTimeout(this.#timer);
    this.#pending.clear();
    await this.#watcher?.close();
  }
}

function openWithText(client: LspClient, file: string): boolean {
  const doc = client.documents.get(pathToFileURL(file).href);
  if (!doc) return false;
  try {
    const bytes = readRegularSync(file);
    return isBytes(bytes) && bytes.toString("utf8") === doc.text;
  } catch {
    return false;
  }
}

/** An open document whose file changed on disk is re-sent (its server answers from the open text, not the disk). */
async function resyncOpen(client: LspClient, batch: readonly { file: string; type: ChangeType }[]) {
  for (const { file, type } of batch) {
    if (type === 3) continue;
    const doc = client.documents.get(pathToFileURL(file).href);
    if (!doc) continue;
    let text: string;
    try {
      const bytes = readRegularSync(file);
      if (!isBytes(bytes)) continue;
      text = bytes.toString("utf8");
    } catch {
      continue;
    }
    // Open already: sync sends didChange (the language id is for didOpen only).
    if (text !== doc.text) await client.sync(file, "", text).catch(() => undefined);
  }
}
