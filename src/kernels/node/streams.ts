/**
 * A kernel's stdout and stderr on their way to IOPub. A cell that never yields sends nothing until it does, so what
 * it writes waits here — bounded: past the budget the oldest goes, counted, and the notebook is told — and goes out
 * as one stream message per stream when the loop is free (or before the cell's result, to keep the order).
 */
export type StreamName = "stdout" | "stderr";

/** What a stream keeps while its cell holds the loop: the newest 4 MB (runbound keeps a cell's last 32 KB). */
const BUDGET = 4 * 1024 * 1024;

class Pending {
  /** The chunks from `head` on are kept; those before it were dropped (an array's shift would be quadratic). */
  chunks: string[] = [];
  head = 0;
  length = 0;
  dropped = 0;

  add(text: string): void {
    this.chunks.push(text);
    this.length += text.length;
    while (this.length > BUDGET) {
      const first = this.chunks[this.head] ?? "";
      const over = this.length - BUDGET;
      const cut = Math.min(first.length, over);
      if (cut === first.length) this.head++;
      else this.chunks[this.head] = first.slice(cut);
      this.length -= cut;
      this.dropped += cut;
    }
    if (this.head > 1024 && this.head * 2 > this.chunks.length) {
      this.chunks = this.chunks.slice(this.head);
      this.head = 0;
    }
  }

  take(name: StreamName): string {
    const note = this.dropped
      ? `… (${this.dropped.toLocaleString("en-US")} earlier characters of ${name} dropped: written faster than the kernel could send them)\n`
      : "";
    const text = note + this.chunks.slice(this.head).join("");
    this.chunks = [];
    this.head = 0;
    this.length = 0;
    this.dropped = 0;
    return text;
  }
}

export class Streams<Parent> {
  readonly #pending = { stdout: new Pending(), stderr: new Pending() };
  #parent: Parent | undefined;
  #scheduled = false;

  constructor(readonly send: (name: StreamName, text: string, parent: Parent | undefined) => void) {}

  write(name: StreamName, text: string, parent: Parent | undefined): void {
    if (parent !== this.#parent) this.flush();
    this.#parent = parent;
    this.#pending[name].add(text);
    if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  /** Sends what waits now (before a cell's result or error, so output comes first). */
  flush(): void {
    this.#scheduled = false;
    for (const name of ["stdout", "stderr"] as const) {
      if (!this.#pending[name].length && !this.#pending[name].dropped) continue;
      this.send(name, this.#pending[name].take(name), this.#parent);
    }
  }
}
