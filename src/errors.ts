/**
 * A ToolError is an answer for the model: it says what was wrong and what to do next. Anything else thrown from a
 * handler is a fault of runbound or of a resource and is reported as such.
 */
export class ToolError extends Error {
  override readonly name = "ToolError";
  /** Extra structured detail for the harness (never needed to understand the message). */
  readonly detail: Record<string, unknown> | undefined;

  constructor(message: string, detail?: Record<string, unknown>) {
    super(message);
    this.detail = detail;
  }
}

export function isAbortError(error: unknown): boolean {
  return error instanceof Error && (error.name === "AbortError" || error.name === "TimeoutError");
}

export function errorMessage(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // Node's fetch says only "fetch failed"; the reason (refused, reset, closed) is in the cause chain.
  const causes: string[] = [];
  let cause: unknown = error.cause;
  while (cause instanceof Error && causes.length < 3) {
    causes.push(cause.message);
    cause = cause.cause;
  }
  return causes.length ? `${error.message} (${causes.join(": ")})` : error.message;
}
