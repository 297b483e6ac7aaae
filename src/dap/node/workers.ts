/**
 * The program's worker threads (worker_threads), followed as Node's inspector offers them: the NodeWorker domain on
 * the main connection announces each worker, which waits for its debugger before it runs a line; the adapter sets it
 * up as a thread (its breakpoints, filters, the same skipping of Node's own frames) and lets it go.
 */
import type CDP from "chrome-remote-interface";
import { rawSend, Target, type WorkerClient, workerClient } from "./targets.js";

interface WorkerInfo {
  readonly workerId: string;
  readonly title?: string;
  readonly url?: string;
}

export interface WorkerEvents {
  /** A worker, paused before its first line until this resolves (or fails: then it is let go as it is). */
  started(target: Target): Promise<void>;
  ended(target: Target): void;
  nextThread(): number;
}

export async function followWorkers(main: CDP.Client, on: WorkerEvents): Promise<void> {
  const workers = new Map<string, { tunnel: WorkerClient; target: Target }>();
  main.on("NodeWorker.attachedToWorker" as never, (event: { sessionId: string; workerInfo: WorkerInfo }) => {
    const tunnel = workerClient(main, event.sessionId);
    const target = new Target(on.nextThread(), workerName(event.workerInfo), tunnel.client);
    workers.set(event.sessionId, { tunnel, target });
    on.started(target).catch(() => tunnel.client.Runtime.runIfWaitingForDebugger().catch(() => undefined));
  });
  main.on("NodeWorker.receivedMessageFromWorker" as never, (event: { sessionId: string; message: string }) =>
    workers.get(event.sessionId)?.tunnel.receive(event.message),
  );
  main.on("NodeWorker.detachedFromWorker" as never, (event: { sessionId: string }) => {
    const worker = workers.get(event.sessionId);
    if (!worker) return;
    workers.delete(event.sessionId);
    worker.tunnel.end();
    on.ended(worker.target);
  });
  await rawSend(main, "NodeWorker.enable", { waitForDebuggerOnStart: true });
}

/** "worker 1 (hash.js)": Node's id for it, and the file it runs when it is one. */
function workerName(info: WorkerInfo): string {
  const file = info.url?.startsWith("file:") ? info.url.slice(info.url.lastIndexOf("/") + 1) : undefined;
  return `worker ${info.workerId}${file ? ` (${decodeURIComponent(file)})` : ""}`;
}
