/**
 * @jupyterlab/services writes to the global console: connection state on console.debug ("Starting WebSocket: …",
 * "Kernel: idle (…)"), "Connection lost, reconnecting…" on console.warn, comm and future errors on console.error.
 * In a harness that owns the terminal or speaks JSON-RPC on stdout that is noise or corruption, and the harness
 * cannot tell which run it came from. So the console methods are wrapped once: a line written while the library
 * works for a run (inside `withRunLogger`, which the async context carries into its socket and timer callbacks)
 * goes to that run's logger; every other line goes to the console as before.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { format } from "node:util";
import type { LogLevel, RunLogger } from "../log.js";

type ConsoleMethod = (...data: unknown[]) => void;

const current = new AsyncLocalStorage<RunLogger>();
const LEVELS: Record<"debug" | "log" | "info" | "warn" | "error", LogLevel> = {
  debug: "debug",
  log: "info",
  info: "info",
  warn: "warn",
  error: "error",
};
// A set, not a marker property: spies and wrappers often copy a function's own properties.
const routed = new WeakSet<ConsoleMethod>();

/** Idempotent; wraps whatever each console method is now (a host or a test may have replaced it since). */
function routeConsole(): void {
  for (const [method, level] of Object.entries(LEVELS) as [keyof typeof LEVELS, LogLevel][]) {
    const previous: ConsoleMethod = console[method];
    if (routed.has(previous)) continue;
    const wrapper: ConsoleMethod = (...data) => {
      const logger = current.getStore();
      // The harness's logger runs outside the routing: one that writes with console.log (as many do) would call
      // itself until the stack ran out, and the cell failed with "Maximum call stack size exceeded".
      if (logger) current.exit(() => logger({ level, source: "eval", message: format(...data) }));
      else previous.apply(console, data);
    };
    routed.add(wrapper);
    console[method] = wrapper;
  }
}

/** Runs `work` (and everything it schedules) with the library's console lines going to `logger`. */
export function withRunLogger<T>(logger: RunLogger, work: () => T): T {
  routeConsole();
  return current.run(logger, work);
}

/**
 * Runs `work` outside that routing: for code that is not the library's but is called from its callbacks — a
 * cell's tool() call runs the run's tools, a harness's among them, whose console lines are theirs to keep.
 */
export function outsideRunLogger<T>(work: () => T): T {
  return current.exit(work);
}
