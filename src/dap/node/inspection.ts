/**
 * What the Node adapter answers about a program it holds: breakpoints and exception filters on every thread, the
 * threads, frames, scopes, variables, evaluate and exception info — each from the thread's own connection and stop.
 * adapter.ts starts or joins the program and runs it; this half only looks (and sets what it is asked to).
 */
import { DebugSession, OutputEvent } from "@vscode/debugadapter";
import type { DebugProtocol } from "@vscode/debugprotocol";
import type { PausedState } from "./frames.js";
import { MAIN_THREAD, type Target, threadOf } from "./targets.js";
import { typeOf } from "./values.js";

export type ExceptionState = "none" | "uncaught" | "all";

export abstract class NodeInspection extends DebugSession {
  /** The main thread and each worker, by DAP thread id. */
  protected readonly targets = new Map<number, Target>();
  protected ended = false;
  protected exceptions: ExceptionState = "none";
  /** Every file's breakpoints as last asked, for a worker that starts later. */
  protected readonly requested = new Map<string, DebugProtocol.SourceBreakpoint[]>();

  /** What this adapter does, as DAP asks; exception filters as VS Code's JavaScript debugger offers them. */
  protected override initializeRequest(response: DebugProtocol.InitializeResponse): void {
    response.body = {
      supportsConfigurationDoneRequest: true,
      supportsConditionalBreakpoints: true,
      supportsHitConditionalBreakpoints: true,
      supportsLogPoints: true,
      supportsEvaluateForHovers: true,
      supportsSetVariable: true,
      supportsExceptionInfoRequest: true,
      supportsTerminateRequest: true,
      // As VS Code's own JavaScript debugger offers them, neither on by default.
      exceptionBreakpointFilters: [
        { filter: "all", label: "Caught Exceptions", default: false },
        { filter: "uncaught", label: "Uncaught Exceptions", default: false },
      ],
    };
    this.sendResponse(response);
  }
  protected override async setBreakPointsRequest(
    response: DebugProtocol.SetBreakpointsResponse,
    args: DebugProtocol.SetBreakpointsArguments,
  ): Promise<void> {
    await this.answer(response, async () => {
      if (!args.source.path) throw new Error("a breakpoint needs the source's path");
      const file = args.source.path;
      const wanted = args.breakpoints ?? (args.lines ?? []).map((line) => ({ line }));
      this.requested.set(file, wanted);
      const main = await this.live().breakpoints.set(file, wanted);
      // A file only a worker runs is bound there: said verified, under the main thread's id for it.
      for (const worker of this.workers()) {
        const bound = await worker.breakpoints.set(file, wanted).catch(() => []);
        bound.forEach((b, i) => {
          const own = main[i];
          if (own && !own.verified && b.verified) main[i] = { ...b, id: own.id };
        });
      }
      return { breakpoints: main };
    });
  }

  protected override async setExceptionBreakPointsRequest(
    response: DebugProtocol.SetExceptionBreakpointsResponse,
    args: DebugProtocol.SetExceptionBreakpointsArguments,
  ): Promise<void> {
    await this.answer(response, async () => {
      this.live();
      this.exceptions = args.filters.includes("all")
        ? "all"
        : args.filters.includes("uncaught")
          ? "uncaught"
          : "none";
      for (const target of this.targets.values())
        await target.cdp.Debugger.setPauseOnExceptions({ state: this.exceptions });
      return undefined;
    });
  }

  protected override threadsRequest(response: DebugProtocol.ThreadsResponse): void {
    response.body = {
      threads: [...this.targets.values()].map((t) => ({ id: t.thread, name: t.name })),
    };
    this.sendResponse(response);
  }

  protected override async stackTraceRequest(
    response: DebugProtocol.StackTraceResponse,
    args: DebugProtocol.StackTraceArguments,
  ): Promise<void> {
    await this.answer(response, async () =>
      this.stopped(args.threadId).stackTrace(args.startFrame ?? 0, args.levels ?? 0),
    );
  }

  protected override async scopesRequest(
    response: DebugProtocol.ScopesResponse,
    args: DebugProtocol.ScopesArguments,
  ): Promise<void> {
    await this.answer(response, async () => {
      const scopes = this.stopAt(args.frameId)?.scopes(args.frameId);
      if (!scopes) throw new Error(`unknown frame ${args.frameId}: stack lists the frames of this stop`);
      return { scopes };
    });
  }

  protected override async variablesRequest(
    response: DebugProtocol.VariablesResponse,
    args: DebugProtocol.VariablesArguments,
  ): Promise<void> {
    await this.answer(response, async () => {
      const reference = args.variablesReference;
      const variables = await this.stopAt(reference)?.variables(reference, args.start, args.count);
      if (!variables)
        throw new Error(`unknown variables reference ${reference}: references last until the program runs`);
      return { variables };
    });
  }

  protected override async setVariableRequest(
    response: DebugProtocol.SetVariableResponse,
    args: DebugProtocol.SetVariableArguments,
  ): Promise<void> {
    await this.answer(response, async () => {
      const state = this.stopAt(args.variablesReference);
      if (!state) throw new Error(`unknown variables reference ${args.variablesReference}`);
      const value = await state.set(args.variablesReference, args.name, args.value, 0);
      const shown = state.variable(args.name, value);
      return { value: shown.value, type: shown.type, variablesReference: shown.variablesReference };
    });
  }

  protected override async evaluateRequest(
    response: DebugProtocol.EvaluateResponse,
    args: DebugProtocol.EvaluateArguments,
  ): Promise<void> {
    await this.answer(response, async () => {
      const main = this.live();
      // Without a frame, in the main thread: its stop, else its global scope while it runs.
      const state =
        args.frameId !== undefined
          ? this.stopAt(args.frameId)
          : (main.paused ?? main.stop({ callFrames: [], reason: "other" }));
      const frame = args.frameId !== undefined ? state?.frame(args.frameId) : undefined;
      if (args.frameId !== undefined && (!state || !frame)) throw new Error(`unknown frame ${args.frameId}`);
      const value = await state!.evaluate(args.expression, frame);
      const shown = state!.variable(args.expression, value);
      return { result: shown.value, type: typeOf(value), variablesReference: shown.variablesReference };
    });
  }

  protected override async exceptionInfoRequest(
    response: DebugProtocol.ExceptionInfoResponse,
    args: DebugProtocol.ExceptionInfoArguments,
  ): Promise<void> {
    await this.answer(response, async () => this.stopped(args.threadId).exceptionInfo());
  }

  protected async answer<R extends DebugProtocol.Response>(
    response: R,
    work: () => Promise<R["body"]>,
  ): Promise<void> {
    try {
      const body = await work();
      if (body !== undefined) response.body = body;
      this.sendResponse(response);
    } catch (error) {
      this.sendErrorResponse(response, 2, (error as Error).message);
    }
  }

  /** The main thread, while the program runs. */
  protected live(): Target {
    const main = this.targets.get(MAIN_THREAD);
    if (!main || this.ended) throw new Error("the program is not running");
    return main;
  }

  protected target(threadId: number): Target {
    this.live();
    const target = this.targets.get(threadId);
    if (!target)
      throw new Error(
        `unknown thread ${threadId}: threads lists this program's (${[...this.targets.keys()].join(", ")}; the main thread is ${MAIN_THREAD})`,
      );
    return target;
  }

  /** The thread's stop. */
  protected stopped(threadId: number): PausedState {
    const target = this.target(threadId);
    if (!target.paused)
      throw new Error(
        threadId === MAIN_THREAD
          ? "the program is running; it must be stopped"
          : `thread ${threadId} is running; it must be stopped`,
      );
    return target.paused;
  }

  /** The stop a frame id or a variables reference was handed out in, if that thread is still stopped there. */
  protected stopAt(id: number): PausedState | undefined {
    this.live();
    return this.targets.get(threadOf(id))?.paused;
  }

  protected workers(): Target[] {
    return [...this.targets.values()].filter((t) => t.thread !== MAIN_THREAD);
  }

  protected say(text: string, category = "stderr"): void {
    this.sendEvent(new OutputEvent(text, category));
  }
}
