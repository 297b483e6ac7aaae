/**
 * What a stopped program looks like, in one answer: the reason, the location with its source line, the first frame
 * inside the workdir when the top one is not, the top frames, the top frame's locals, what was raised — and what
 * the adapter did not give, said rather than dropped. Values are clipped with their length said.
 */
import path from "node:path";
import type { DebugProtocol } from "@vscode/debugprotocol";
import { ToolError } from "../errors.js";
import { within } from "../files/library-roots.js";
import { fileLines } from "../files/lines.js";
import { snippetOf } from "../files/snippet.js";
import type { DapClient } from "./client.js";
import { DapRefused, DapTimeout } from "./client.js";
import type { Frame, StopReport, Variable } from "./schema.js";

/** Why the program stopped, as the adapter's stopped event said. */
export interface Stop {
  readonly reason: string;
  readonly threadId: number;
  readonly text?: string;
  readonly description?: string;
}

/** What a stop shows for a line of a file outside the workdir and the library roots. */
export const OUTSIDE_SOURCE = "(outside the workdir and the libraries: not shown)";

const MAX_FRAMES = 30;
const MAX_CHILDREN = 50;
export const MAX_VALUE = 400;
/** A watch's value in a stop's answer: shorter, since there may be ten. */
const WATCH_VALUE = 160;

/** The requests that look at a stopped program. */
export class StopInspector {
  constructor(
    readonly client: DapClient,
    readonly adapterName: string,
    readonly capabilities: DebugProtocol.Capabilities,
    readonly workdir: string,
    readonly requestMs: number,
    /** The folders besides the workdir whose files a stop may quote (the run's library roots). */
    readonly libraries: () => readonly string[] = () => [],
  ) {}

  async stackFrames(threadId: number): Promise<DebugProtocol.StackFrame[]> {
    const body = await this.client.request<DebugProtocol.StackTraceResponse["body"]>(
      "stackTrace",
      { threadId, startFrame: 0, levels: MAX_FRAMES },
      this.requestMs,
    );
    return (body?.stackFrames ?? []).slice(0, MAX_FRAMES);
  }

  frame(f: DebugProtocol.StackFrame): Frame {
    return {
      id: f.id,
      name: f.name,
      ...(f.source?.path ? { path: this.rel(f.source.path) } : {}),
      // A runtime's own module (Node's node:internal/…) is named, never read; code an adapter serves by reference
      // (lldb's disassembly) is not a place.
      ...(!f.source?.path && !f.source?.sourceReference && f.source?.name ? { origin: f.source.name } : {}),
      ...(f.line ? { line: f.line } : {}),
      ...(f.line && f.column ? { column: f.column } : {}),
    };
  }

  async scopes(frameId: number): Promise<{ name: string; reference: number }[]> {
    const body = await this.client.request<DebugProtocol.ScopesResponse["body"]>(
      "scopes",
      { frameId },
      this.requestMs,
    );
    return (body?.scopes ?? []).map((s) => ({ name: s.name, reference: s.variablesReference }));
  }

  async variables(
    reference: number,
    limit = MAX_CHILDREN,
  ): Promise<{ variables: Variable[]; total: number }> {
    const body = await this.client.request<DebugProtocol.VariablesResponse["body"]>(
      "variables",
      { variablesReference: reference },
      this.requestMs,
    );
    const all = (body?.variables ?? []).filter(
      (v) => !/^(special|function|class|protected) variables$/.test(v.name),
    );
    return {
      total: all.length,
      variables: all.slice(0, limit).map((v) => ({
        name: v.name,
        value: clip(v.value),
        ...(v.type ? { type: v.type } : {}),
        ...(v.variablesReference ? { reference: v.variablesReference } : {}),
      })),
    };
  }

  async evaluate(
    expression: string,
    frameId: number | undefined,
  ): Promise<{ result: string; type?: string; reference?: number }> {
    const body = await this.client
      .request<DebugProtocol.EvaluateResponse["body"]>(
        "evaluate",
        // lldb-dap (LLVM 18 on) reads "repl" as its console — an lldb command or expression, answered as lldb prints
        // one, `(int) $1 = 6`; as a watch it answers the value, as the other adapters do in "repl".
        { expression, frameId, context: this.adapterName === "lldb" ? "watch" : "repl" },
        this.requestMs,
      )
      .catch((error: Error) => {
        throw new ToolError(`Evaluating \`${expression}\` failed: ${error.message.trim()}`);
      });
    return {
      result: clip(body.result),
      ...(body.type ? { type: body.type } : {}),
      ...(body.variablesReference ? { reference: body.variablesReference } : {}),
    };
  }

  /**
   * Sets a variable: by its container's `reference`, else found by name in the frame's scopes (setVariable), else
   * as an expression (setExpression) where the adapter has it. The answer is the value the adapter reports.
   */
  async setVariable(
    name: string,
    value: string,
    frameId: number | undefined,
    reference: number | undefined,
  ): Promise<{ value: string; type?: string }> {
    const caps = this.capabilities;
    if (!caps.supportsSetVariable && !caps.supportsSetExpression)
      throw new ToolError(
        `${this.adapterName} cannot set variables (it advertises neither supportsSetVariable nor supportsSetExpression); evaluate an assignment instead.`,
      );
    const container =
      reference ?? (frameId !== undefined ? await this.#scopeHolding(name, frameId) : undefined);
    const usable = container !== undefined && caps.supportsSetVariable;
    if (!usable && !caps.supportsSetExpression)
      throw new ToolError(
        `\`name\` ${name} is not a variable in the scopes of frame ${frameId}; give \`reference\` (from scopes or variables) of what holds it.`,
      );
    // Both answer { value, type? }.
    const [command, args] = usable
      ? ["setVariable", { variablesReference: container, name, value }]
      : ["setExpression", { expression: name, value, frameId }];
    const body = await this.client
      .request<DebugProtocol.SetVariableResponse["body"]>(command, args, this.requestMs)
      .catch((error: Error) => {
        throw new ToolError(
          `${this.adapterName} could not set \`${name}\` to \`${value}\`: ${error.message.trim()}`,
        );
      });
    return { value: clip(body.value), ...(body.type ? { type: body.type } : {}) };
  }

  /** The reference of the first scope of the frame that has a variable called `name`. */
  async #scopeHolding(name: string, frameId: number): Promise<number | undefined> {
    for (const scope of (await this.scopes(frameId)).slice(0, 3)) {
      const { variables } = await this.variables(scope.reference, 1000);
      if (variables.some((v) => v.name === name)) return scope.reference;
    }
    return undefined;
  }

  /** Watch expressions in a frame: each one's value, or why it has none. */
  async watches(
    expressions: readonly string[],
    frameId: number,
  ): Promise<{ expression: string; value: string }[]> {
    return Promise.all(
      expressions.map(async (expression) => {
        const body = await this.client
          .request<DebugProtocol.EvaluateResponse["body"]>(
            "evaluate",
            { expression, frameId, context: "watch" },
            this.requestMs,
          )
          .catch((error: unknown) => ({
            result: `(not available: ${this.failure(error).replace(/\s+/g, " ").trim()})`,
          }));
        return { expression, value: clip(body.result, WATCH_VALUE) };
      }),
    );
  }

  /**
   * The report of a stop. Each request goes out as soon as what it needs is known, and runbound's own work on the
   * answer is done while the adapter works on the next (ARCHITECTURE.md has the figures).
   */
  async report(stop: Stop, watch: readonly string[] = []): Promise<StopReport> {
    const unavailable: string[] = [];
    const missing =
      <T>(what: string, instead: T) =>
      (error: unknown): T => {
        unavailable.push(`${what}: ${this.failure(error)}`);
        return instead;
      };
    const raw = await this.stackFrames(stop.threadId).catch(
      missing("frames", [] as DebugProtocol.StackFrame[]),
    );
    const scopesAsked = raw[0] ? this.scopes(raw[0].id).catch(missing("scopes", [])) : undefined;
    const frames = raw.map((f) => this.frame(f));
    const top = frames[0];
    const location = top?.path && top.line ? this.#located(top) : undefined;
    // A Go panic stops in runtime.fatalpanic, a signal may stop in libc: point at the code the agent can change.
    // An exception thrown in C++ stops in __cxa_throw, which has no source at all.
    const own =
      top && (!top.path || path.isAbsolute(top.path))
        ? frames.find((f) => f.path && f.line && !path.isAbsolute(f.path))
        : undefined;
    const workdirFrame = own?.path && own.line ? { id: own.id, ...this.#located(own) } : undefined;
    const locals: Variable[] = [];
    for (const scope of localScopes(scopesAsked ? await scopesAsked : [])) {
      if (locals.length >= 20) break;
      const got = await this.variables(scope.reference, 20 - locals.length).catch(
        missing("locals", { variables: [] as Variable[] }),
      );
      locals.push(...got.variables);
    }
    const watched = watch.length && raw[0] ? this.watches(watch, raw[0].id) : undefined;
    const exception = stop.reason === "exception" ? await this.#exception(stop) : undefined;
    // delve answers a step it cannot take (an unknown goroutine) with a stop for "error": its text is the why.
    const error = stop.reason === "error" ? (stop.text ?? stop.description) : undefined;
    return {
      state: "stopped",
      reason: stop.reason,
      thread_id: stop.threadId,
      ...(exception ? { exception } : {}),
      ...(error ? { error: clip(error) } : {}),
      ...(workdirFrame ? { workdir_frame: workdirFrame } : {}),
      ...(location ? { location } : {}),
      frames: frames.slice(0, 5),
      locals,
      ...(watched ? { watches: await watched } : {}),
      ...(unavailable.length ? { unavailable } : {}),
    };
  }

  #located(f: Frame): { path: string; line: number; function: string; source: string } {
    return {
      path: f.path!,
      line: f.line!,
      function: f.name,
      source: this.sourceLine(f.path!, f.line!, f.column),
    };
  }

  /** What a stop for an exception was about: the adapter's exceptionInfo where it has one, else the stop's text. */
  async #exception(stop: Stop): Promise<StopReport["exception"]> {
    if (this.capabilities.supportsExceptionInfoRequest) {
      const info = await this.client
        .request<DebugProtocol.ExceptionInfoResponse["body"]>(
          "exceptionInfo",
          { threadId: stop.threadId },
          this.requestMs,
        )
        .catch(() => undefined);
      const description = info?.description ?? info?.details?.message ?? stop.text ?? stop.description;
      if (info && description) return { id: info.exceptionId, description: clip(description) };
    }
    const description = stop.text ?? stop.description;
    return description ? { description: clip(description) } : undefined;
  }

  /** Why a request at a stop failed, in the adapter's name. */
  failure(error: unknown): string {
    if (error instanceof DapTimeout) return error.by(this.adapterName);
    if (error instanceof DapRefused)
      return `${this.adapterName} refused ${error.command}: ${error.message.trim()}`;
    return error instanceof Error ? error.message : String(error);
  }

  /**
   * The stop's line as a snippet: clipped around the column on a long (minified) line. Only from the workdir and the
   * library roots: an adapter or a debug server a cell started names whatever path it likes (/etc/shadow), and
   * runbound reads on the host as the harness's user — elsewhere the path is named, its content not read.
   */
  sourceLine(rel: string, line: number, column = 1): string {
    const file = path.resolve(this.workdir, rel);
    if (!within(file, [this.workdir]) && !within(file, this.libraries())) return OUTSIDE_SOURCE;
    return snippetOf(fileLines(file) ?? [], line - 1, column - 1);
  }

  rel(file: string): string {
    const rel = path.relative(this.workdir, file);
    return rel.startsWith("..") ? file : rel;
  }
}

/** A value as answers show it: at most MAX_VALUE characters, and when cut, how long it was (an ellipsis alone hid it). */
export function clip(value: string, max = MAX_VALUE): string {
  if (value.length <= max) return value;
  // An adapter that cut a long value already (runbound's Node adapter) said its whole length as this says it.
  const stated = Number(/… \((\d+) characters\)$/.exec(value)?.[1] ?? 0);
  return `${value.slice(0, max)}… (${Math.max(stated, value.length)} characters)`;
}

/** Whether `clip` cut the value (its own mark, or the adapter's that it keeps). */
export function wasCut(value: string): boolean {
  return /… \(\d+ characters\)$/.test(value);
}

/**
 * The scopes a stop's locals come from: the first — and in JavaScript, where a stop inside a loop or a block has
 * that block's scope first (V8), each block scope down to the function's own Local.
 */
function localScopes<S extends { name: string }>(scopes: readonly S[]): readonly S[] {
  const local = scopes.findIndex((s) => s.name === "Local");
  return local > 0 && scopes.slice(0, local).every((s) => s.name === "Block")
    ? scopes.slice(0, local + 1)
    : scopes.slice(0, 1);
}
