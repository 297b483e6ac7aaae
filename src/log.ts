/**
 * The run's logger: where runbound (and the libraries it drives) report what is neither a tool's answer nor an
 * error of the harness's call — a kernel connection lost and retried, a comm the kernel library could not open.
 */
export type LogLevel = "debug" | "info" | "warn" | "error";

export interface LogEntry {
  readonly level: LogLevel;
  /** What spoke: "eval" for the Jupyter kernel library, for now. */
  readonly source: string;
  readonly message: string;
}

export type RunLogger = (entry: LogEntry) => void;

/**
 * The default: warnings and errors to stderr, one line each, prefixed so a reader knows where they came from;
 * debug and info dropped (a harness that speaks JSON-RPC on stdout is never written to).
 */
export const stderrLogger: RunLogger = (entry) => {
  if (entry.level === "warn" || entry.level === "error") {
    process.stderr.write(`runbound ${entry.source} ${entry.level}: ${entry.message}\n`);
  }
};
