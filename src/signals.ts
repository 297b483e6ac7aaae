import { setMaxListeners } from "node:events";

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

/**
 * A child of `parent` for a fan-out: many concurrent waits listen to it, so it has no listener limit (Node warns
 * past 10 on a signal — diagnostics on write for a 300-file rewrite printed a MaxListenersExceededWarning into the
 * host's stderr), while the parent, often the run's own long-lived signal, carries one listener.
 */
export function fanOut(parent: AbortSignal): Deadline {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  if (parent.aborted) {
    controller.abort(parent.reason);
    return { signal: controller.signal, dispose: () => {} };
  }
  const onAbort = () => controller.abort(parent.reason);
  parent.addEventListener("abort", onAbort, { once: true });
  return { signal: controller.signal, dispose: () => parent.removeEventListener("abort", onAbort) };
}
