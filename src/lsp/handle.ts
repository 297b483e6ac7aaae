/** One language server of a run — a (server id, root) pair, across its restarts — and how `status` reports it. */
import type { ServerSpec } from "./catalog.js";
import type { LspClient, ServerState } from "./client.js";

export interface Handle {
  /** As it runs at the trust of its last start. */
  spec: ServerSpec;
  readonly root: string;
  client: LspClient | undefined;
  starting: Promise<LspClient> | undefined;
  restarts: number;
  nextAttempt: number;
  startedAt: number;
  /** Files the agent worked with, re-opened after a restart. */
  readonly tracked: Map<string, string>;
  /** When a call last needed it (performance.now()); requests count on the client. */
  usedAt: number;
  /** How often it was stopped for idleness, and whether it is stopped now. */
  idle: { stops: number; stopped: boolean };
}

export interface ServerStatus {
  id: string;
  root: string;
  state: ServerState;
  pid?: number;
  command: string;
  restarts: number;
  progress?: string[];
  lastError?: string;
  /** Stopped for idleness now, or started again after it. */
  idle?: string;
  /** Runs in the run's place: it runs the project's code (confined), or the run's place is a container. */
  inPlace: boolean;
}

export interface UnavailableServer {
  id: string;
  reason: string;
}

/** The handle as `status` lists it; `root` relative to the workdir, `idleMs` the run's idle time. */
export function statusOf(handle: Handle, root: string, idleMs: number): ServerStatus {
  const client = handle.client!;
  return {
    id: handle.spec.id,
    root,
    state: client.state,
    ...(client.pid !== undefined && !handle.idle.stopped ? { pid: client.pid } : {}),
    command: client.resolved.command,
    restarts: handle.restarts,
    inPlace: client.inPlace,
    ...(client.progressTitles.length ? { progress: client.progressTitles } : {}),
    ...(client.lastError && !handle.idle.stopped ? { lastError: client.lastError } : {}),
    ...(handle.idle.stops ? { idle: idleNote({ seconds: idleMs / 1000, ...handle.idle }) } : {}),
  };
}

/** How a language server's idleness reads in `lsp status`. */
export function idleNote(idle: { seconds: number; stops: number; stopped: boolean }): string {
  const after = `after ${idle.seconds} s idle`;
  if (idle.stopped) return `stopped ${after} (starts on next use)`;
  return `started again ${after}${idle.stops > 1 ? ` (${idle.stops} times)` : ""}`;
}
