/**
 * One Jupyter server per host process and Python environment, shared by every run whose kernels run on the host
 * itself, unconfined (a confined run's kernels have a loopback of their own, and their server is the run's). A
 * run's kernels get kernelspecs of its own (its interpreter, environment and working folder) and connection files
 * in a folder of its own; the server runs jupyter_server and nothing of any project. It starts with the first run
 * that needs it and stops when the last run using it is gone; one that dies is started anew on the next lease.
 */
import type { ServerConnection } from "@jupyterlab/services";
import { ProcessTracker } from "../proc/tracker.js";
import { JupyterServer, sweepStaleFolders } from "./server.js";

interface Shared {
  readonly server: JupyterServer;
  /** Its own processes, on the host, with the default environment policy (credentials dropped). */
  readonly processes: ProcessTracker;
  readonly ready: Promise<ServerConnection.ISettings>;
  /** Each lease's exit listener; the server stops when none is left. */
  readonly users: Map<symbol, () => void>;
}

const servers = new Map<string, Shared>();

export interface SharedLease {
  readonly server: JupyterServer;
  readonly settings: ServerConnection.ISettings;
  /** Ends this run's use; the last one stops the server. */
  release(): Promise<void>;
}

/** A use of the shared server of `python`'s environment, started if need be; `onExit` is told if it dies. */
export async function leaseSharedServer(
  python: string,
  startMs: number,
  onExit: (server: JupyterServer) => void,
): Promise<SharedLease> {
  // A host killed before it could clean up left its server's folder: swept at every lease, not only at a start.
  sweepStaleFolders();
  let shared = servers.get(python);
  if (!shared) {
    const server = new JupyterServer();
    const processes = new ProcessTracker();
    // Kernels start in each run's own folder (the path given at their start, below "/").
    const ready = server.start(python, "/", [], processes, startMs);
    shared = { server, processes, ready, users: new Map() };
    const started = shared;
    servers.set(python, started);
    ready.then(
      () =>
        void server.exited?.then(() => {
          if (servers.get(python) === started) servers.delete(python);
          for (const listener of started.users.values()) listener();
        }),
      () => {
        if (servers.get(python) === started) servers.delete(python);
        void stop(started);
      },
    );
  }
  const use = Symbol("lease");
  const current = shared;
  current.users.set(use, () => onExit(current.server));
  let settings: ServerConnection.ISettings;
  try {
    settings = await current.ready;
  } catch (error) {
    current.users.delete(use);
    throw error;
  }
  return {
    server: current.server,
    settings,
    release: async () => {
      if (!current.users.delete(use) || current.users.size > 0) return;
      if (servers.get(python) === current) servers.delete(python);
      await stop(current);
    },
  };
}

/** The server, its folder and its tracker's watchdog: nothing of it is left. */
async function stop(shared: Shared): Promise<void> {
  await shared.server.stop(shared.processes).catch(() => undefined);
  await shared.processes.killAll();
}
