/**
 * What the Node adapter answers about a program it holds: breakpoints and exception filters, the one thread, frames,
 * scopes, variables, evaluate and exception info — from the inspector connection and the stop the session keeps.
 * adapter.ts starts or joins the program and runs it; this half only looks (and sets what it is asked to).
 */
import { DebugSession, OutputEvent } from "@vscode/debugadapter";
import type { DebugProtocol } from "@vscode/debugprotocol";
import type CDP from "chrome-remote-interface";
import type { NodeBreakpoints } from "./breakpoints.js";
import { PausedState } from "./frames.js";
import { Scripts } from "./scripts.js";
import { typeOf } from "./values.js";

export const THREAD = 1;

export abstract class NodeInspection extends DebugSession {
  protected readonly scripts = new Scripts();
  protected cdp: CDP.Client | undefined;
  protected breakpoints: NodeBreakpoints | undefined;
  protected paused: PausedState | undefined;
  protected ended = false;

  protected override async setBreakPointsRequest(
    response: DebugProtocol.SetBreakpointsResponse,
    args: DebugProtocol.SetBreakpointsArguments,
  ): Promise<void> {
    await this.answer(response, async () => {
      if (!args.source.path) throw new Error("a breakpoint needs the source's path");
      const wanted = args.breakpoints ?? (args.lines ?? []).map((line) => ({ line }));
      return { breakpoints: await this.live().breakpoints.set(args.source.path, wanted) };
    });
  }

  protected override async setExceptionBreakPointsRequest(
    response: DebugProtocol.SetExceptionBreakpointsResponse,
    args: DebugProtocol.SetExceptionBreakpointsArguments,
  ): Promise<void> {
    await this.answer(response, async () => {
      const state = args.filters.includes("all")
        ? "all"
        : args.filters.includes("uncaught")
          ? "uncaught"
          : "none";
      await this.live().cdp.Debugger.setPauseOnExceptions({ state });
      return undefined;
    });
  }

  protected override threadsRequest(response: DebugProtocol.ThreadsResponse): void {
    response.body = { threads: [{ id: THREAD, name: "main" }] };
    this.sendResponse(response);
  }

  protected override async stackTraceRequest(
    response: DebugProtocol.StackTraceResponse,
    args: DebugProtocol.StackTraceArguments,
  ): Promise<void> {
    await this.answer(response, async () => {
      this.thread(args.threadId);
      return this.stopped().stackTrace(args.startFrame ?? 0, args.levels ?? 0);
    });
  }

  protected override async scopesRequest(
    response: DebugProtocol.ScopesResponse,
    args: DebugProtocol.ScopesArguments,
  ): Promise<void> {
    await this.answer(response, async () => {
      const scopes = this.stopped().scopes(args.frameId);
      if (!scopes) throw new Error(`unknown frame ${args.frameId}: stack lists the frames of this stop`);
      return { scopes };
    });
  }

  protected override async variablesRequest(
    response: DebugProtocol.VariablesResponse,
    args: DebugProtocol.VariablesArguments,
  ): Promise<void> {
    await this.answer(response, async () => {
      const variables = await this.stopped().variables(args.variablesReference, args.start, args.count);
      if (!variables)
        throw new Error(
          `unknown variables reference ${args.variablesReference}: references last until the program runs`,
        );
      return { variables };
    });
  }

  protected override async setVariableRequest(
    response: DebugProtocol.SetVariableResponse,
    args: DebugProtocol.SetVariableArguments,
  ): Promise<void> {
    await this.answer(response, async () => {
      const state = this.stopped();
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
      const live = this.live();
      const state =
        this.paused ?? new PausedState({ callFrames: [], reason: "other" }, live.cdp, this.scripts);
      const frame = args.frameId !== undefined ? state.frame(args.frameId) : undefined;
      if (args.frameId !== undefined && !frame) throw new Error(`unknown frame ${args.frameId}`);
      const value = await state.evaluate(args.expression, frame);
      const shown = state.variable(args.expression, value);
      return { result: shown.value, type: typeOf(value), variablesReference: shown.variablesReference };
    });
  }

  protected override async exceptionInfoRequest(
    response: DebugProtocol.ExceptionInfoResponse,
    args: DebugProtocol.ExceptionInfoArguments,
  ): Promise<void> {
    await this.answer(response, async () => {
      this.thread(args.threadId);
      return this.stopped().exceptionInfo();
    });
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

  protected live(): { cdp: CDP.Client; breakpoints: NodeBreakpoints } {
    if (!this.cdp || !this.breakpoints || this.ended) throw new Error("the program is not running");
    return { cdp: this.cdp, breakpoints: this.breakpoints };
  }

  protected stopped(): PausedState {
    this.live();
    if (!this.paused) throw new Error("the program is running; it must be stopped");
    return this.paused;
  }

  protected thread(id: number): void {
    if (id !== THREAD)
      throw new Error(`unknown thread ${id}: a Node program's only thread here is ${THREAD}`);
  }

  protected say(text: string, category = "stderr"): void {
    this.sendEvent(new OutputEvent(text, category));
  }
}
