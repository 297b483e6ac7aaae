/**
 * The breakpoints of one conversation, kept across launches: per file its lines with their options (condition, hit
 * condition, log message), function breakpoints by name, and the exception filters asked for. An option the
 * adapter's capabilities do not list is refused before anything is sent, so nothing is ever half-set.
 */
import path from "node:path";
import type { DebugProtocol } from "@vscode/debugprotocol";
import { ToolError } from "../errors.js";
import { quotedValue } from "../files/visible.js";
import type { DapClient } from "./client.js";
import { stopOnDefaultExceptions } from "./connection.js";

/** One line breakpoint as the tool takes it. */
export interface LineBreakpoint {
  readonly line: number;
  readonly condition?: string | undefined;
  readonly hit_condition?: string | undefined;
  readonly log_message?: string | undefined;
}

const OPTION: Record<
  "condition" | "hit_condition" | "log_message",
  [keyof DebugProtocol.Capabilities, string]
> = {
  condition: ["supportsConditionalBreakpoints", "conditions"],
  hit_condition: ["supportsHitConditionalBreakpoints", "hit conditions"],
  log_message: ["supportsLogPoints", "logpoints"],
};

/** What an adapter lacks for these breakpoints, in words ("logpoints, hit conditions"); "" when nothing. */
export function unsupported(
  breakpoints: readonly LineBreakpoint[],
  capabilities: DebugProtocol.Capabilities,
): string {
  const lacking = (Object.keys(OPTION) as (keyof typeof OPTION)[]).filter(
    (key) => breakpoints.some((b) => b[key] !== undefined) && !capabilities[OPTION[key][0]],
  );
  return lacking.map((key) => `${OPTION[key][1]} (it does not advertise ${OPTION[key][0]})`).join(", ");
}

/** The DAP form of line breakpoints. */
export function sourceBreakpoints(breakpoints: readonly LineBreakpoint[]): DebugProtocol.SourceBreakpoint[] {
  return breakpoints.map((b) => ({
    line: b.line,
    ...(b.condition !== undefined ? { condition: b.condition } : {}),
    ...(b.hit_condition !== undefined ? { hitCondition: b.hit_condition } : {}),
    ...(b.log_message !== undefined ? { logMessage: b.log_message } : {}),
  }));
}

/** The exception filters an adapter offers, as `status` and a refusal list them: "raised (Raised Exceptions)". */
export function filtersOf(capabilities: DebugProtocol.Capabilities): string[] {
  return (capabilities.exceptionBreakpointFilters ?? []).map(
    (f) => `${f.filter} (${f.label}${f.default ? ", on by default" : ""})`,
  );
}

/** Refuses filter names the adapter does not offer, naming the ones it does. */
export function checkFilters(
  names: readonly string[],
  capabilities: DebugProtocol.Capabilities,
  adapter: string,
): void {
  const offered = (capabilities.exceptionBreakpointFilters ?? []).map((f) => f.filter);
  const unknown = names.filter((n) => !offered.includes(n));
  if (unknown.length)
    throw new ToolError(
      `\`exception_breakpoints\` ${unknown
        .slice(0, 5)
        .map((n) => quotedValue(n))
        .join(
          ", ",
        )}${unknown.length > 5 ? ` and ${unknown.length - 5} more` : ""} ${unknown.length === 1 ? "is not a filter" : "are not filters"} of ${adapter}; it offers ${filtersOf(capabilities).join(", ") || "none"}. No breakpoint was changed.`,
    );
}

/** Function breakpoints need the capability; refused otherwise. */
export function checkFunctions(
  names: readonly string[],
  capabilities: DebugProtocol.Capabilities,
  adapter: string,
): void {
  if (names.length && !capabilities.supportsFunctionBreakpoints)
    throw new ToolError(
      `${adapter} does not support function breakpoints (it does not advertise supportsFunctionBreakpoints); set a line breakpoint in the function instead. No breakpoint was changed.`,
    );
}

/** Every breakpoint of the conversation, sent at each launch. */
export class BreakpointBook {
  readonly lines = new Map<string, LineBreakpoint[]>();
  functions: string[] = [];
  /** undefined: the adapter's defaults (its filters marked default: uncaught exceptions, panics). */
  exceptions: string[] | undefined;
}

/**
 * What a session sends of breakpoints, checked against the adapter's capabilities first: a refused option changes
 * nothing.
 */
export class BreakpointChannel {
  constructor(
    readonly client: DapClient,
    readonly capabilities: DebugProtocol.Capabilities,
    readonly adapter: string,
    readonly requestMs: number,
    readonly logpoints: Logpoints,
  ) {}

  /**
   * Everything set before the program runs: line breakpoints per file (a file whose options the adapter lacks is
   * not sent, and its lines say why), function breakpoints, exception filters (the adapter's defaults unless set).
   */
  async sendBook(
    book: BreakpointBook,
  ): Promise<{ verified: Map<string, DebugProtocol.Breakpoint[]>; notes: string[] }> {
    const verified = new Map<string, DebugProtocol.Breakpoint[]>();
    const notes: string[] = [];
    for (const [file, lines] of book.lines) {
      const lacking = unsupported(lines, this.capabilities);
      verified.set(
        file,
        lacking
          ? lines.map(() => ({
              verified: false,
              message: `not set: ${this.adapter} does not support ${lacking}`,
            }))
          : await this.lines(file, lines),
      );
    }
    // Set before launch, when what the adapter offers was not yet known: what it refuses is said, never dropped.
    const refused = (error: unknown): false => {
      notes.push((error as Error).message.replace(/ No breakpoint was changed\.$/, ""));
      return false;
    };
    if (book.functions.length) await this.functions(book.functions).catch(refused);
    const exceptions = book.exceptions;
    const set = exceptions && (await this.exceptions(exceptions).then(() => true, refused));
    if (!set) {
      await stopOnDefaultExceptions(this.client, this.capabilities, this.requestMs);
      if (exceptions) notes.push(`${this.adapter} stops on its default exception filters instead`);
    }
    return { verified, notes };
  }

  async lines(file: string, breakpoints: readonly LineBreakpoint[]): Promise<DebugProtocol.Breakpoint[]> {
    const lacking = unsupported(breakpoints, this.capabilities);
    if (lacking)
      throw new ToolError(`${this.adapter} does not support ${lacking}; no breakpoint was changed.`);
    const body = await this.client.request<DebugProtocol.SetBreakpointsResponse["body"]>(
      "setBreakpoints",
      {
        source: { path: file, name: path.basename(file) },
        breakpoints: sourceBreakpoints(breakpoints),
        lines: breakpoints.map((b) => b.line),
      },
      this.requestMs,
    );
    this.logpoints.set(file, breakpoints);
    return body?.breakpoints ?? [];
  }

  async functions(names: readonly string[]): Promise<DebugProtocol.Breakpoint[]> {
    checkFunctions(names, this.capabilities, this.adapter);
    const body = await this.client.request<DebugProtocol.SetFunctionBreakpointsResponse["body"]>(
      "setFunctionBreakpoints",
      { breakpoints: names.map((name) => ({ name })) },
      this.requestMs,
    );
    return body?.breakpoints ?? [];
  }

  async exceptions(filters: readonly string[]): Promise<void> {
    checkFilters(filters, this.capabilities, this.adapter);
    await this.client.request("setExceptionBreakpoints", { filters }, this.requestMs);
  }
}

/** Logpoint lines kept for the next answer, at most. */
const MAX_LOGGED = 20;

/**
 * The logpoints set, by file, as patterns of their messages ({expr} matches anything), to tell their output from
 * the program's; and what they printed since the last answer.
 */
export class Logpoints {
  readonly #patterns = new Map<string, ((line: string) => boolean)[]>();
  #lines: string[] = [];
  #count = 0;

  set(file: string, breakpoints: readonly LineBreakpoint[]): void {
    const patterns = breakpoints.flatMap((b) =>
      b.log_message === undefined ? [] : [patternOf(b.log_message)],
    );
    if (patterns.length) this.#patterns.set(file, patterns);
    else this.#patterns.delete(file);
  }

  /** The logpoint message in an output event's text (delve's "> [Go 1]: " prefix taken off), if it is one. */
  take(output: string): string | undefined {
    if (this.#patterns.size === 0) return undefined;
    const line = output.replace(/\r?\n$/, "").replace(/^> \[Go \d+\]: /, "");
    if (line.includes("\n") || ![...this.#patterns.values()].flat().some((matches) => matches(line)))
      return undefined;
    this.#count++;
    this.#lines.push(line);
    if (this.#lines.length > MAX_LOGGED) this.#lines.shift();
    return line;
  }

  /** What was logged since the last call, for a stop's answer: the last lines and how many there were. */
  drain(): { logged?: string[]; logged_total?: number } {
    if (this.#count === 0) return {};
    const out = { logged: this.#lines, logged_total: this.#count };
    this.#lines = [];
    this.#count = 0;
    return out;
  }
}

/**
 * Whether a line is what a logpoint message prints: its text with anything where each {expr} was. Matched piece by
 * piece, each at its first place after the one before (right for a pattern whose only wildcards match anything):
 * as a regular expression of lazy wildcards, 6 of them against a 200-character line that almost matched took 495 s
 * of the host's thread.
 */
function patternOf(message: string): (line: string) => boolean {
  const pieces = message.split(/\{[^}]*\}/);
  const first = pieces[0] ?? "";
  const last = pieces[pieces.length - 1] ?? "";
  if (pieces.length === 1) return (line) => line === first;
  return (line) => {
    if (!line.startsWith(first) || !line.endsWith(last)) return false;
    let at = first.length;
    for (const piece of pieces.slice(1, -1)) {
      const found = line.indexOf(piece, at);
      if (found < 0) return false;
      at = found + piece.length;
    }
    return line.length - last.length >= at;
  };
}
