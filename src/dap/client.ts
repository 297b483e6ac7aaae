/**
 * A Debug Adapter Protocol client: Content-Length framing counted in bytes, a seq → pending map, events, and the
 * reverse requests an adapter may send (runInTerminal and startDebugging are refused cleanly: runbound launches
 * with the adapter's internal console). Every request has a deadline; when the stream closes every pending
 * request is rejected and every waiter released — nothing hangs on a dead adapter.
 */

import type { Readable, Writable } from "node:stream";
import type { DebugProtocol } from "@vscode/debugprotocol";
import { mapPaths, type Place } from "../proc/place.js";

export class DapTimeout extends Error {
  override readonly name = "TimeoutError";
  /** The request (or the awaited event) that did not come. */
  constructor(
    message: string,
    readonly command?: string,
  ) {
    super(message);
  }

  /** The message in the adapter's own name ("lldb did not answer next within 10000 ms"). */
  by(adapter: string): string {
    return this.message.replace(/^the adapter/, adapter);
  }
}

/**
 * What a failed response says: the error body's text where there is one (delve: "Failed to launch" in `message`, the
 * build's compiler errors only in `body.error.format`), its {variables} filled in; else the message.
 */
export function failureOf(response: DebugProtocol.Response): string {
  const error = (response as DebugProtocol.ErrorResponse).body?.error;
  const format = error?.format?.replace(/\{(\w+)\}/g, (all, name: string) => error.variables?.[name] ?? all);
  return format || response.message || `${response.command} failed`;
}

/** The adapter answered a request with success: false; the message is its own. */
export class DapRefused extends Error {
  constructor(
    readonly command: string,
    message: string,
  ) {
    super(message);
  }
}

interface Pending {
  readonly command: string;
  resolve(response: DebugProtocol.Response): void;
  reject(error: Error): void;
}

interface EventWaiter {
  readonly events: readonly string[];
  readonly accept: (event: DebugProtocol.Event) => boolean;
  resolve(event: DebugProtocol.Event): void;
  reject(error: Error): void;
}

const HEADER_END = Buffer.from("\r\n\r\n");
/** A message from an adapter past this is not carried: a variable's value or a program's output of that size would
 * be cut long before it reached an answer, and holding it took the host's memory with it. */
const MAX_MESSAGE_BYTES = 64 * 2 ** 20;
/** The output category of runbound's own notes among a session's output (connection.ts shows them). */
export const RUNBOUND_NOTE = "runbound";
/** A header that has not ended by now never will: it is not DAP. */
const MAX_HEADER_BYTES = 64 * 1024;

export class DapClient {
  readonly #out: Writable;
  readonly #pending = new Map<number, Pending>();
  readonly #waiters = new Set<EventWaiter>();
  readonly #listeners = new Set<(event: DebugProtocol.Event) => void>();
  /** What has come of the message being read, not yet joined; its whole length once its header is read. */
  #parts: Buffer[] = [];
  #size = 0;
  #need = 0;
  /** Bytes of a message too large to carry still to pass by. */
  #skip = 0;
  #seq = 1;
  #closed: string | undefined;

  /** Paths as the adapter sees them and back, when it runs where paths differ (a container); else none. */
  readonly #paths: Pick<Place, "toPlace" | "toHost"> | undefined;

  constructor(input: Readable, output: Writable, paths?: Pick<Place, "toPlace" | "toHost">) {
    this.#out = output;
    this.#paths = paths;
    input.on("data", (chunk: Buffer) => this.#receive(chunk));
    input.on("close", () => this.close("the adapter's stream closed"));
    input.on("error", (error) => this.close(`the adapter's stream failed: ${error.message}`));
    // Writing to an adapter that died raises EPIPE on its stdin: a closed session, not a crash of the host.
    output.on("error", (error) => this.close(`the adapter's input failed: ${error.message}`));
  }

  get closed(): string | undefined {
    return this.#closed;
  }

  onEvent(listener: (event: DebugProtocol.Event) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Sends a request; the returned promise settles with the response (success or not) or rejects on close/timeout. */
  send(command: string, args: unknown, timeoutMs: number): Promise<DebugProtocol.Response> {
    if (this.#closed) return Promise.reject(new Error(this.#closed));
    const seq = this.#seq++;
    return new Promise<DebugProtocol.Response>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(seq);
        reject(new DapTimeout(`the adapter did not answer ${command} within ${timeoutMs} ms`, command));
      }, timeoutMs);
      this.#pending.set(seq, {
        command,
        resolve: (r) => {
          clearTimeout(timer);
          resolve(r);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      this.#write({ seq, type: "request", command, arguments: args });
    });
  }

  /** Sends a request and returns its body; a failed response is an Error carrying the adapter's message. */
  async request<B>(command: string, args: unknown, timeoutMs: number): Promise<B> {
    const response = await this.send(command, args, timeoutMs);
    if (!response.success) throw new DapRefused(command, failureOf(response));
    return response.body as B;
  }

  /**
   * Registers a waiter for an event now (before the action that causes it is sent, so it cannot be missed) and
   * returns its promise. Several names: the first of them to come settles it (a stop or the end: one waiter and
   * one timer). `withdraw` aborting removes it with its timer and rejects it with the abort's reason (a launch that
   * answers "running" before its long deadline); a step does without, at no cost.
   */
  waitFor(
    event: string | readonly string[],
    timeoutMs: number,
    accept: (e: DebugProtocol.Event) => boolean = () => true,
    withdraw?: AbortSignal,
  ): Promise<DebugProtocol.Event> {
    if (this.#closed) return Promise.reject(new Error(this.#closed));
    if (withdraw?.aborted) return Promise.reject(withdraw.reason);
    const events = typeof event === "string" ? [event] : event;
    return new Promise((resolve, reject) => {
      const settle = () => {
        clearTimeout(timer);
        withdraw?.removeEventListener("abort", onWithdraw);
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(waiter);
        settle();
        reject(new DapTimeout(`no ${events.join(" or ")} event within ${timeoutMs} ms`));
      }, timeoutMs);
      const onWithdraw = () => {
        this.#waiters.delete(waiter);
        settle();
        reject(withdraw!.reason);
      };
      const waiter: EventWaiter = {
        events,
        accept,
        resolve: (e) => {
          settle();
          resolve(e);
        },
        reject: (e) => {
          settle();
          reject(e);
        },
      };
      this.#waiters.add(waiter);
      withdraw?.addEventListener("abort", onWithdraw, { once: true });
    });
  }

  /** Event waiters still registered (each holds a timer). */
  get waiting(): number {
    return this.#waiters.size;
  }

  close(reason: string): void {
    if (this.#closed) return;
    this.#closed = reason;
    for (const pending of this.#pending.values())
      pending.reject(new Error(`${reason} (while waiting for ${pending.command})`));
    this.#pending.clear();
    for (const waiter of this.#waiters)
      waiter.reject(new Error(`${reason} (while waiting for ${waiter.events.join(" or ")})`));
    this.#waiters.clear();
  }

  #write(message: object): void {
    if (this.#closed) return;
    const mapped = this.#paths ? mapPaths(message, (p) => this.#paths!.toPlace(p)) : message;
    const body = Buffer.from(JSON.stringify(mapped), "utf8");
    this.#out.write(Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`, "ascii"), body]));
  }

  /**
   * Frames in from the adapter. The chunks of a message are kept apart until it is whole (joining each chunk to what
   * was read made a 100 MB message cost gigabytes of copying on the host's thread); a message over MAX_MESSAGE_BYTES
   * is skipped as it streams by, never held, and said as output; one that is not JSON ends the session.
   */
  #receive(chunk: Buffer): void {
    let data = chunk;
    if (this.#skip > 0) {
      const skipped = Math.min(this.#skip, data.length);
      this.#skip -= skipped;
      data = data.subarray(skipped);
      if (data.length === 0) return;
    }
    this.#parts.push(data);
    this.#size += data.length;
    if (this.#need > 0 && this.#size < this.#need) return;
    let buffer =
      this.#parts.length === 1 ? (this.#parts[0] as Buffer) : Buffer.concat(this.#parts, this.#size);
    this.#parts = [];
    this.#size = 0;
    this.#need = 0;
    while (buffer.length > 0 && !this.#closed) {
      const end = buffer.indexOf(HEADER_END);
      if (end === -1) {
        if (buffer.length > MAX_HEADER_BYTES) {
          this.close("the adapter sent a header without its end");
          return;
        }
        break;
      }
      const header = buffer.subarray(0, end).toString("ascii");
      const length = Number(/Content-Length:\s*(\d+)/i.exec(header)?.[1]);
      if (!Number.isFinite(length)) {
        this.close(`the adapter sent a message without Content-Length: ${header.slice(0, 80)}`);
        return;
      }
      const start = end + HEADER_END.length;
      if (length > MAX_MESSAGE_BYTES) {
        this.#skip = Math.max(0, start + length - buffer.length);
        buffer = buffer.subarray(Math.min(buffer.length, start + length));
        this.#tooLarge(length);
        continue;
      }
      if (buffer.length < start + length) {
        this.#need = start + length;
        break;
      }
      const body = buffer.subarray(start, start + length).toString("utf8");
      buffer = buffer.subarray(start + length);
      let message: DebugProtocol.ProtocolMessage;
      try {
        message = JSON.parse(body) as DebugProtocol.ProtocolMessage;
      } catch {
        this.close(`the adapter sent a message that is not JSON: ${JSON.stringify(body.slice(0, 80))}`);
        return;
      }
      this.#dispatch(this.#paths ? mapPaths(message, (p) => this.#paths!.toHost(p)) : message);
    }
    if (buffer.length > 0) {
      this.#parts = [buffer];
      this.#size = buffer.length;
    }
  }

  /** A message too large to carry, said where the program's output is read (a response in it times out as such). */
  #tooLarge(bytes: number): void {
    const mb = (bytes / 2 ** 20).toFixed(1);
    this.#dispatch({
      seq: 0,
      type: "event",
      event: "output",
      body: {
        category: RUNBOUND_NOTE,
        output: `(runbound dropped a message of ${mb} MB from the adapter: over its ${MAX_MESSAGE_BYTES / 2 ** 20} MB limit)\n`,
      },
    } as DebugProtocol.OutputEvent);
  }

  #dispatch(message: DebugProtocol.ProtocolMessage): void {
    if (message.type === "response") {
      const response = message as DebugProtocol.Response;
      const pending = this.#pending.get(response.request_seq);
      if (pending) {
        this.#pending.delete(response.request_seq);
        pending.resolve(response);
      }
    } else if (message.type === "event") {
      const event = message as DebugProtocol.Event;
      for (const waiter of [...this.#waiters]) {
        if (waiter.events.includes(event.event) && waiter.accept(event)) {
          this.#waiters.delete(waiter);
          waiter.resolve(event);
        }
      }
      for (const listener of this.#listeners) listener(event);
    } else if (message.type === "request") {
      const request = message as DebugProtocol.Request;
      // runbound launches with the adapter's own console; it opens no terminals and starts no child sessions.
      this.#write({
        seq: this.#seq++,
        type: "response",
        request_seq: request.seq,
        command: request.command,
        success: false,
        message: `runbound does not support the reverse request ${request.command}`,
      });
    }
  }
}
