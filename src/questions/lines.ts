/**
 * Lines from a terminal, queued: a line typed (or pasted) while nobody is reading waits for the next read instead
 * of being dropped, as readline's own question() would. The console and the terminal question port share one.
 */
import { createInterface, type Interface } from "node:readline";
import type { Readable, Writable } from "node:stream";

interface Waiter {
  resolve(line: string): void;
  reject(error: Error): void;
}

export class LineReader {
  readonly #rl: Interface;
  readonly #queue: string[] = [];
  readonly #waiters: Waiter[] = [];
  #closed = false;

  constructor(input: Readable, output: Writable) {
    const terminal = (input as { isTTY?: boolean }).isTTY === true;
    this.#rl = createInterface({ input, output, terminal });
    this.#rl.on("line", (line) => {
      const waiter = this.#waiters.shift();
      if (waiter) waiter.resolve(line);
      else this.#queue.push(line);
    });
    this.#rl.on("close", () => {
      this.#closed = true;
      for (const waiter of this.#waiters.splice(0))
        waiter.reject(new Error("the terminal input closed before an answer"));
    });
  }

  /** True once the input has ended and every queued line was read. */
  get closed(): boolean {
    return this.#closed && this.#queue.length === 0;
  }

  /** Shows `prompt` and resolves with the next line; rejects when the input ends or `signal` aborts. */
  read(prompt: string, signal?: AbortSignal): Promise<string> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    // After the input ended there is nobody to prompt (and Node 24 throws ERR_USE_AFTER_CLOSE): queued lines remain.
    if (!this.#closed) {
      this.#rl.setPrompt(prompt);
      this.#rl.prompt(true);
    }
    const queued = this.#queue.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    if (this.#closed) return Promise.reject(new Error("the terminal input closed before an answer"));
    return new Promise<string>((resolve, reject) => {
      const onAbort = () => {
        const i = this.#waiters.indexOf(waiter);
        if (i !== -1) this.#waiters.splice(i, 1);
        reject(signal?.reason);
      };
      const waiter: Waiter = {
        resolve: (line) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(line);
        },
        reject: (error) => {
          signal?.removeEventListener("abort", onAbort);
          reject(error);
        },
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#waiters.push(waiter);
    });
  }

  close(): void {
    this.#rl.close();
  }
}
