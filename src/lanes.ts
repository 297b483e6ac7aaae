/**
 * Per-run serialization of non-parallel-safe tools: calls in one lane run one at a time, in arrival order. A
 * waiting call gives up its place when its signal aborts.
 */
export class Lanes {
  readonly #tails = new Map<string, Promise<void>>();

  async run<T>(lane: string, signal: AbortSignal, work: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(lane) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = previous.then(() => mine);
    this.#tails.set(lane, tail);
    try {
      await waitOrAbort(previous, signal);
      return await work();
    } finally {
      release();
      if (this.#tails.get(lane) === tail) this.#tails.delete(lane);
    }
  }
}

function waitOrAbort(promise: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      () => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      },
      () => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      },
    );
  });
}
