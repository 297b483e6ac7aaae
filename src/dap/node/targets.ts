/**
 * What the Node adapter debugs: the program's main thread and each of its worker threads (worker_threads), one DAP
 * thread each. A worker is reached through the main thread's inspector (Node's NodeWorker domain): its messages are
 * tunnelled, and `workerClient` gives them the same shape as the main connection, so breakpoints, stops and values
 * work alike on both. Frame ids and variables references are numbered per thread, in ranges of their own.
 */
import { EventEmitter } from "node:events";
import type CDP from "chrome-remote-interface";
import type { Protocol } from "devtools-protocol";
import type { NodeBreakpoints } from "./breakpoints.js";
import { PausedState } from "./frames.js";
import { Scripts } from "./scripts.js";

/** The main thread's id; workers take the next ones, in the order they start. */
export const MAIN_THREAD = 1;
/**
 * Node's own modules, skipped as VS Code's JavaScript debugger skips `<node_internals>` by default (and debugpy
 * attaches with justMyCode). V8 skips only those compiled after the inspector joined: the loader and the rest of what
 * Node compiled at startup have no context V8 can match, so a step that lands there is stepped out of (the adapter's #onPaused).
 */
export const NODE_INTERNALS = ["^node:", "^internal[\\\\/]"];
const INTERNAL_URL = /^(node:|internal[\\/])/;
/** Frame ids and variables references of thread N lie in [(N-1)·ID_RANGE, N·ID_RANGE). */
const ID_RANGE = 1_000_000;

export class Target {
  readonly scripts = new Scripts();
  breakpoints!: NodeBreakpoints;
  paused: PausedState | undefined;
  /** Why the next stop comes, when runbound asked for it (a step, a pause). */
  expecting: "step" | "pause" | undefined;
  /** Steps out of Node's own frames taken for the current step. */
  skipped = 0;
  ended = false;

  constructor(
    readonly thread: number,
    readonly name: string,
    readonly cdp: CDP.Client,
  ) {}

  /** Whether a pause is in one of Node's own modules. */
  inNodeInternals(event: Protocol.Debugger.PausedEvent): boolean {
    const top = event.callFrames[0];
    const url = top ? this.scripts.get(top.location.scriptId)?.url : undefined;
    return url !== undefined && INTERNAL_URL.test(url);
  }

  /** A stop of this thread, its ids in the thread's range. */
  stop(event: Protocol.Debugger.PausedEvent): PausedState {
    return new PausedState(event, this.cdp, this.scripts, (this.thread - 1) * ID_RANGE);
  }
}

/** A command by name, for domains the client's protocol description does not list (NodeWorker). */
export function rawSend(client: CDP.Client, method: string, params: object): Promise<unknown> {
  return (client.send as unknown as (method: string, params: object) => Promise<unknown>)(method, params);
}

/** The thread a frame id or a variables reference belongs to. */
export function threadOf(id: number): number {
  return Math.floor(id / ID_RANGE) + 1;
}

interface Pending {
  readonly resolve: (result: unknown) => void;
  readonly reject: (error: Error) => void;
}

/** A worker's inspector session as a client: its commands go out through the main connection, its answers come in. */
export interface WorkerClient {
  readonly client: CDP.Client;
  /** A message from the worker (NodeWorker.receivedMessageFromWorker). */
  receive(message: string): void;
  /** The worker is gone: what waits for an answer is refused. */
  end(): void;
}

export function workerClient(main: CDP.Client, sessionId: string): WorkerClient {
  const events = new EventEmitter();
  const pending = new Map<number, Pending>();
  let next = 1;
  let ended = false;
  const send = (method: string, params: object = {}): Promise<unknown> => {
    if (ended) return Promise.reject(new Error("the worker has ended"));
    const id = next++;
    const answered = new Promise<unknown>((resolve, reject) => pending.set(id, { resolve, reject }));
    rawSend(main, "NodeWorker.sendMessageToWorker", {
      sessionId,
      message: JSON.stringify({ id, method, params }),
    }).catch((error: Error) => {
      pending.get(id)?.reject(error);
      pending.delete(id);
    });
    return answered;
  };
  // `client.Debugger.resume(params)` as on the main connection: a domain, then a method, sent by name.
  const domain = (name: string) =>
    new Proxy({}, { get: (_, method) => (params?: object) => send(`${name}.${String(method)}`, params) });
  const base = {
    on: (event: string, listener: (params: unknown) => void) => events.on(event, listener),
    send,
    close: async () => undefined,
  };
  const client = new Proxy(base, {
    get: (target, key) =>
      key in target
        ? target[key as keyof typeof target]
        : typeof key === "string" && key !== "then"
          ? domain(key)
          : undefined,
  }) as unknown as CDP.Client;
  return {
    client,
    receive(message) {
      const parsed = JSON.parse(message) as {
        id?: number;
        result?: unknown;
        error?: { message: string };
        method?: string;
        params?: unknown;
      };
      if (parsed.id === undefined) {
        if (parsed.method) events.emit(parsed.method, parsed.params);
        return;
      }
      const waiting = pending.get(parsed.id);
      pending.delete(parsed.id);
      if (parsed.error) waiting?.reject(new Error(parsed.error.message));
      else waiting?.resolve(parsed.result);
    },
    end() {
      ended = true;
      for (const waiting of pending.values()) waiting.reject(new Error("the worker has ended"));
      pending.clear();
      events.emit("disconnect");
    },
  };
}
