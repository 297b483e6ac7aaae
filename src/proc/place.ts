/**
 * Where a run's processes live. Every process is started through a place: the host itself, or an OS sandbox on the
 * host (bubblewrap). A place turns a spawn into the command that runs it there, maps paths between the host and
 * what the process sees, and says in one line what it is, for `status` answers and `doctor`.
 */

export type PlaceKind = "host" | "confined" | "container";

/** A process to start, as the resource means it (host paths). */
export interface SpawnRequest {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd?: string;
  readonly env: NodeJS.ProcessEnv;
  /** Host folders this process must also write (a server's private folder); the workdir is always writable. */
  readonly writable?: readonly string[];
  /** Host folders this process must also read although they are hidden (its connection files' folder). */
  readonly readable?: readonly string[];
}

/** What actually starts: the same request, or one wrapped to run inside the place. */
export interface SpawnPlan {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd?: string;
  readonly env: NodeJS.ProcessEnv;
}

export interface Place {
  readonly kind: PlaceKind;
  /** One line: where processes run and under what policy. */
  readonly description: string;
  /**
   * Whether this place shares the host's loopback: runbound reaches its servers on loopback ports (and they the
   * host's). A confined place never does — the run has a loopback of its own, reached through `relays`.
   */
  readonly hostLoopback: boolean;
  /** The relay sockets of its live sandboxes with a network (net-bridge.mjs), each leading to one's loopback. */
  relays?(): readonly string[];
  /** A folder of the run's own, writable inside the place (its TMPDIR), or undefined on the host. */
  readonly scratch?: string | undefined;
  /** Why nothing can start there now (a container that is down), or undefined when it can. */
  unavailable?(): string | undefined;
  plan(request: SpawnRequest): SpawnPlan;
  /** A host path as a process in the place sees it. */
  toPlace(hostPath: string): string;
  /** A path a process in the place named, as the host sees it. */
  toHost(placePath: string): string;
  /** Frees what the place holds (its scratch folder, its limits); the processes are already gone. */
  dispose(): Promise<void>;
}

/** The host: processes start as asked, paths are the host's. */
export const HOST_PLACE: Place = {
  kind: "host",
  description: "on the host, as the harness's own user (not confined)",
  hostLoopback: true,
  plan: ({ command, args, cwd, env }) => ({ command, args, env, ...(cwd ? { cwd } : {}) }),
  toPlace: (hostPath) => hostPath,
  toHost: (placePath) => placePath,
  dispose: async () => undefined,
};

/**
 * Every absolute path (and `file://` URI) in a protocol message, mapped: how LSP and DAP messages cross into a
 * place whose paths differ from the host's. Other strings are left as they are.
 */
export function mapPaths<T>(value: T, map: (path: string) => string): T {
  if (typeof value === "string") {
    if (value.startsWith("/")) return map(value) as T;
    if (value.startsWith("file:///")) return `file://${encodeURI(map(decodeURI(value.slice(7))))}` as T;
    return value;
  }
  if (Array.isArray(value)) return value.map((item) => mapPaths(item, map)) as T;
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = mapPaths(item, map);
    return out as T;
  }
  return value;
}
