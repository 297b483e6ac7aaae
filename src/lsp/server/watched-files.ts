/**
 * What a server asked to hear about files (its `workspace/didChangeWatchedFiles` registrations: glob patterns,
 * absolute or relative to a base folder, and which kinds of change), and which of a batch of changes it gets.
 */
import { fileURLToPath, pathToFileURL } from "node:url";
import type { FileEvent, FileSystemWatcher } from "vscode-languageserver-protocol";
import { globMatcher } from "./glob.js";

/** LSP's FileChangeType, and WatchKind's bits for the same changes. */
export type ChangeType = 1 | 2 | 3;
const KIND_BIT: Record<ChangeType, number> = { 1: 1, 2: 2, 3: 4 };

interface Watcher {
  readonly test: (file: string) => boolean;
  readonly kinds: number;
}

export class WatchedFiles {
  readonly #byRegistration = new Map<string, Watcher[]>();

  constructor(readonly root: string) {}

  /** A registration's watchers (its registerOptions), by the registration's id. */
  register(id: string, options: unknown): void {
    const watchers = (options as { watchers?: FileSystemWatcher[] } | undefined)?.watchers ?? [];
    this.#byRegistration.set(
      id,
      watchers.map((w) => ({ test: matcher(w.globPattern, this.root), kinds: w.kind ?? 7 })),
    );
  }

  unregister(id: string): void {
    this.#byRegistration.delete(id);
  }

  get size(): number {
    return this.#byRegistration.size;
  }

  /** The changes of `batch` (absolute paths) that some watcher of this server covers, as LSP file events. */
  matching(batch: readonly { file: string; type: ChangeType }[]): FileEvent[] {
    const watchers = [...this.#byRegistration.values()].flat();
    return batch
      .filter(({ file, type }) => watchers.some((w) => (w.kinds & KIND_BIT[type]) !== 0 && w.test(file)))
      .map(({ file, type }) => ({ uri: pathToFileURL(file).href, type }));
  }
}

/** A glob as LSP gives it: a string (matched against the absolute path, or relative to the root) or a RelativePattern. */
function matcher(glob: FileSystemWatcher["globPattern"], root: string): (file: string) => boolean {
  if (typeof glob === "string") {
    const test = globMatcher(glob);
    return (file) => test(file) || (file.startsWith(`${root}/`) && test(file.slice(root.length + 1)));
  }
  const base = typeof glob.baseUri === "string" ? glob.baseUri : glob.baseUri.uri;
  const dir = base.startsWith("file:") ? fileURLToPath(base) : base;
  const test = globMatcher(glob.pattern);
  return (file) => file.startsWith(`${dir}/`) && test(file.slice(dir.length + 1));
}
