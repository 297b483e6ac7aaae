/** One language server of a run — a (server id, root) pair, across its restarts — and how `status` reports it. */
import { ToolError } from "../../errors.js";
import { plural } from "../../files/text.js";
import { noRootReason, type ServerSpec } from "../catalog.js";
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
  idle: { stops: number; stopped: boolean; why?: string };
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
  /** The newest error or warning the server reported. */
  reported?: string;
  /** Stopped for idleness now, or started again after it. */
  idle?: string;
  /** Runs in the run's place (confined, or the container), not on the host. */
  inPlace: boolean;
  /** Runs the project's code (trusted: the project's own server, or one that runs its build scripts). */
  runsProjectCode: boolean;
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
    runsProjectCode: client.confined,
    ...(client.progressTitles.length ? { progress: client.progressTitles } : {}),
    ...(client.lastError && !handle.idle.stopped ? { lastError: client.lastError } : {}),
    ...(client.output.reports.length ? { reported: client.output.reports.at(-1) } : {}),
    ...(handle.idle.stops
      ? { idle: idleNote({ why: handle.idle.why ?? `after ${idleMs / 1000} s idle`, ...handle.idle }) }
      : {}),
  };
}

/** How a language server's idleness reads in `lsp status`. */
export function idleNote(idle: { why: string; stops: number; stopped: boolean }): string {
  if (idle.stopped) return `stopped ${idle.why} (starts on next use)`;
  return `started again (stopped ${idle.why}${idle.stops > 1 ? `; ${idle.stops} stops` : ""})`;
}

/**
 * Under a run's cap on its servers: undefined when there is room for `starting`, else the least recently used
 * running server with no request in flight (to stop), else a ToolError naming the busy ones.
 */
export function toMakeRoom(
  handles: Iterable<Handle>,
  starting: Handle,
  cap: number,
  rel: (dir: string) => string,
): Handle | undefined {
  const live = [...handles].filter(
    (h) =>
      h !== starting &&
      h.client &&
      (h.client.state === "ready" || h.client.state === "indexing" || h.starting),
  );
  if (live.length < cap) return undefined;
  const lastUse = (h: Handle) => Math.max(h.usedAt, h.client?.lastUsed ?? 0);
  const free = live
    .filter((h) => !h.starting && (h.client?.inFlight ?? 0) === 0)
    .sort((a, b) => lastUse(a) - lastUse(b));
  if (free[0]) return free[0];
  throw new ToolError(
    `Not started (${starting.spec.id} @ ${rel(starting.root)}): this run already runs ${plural(live.length, "language server")}, its cap (lsp.maxServers ${cap}), and each is answering a request (${live.map((h) => `${h.spec.id} @ ${rel(h.root)}`).join(", ")}); call again when one has answered.`,
  );
}

/** For each catalog server not running: where it could serve, or why it cannot here. */
export function availability(
  specs: readonly ServerSpec[],
  locate: (spec: ServerSpec) => { roots: string[]; resolved: unknown },
  rel: (dir: string) => string,
): { unavailable: UnavailableServer[]; available: { id: string; roots: string[] }[] } {
  const unavailable: UnavailableServer[] = [];
  const available: { id: string; roots: string[] }[] = [];
  for (const spec of specs) {
    const { roots, resolved } = locate(spec);
    if (roots.length === 0) {
      unavailable.push({
        id: spec.id,
        reason: noRootReason(spec),
      });
      continue;
    }
    if (!resolved) {
      unavailable.push({
        id: spec.id,
        reason: `binary missing (${spec.candidates.map((c) => c.name).join(" or ")}); fix: ${spec.install}`,
      });
      continue;
    }
    available.push({ id: spec.id, roots: roots.map((r) => rel(r)) });
  }
  return { unavailable, available };
}
