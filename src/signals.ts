/**
 * A deadline as an AbortSignal, made from a controller and a timer this module holds — not from
 * `AbortSignal.timeout`, whose timer holds its signal only weakly: inside `AbortSignal.any` nothing else holds it,
 * so a collection can drop it and the deadline never comes (measured: a diagnostics wait that never ended once
 * the process made garbage).
 */
export interface Deadline {
  readonly signal: AbortSignal;
  /** Clears the timer and the links to the parent signals. */
  dispose(): void;
}

export function deadline(ms: number, ...parents: (AbortSignal | undefined)[]): Deadline {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException(`deadline of ${ms} ms passed`, "TimeoutError")),
    Math.max(0, ms),
  );
  const links: (() => void)[] = [];
  for (const parent of parents) {
    if (!parent) continue;
    if (parent.aborted) {
      controller.abort(parent.reason);
      break;
    }
    const onAbort = () => controller.abort(parent.reason);
    parent.addEventListener("abort", onAbort, { once: true });
    links.push(() => parent.removeEventListener("abort", onAbort));
  }
  const dispose = () => {
    clearTimeout(timer);
    for (const unlink of links) unlink();
  };
  controller.signal.addEventListener("abort", dispose, { once: true });
  return { signal: controller.signal, dispose };
}
