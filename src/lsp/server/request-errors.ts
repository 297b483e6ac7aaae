import { visibleLine } from "../../files/visible.js";

/** How a request to a language server can fail besides the server dying: no answer in time, or an error answer. */
export class RequestTimeout extends Error {
  override readonly name = "TimeoutError";
}

/** A server answered a request with an error of its own (gopls: "no package metadata for file …"). */
export class ServerRefusal extends Error {
  constructor(
    readonly server: string,
    readonly method: string,
    message: string,
    /** The JSON-RPC error code (-32601: the server does not implement the method). */
    readonly code: number,
    /** What the server reported as errors or warnings before it answered so, newest last. */
    readonly reports: readonly string[] = [],
  ) {
    super(message);
  }
}

/**
 * What the server reported before an error answer, quoted: ` gopls reported before: "…" | "…".`, or "" when it
 * reported nothing.
 */
export function reportedBefore(error: unknown, workdir: string): string {
  if (!(error instanceof ServerRefusal) || error.reports.length === 0) return "";
  return ` ${error.server} reported before: ${error.reports.map((r) => quoteReport(r, workdir)).join(" | ")}.`;
}

/** A server's report in quotes (or not), on one line, with paths in the workdir relative as everywhere in answers. */
export function quoteReport(line: string, workdir: string, quoted = true): string {
  // The workdir (as a path or a file URI): dropped before a path inside it, "." when it stands alone.
  const escaped = workdir.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const relative = visibleLine(line).replace(
    new RegExp(`(?:file://)?${escaped}(/|(?![\\w.-]))`, "g"),
    (_, slash: string) => (slash ? "" : "."),
  );
  return quoted ? `"${relative}"` : relative;
}
