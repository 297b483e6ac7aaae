/**
 * Stopping what a run has not used for a while: a run that sits idle in a harness otherwise holds its language
 * servers' memory (pyright ~130 MB, tsgo ~45 MB) and, when the harness asks for it, its kernels', for as long as the
 * conversation lives. The next call starts them again.
 */

/** Ten minutes: long enough that an agent's pause to think or run tests does not cost a cold start. */
export const DEFAULT_IDLE_SECONDS = 600;

/** The idle seconds asked for, checked: a positive number, or 0 / false for never; `fallback` when not given. */
export function idleSecondsOf(value: unknown, option: string, fallback = DEFAULT_IDLE_SECONDS): number {
  if (value === undefined) return fallback;
  if (value === false || value === 0) return 0;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
    throw new Error(
      `${option} must be a number of seconds (e.g. ${DEFAULT_IDLE_SECONDS}), or 0 / false to never stop for idleness; got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

/** Calls `check` often enough to stop a server within a quarter of its idle time (at most every 30 s). */
export class IdleCheck {
  readonly #timer: NodeJS.Timeout | undefined;

  constructor(idleMs: number, check: () => void) {
    if (idleMs <= 0) return;
    this.#timer = setInterval(check, Math.max(100, Math.min(idleMs / 4, 30_000)));
    // A timer of its own must not keep the host process alive.
    this.#timer.unref();
  }

  dispose(): void {
    clearInterval(this.#timer);
  }
}
