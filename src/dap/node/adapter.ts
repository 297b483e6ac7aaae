/**
 * runbound's debug adapter for Node programs (JavaScript, and TypeScript through tsx or compiled with source maps):
 * DAP on its stdio, the Chrome DevTools Protocol to the program's inspector. No adapter for Node is published on a
 * registry runbound reaches (VS Code's js-debug ships only in the editor), so this one speaks for V8 the way
 * debugpy, delve and lldb speak for theirs. It runs where the program runs: confined with it.
 */
import type { ChildProcess } from "node:child_process";
import {
  BreakpointEvent,
  DebugSession,
  ExitedEvent,
  InitializedEvent,
  OutputEvent,
  StoppedEvent,
  TerminatedEvent,
} from "@vscode/debugadapter";
import type { DebugProtocol } from "@vscode/debugprotocol";
import type CDP from "chrome-remote-interface";
import type { Protocol } from "devtools-protocol";
import { NodeBreakpoints } from "./breakpoints.js";
import { PausedState } from "./frames.js";
import { NodeInspection, THREAD } from "./inspection.js";
import { joinInspector, startInspected } from "./inspector.js";
import { valueText } from "./values.js";

/** What runbound's catalog sends to launch a program. */
export interface NodeLaunchArguments extends DebugProtocol.LaunchRequestArguments {
  readonly program: string;
  readonly args?: readonly string[];
  readonly cwd?: string;
  readonly env?: Record<string, string>;
  /** Node's own arguments before the program: `--import <tsx's loader>` for TypeScript. */
  readonly nodeArgs?: readonly string[];
  readonly stopOnEntry?: boolean;
  /** Why the program cannot be launched (TypeScript on a Node without type stripping and no tsx). */
  readonly refused?: string;
}

/** What runbound's catalog sends to join a program whose inspector is open (`node --inspect`, or SIGUSR1). */
export interface NodeAttachArguments extends DebugProtocol.AttachRequestArguments {
  readonly host: string;
  readonly port: number;
  /** runbound opened the inspector (SIGUSR1 to a pid): it is closed again on leaving, so nothing else joins it. */
  readonly closeInspector?: boolean;
}

const INSPECTOR_MS = 30_000;
/**
 * Node's own modules, skipped as VS Code's JavaScript debugger skips `<node_internals>` by default (and debugpy
 * attaches with justMyCode). V8 skips only those compiled after the inspector joined: the loader and the rest of what
 * Node compiled at startup have no context V8 can match, so a step that lands there is stepped out of (#onPaused).
 */
const NODE_INTERNALS = ["^node:", "^internal[\\\\/]"];
const INTERNAL_URL = /^(node:|internal[\\/])/;
/** How many frames of Node's own a step leaves before it stops there anyway (a stack of internals only). */
const MAX_SKIPPED = 64;

class NodeDebugSession extends NodeInspection {
  #child: ChildProcess | undefined;
  /** Why the next stop comes, when runbound asked for it (a step, a pause). */
  #expecting: "step" | "pause" | undefined;
  #entryPaused = false;
  /** The pause on the program's first statement (`--inspect-brk`), until it is left. */
  #entry: Protocol.Debugger.PausedEvent | undefined;
  #atEntry: (() => void) | undefined;
  #configured = false;
  #stopOnEntry = false;
  #mainContext: number | undefined;
  /** Steps out of Node's own frames taken for the current step. */
  #skipped = 0;
  /** Joined with attach: the program is not runbound's to end, and it leaves when runbound leaves. */
  #attached: NodeAttachArguments | undefined;

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

  protected override async launchRequest(
    response: DebugProtocol.LaunchResponse,
    args: NodeLaunchArguments,
  ): Promise<void> {
    try {
      if (args.refused) throw new Error(args.refused);
      this.#stopOnEntry = args.stopOnEntry === true;
      const { child, cdp } = await startInspected({
        node: process.execPath,
        nodeArgs: args.nodeArgs ?? [],
        program: args.program,
        args: args.args ?? [],
        cwd: args.cwd ?? process.cwd(),
        env: args.env ?? {},
        timeoutMs: INSPECTOR_MS,
        output: (category, text) => this.sendEvent(new OutputEvent(text, category)),
      });
      this.#child = child;
      this.cdp = cdp;
      child.once("exit", (code, signal) => this.#exited(code ?? (signal ? 128 : 0)));
      cdp.on("disconnect", () => child.kill("SIGKILL"));
      const entry = new Promise<void>((resolve) => {
        this.#atEntry = resolve;
      });
      await this.#listen(cdp);
      // Paused before its first line, the main script is parsed: a breakpoint in the file it was compiled from
      // (its map is read by now) is bound as it is set. V8 pauses there once, not again for the map.
      await entry;
      this.sendResponse(response);
      this.sendEvent(new InitializedEvent());
    } catch (error) {
      this.sendErrorResponse(response, 1, (error as Error).message);
    }
  }

  protected override async attachRequest(
    response: DebugProtocol.AttachResponse,
    args: NodeAttachArguments,
  ): Promise<void> {
    try {
      const cdp = await joinInspector(args.host, args.port, INSPECTOR_MS);
      this.#attached = args;
      this.cdp = cdp;
      // runbound does not hold the program's stdout: what it logs comes through the inspector.
      cdp.on("Runtime.consoleAPICalled", (event: Protocol.Runtime.ConsoleAPICalledEvent) => {
        const text = event.args.map((a) => (a.type === "string" ? String(a.value) : valueText(a))).join(" ");
        this.say(`${text}\n`, event.type === "error" || event.type === "warning" ? "stderr" : "stdout");
      });
      cdp.on("disconnect", () => {
        if (!this.ended) this.#left();
      });
      await this.#listen(cdp);
      this.sendResponse(response);
      this.sendEvent(new InitializedEvent());
    } catch (error) {
      this.sendErrorResponse(response, 1, (error as Error).message);
    }
  }

  async #listen(cdp: CDP.Client): Promise<void> {
    this.breakpoints = new NodeBreakpoints(cdp, this.scripts, (b) =>
      this.sendEvent(new BreakpointEvent("changed", b as DebugProtocol.Breakpoint)),
    );
    cdp.on("Debugger.scriptParsed", (event: Protocol.Debugger.ScriptParsedEvent) => this.scripts.add(event));
    cdp.on("Debugger.breakpointResolved", (event: Protocol.Debugger.BreakpointResolvedEvent) =>
      this.breakpoints?.resolved(event),
    );
    cdp.on("Debugger.paused", (event: Protocol.Debugger.PausedEvent) => {
      this.#onPaused(event).catch((error: Error) => this.say(`runbound's Node adapter: ${error.message}\n`));
    });
    cdp.on("Runtime.executionContextCreated", (event: Protocol.Runtime.ExecutionContextCreatedEvent) => {
      if ((event.context.auxData as { isDefault?: boolean } | undefined)?.isDefault)
        this.#mainContext ??= event.context.id;
    });
    // The program is done: Node waits for its debugger to leave before it exits; leave.
    cdp.on("Runtime.executionContextDestroyed", (event: Protocol.Runtime.ExecutionContextDestroyedEvent) => {
      if (event.executionContextId !== this.#mainContext) return;
      cdp.close().catch(() => undefined);
      // A program runbound started says its exit code as its process ends; an attached one ends here (closing the
      // connection from this side is not reported as its loss).
      if (this.#attached && !this.ended) this.#left();
    });
    await cdp.Runtime.enable();
    await cdp.Debugger.enable({});
    await cdp.Debugger.setBlackboxPatterns({ patterns: NODE_INTERNALS });
    await cdp.Debugger.setInstrumentationBreakpoint({
      instrumentation: "beforeScriptWithSourceMapExecution",
    });
    await cdp.Runtime.runIfWaitingForDebugger();
  }

  async #onPaused(event: Protocol.Debugger.PausedEvent): Promise<void> {
    const cdp = this.cdp!;
    if (event.reason === "instrumentation") {
      const script = this.scripts.get((event.data as { scriptId: string }).scriptId);
      if (script) await this.breakpoints!.scriptLoaded(script);
      await cdp.Debugger.resume({});
      return;
    }
    if ((event.reason as string) === "Break on start" && !this.#entryPaused) {
      this.#entryPaused = true;
      this.#entry = event;
      this.#atEntry?.();
      if (this.#configured) await this.#leaveEntry();
      return;
    }
    const hits = this.breakpoints!.hit(event.hitBreakpoints ?? []);
    if (this.#expecting === "step" && !hits.length && event.reason === "other" && this.#inInternals(event)) {
      if (this.#skipped++ < MAX_SKIPPED) {
        await cdp.Debugger.stepOut();
        return;
      }
    }
    this.#skipped = 0;
    const state = new PausedState(event, cdp, this.scripts);
    if (hits.length && !this.#expecting && event.reason === "other") {
      let stop = false;
      for (const w of hits) {
        w.hits++;
        if (w.hitCondition && !w.hitCondition(w.hits)) continue;
        if (w.logMessage !== undefined) this.say(`${await state.logLine(w.logMessage)}\n`, "console");
        else stop = true;
      }
      if (!stop) {
        await cdp.Debugger.resume({});
        return;
      }
    }
    this.paused = state;
    const expecting = this.#expecting;
    this.#expecting = undefined;
    const exception = event.reason === "exception" || event.reason === "promiseRejection";
    const reason = exception ? "exception" : hits.length ? "breakpoint" : (expecting ?? "debugger statement");
    const stopped = new StoppedEvent(reason, THREAD) as DebugProtocol.StoppedEvent;
    stopped.body.allThreadsStopped = true;
    if (exception) stopped.body.text = valueText(event.data as Protocol.Runtime.RemoteObject);
    this.sendEvent(stopped);
  }

  #inInternals(event: Protocol.Debugger.PausedEvent): boolean {
    const top = event.callFrames[0];
    const url = top ? this.scripts.get(top.location.scriptId)?.url : undefined;
    return url !== undefined && INTERNAL_URL.test(url);
  }

  async #leaveEntry(): Promise<void> {
    if (this.#stopOnEntry) {
      this.paused = undefined;
      this.sendEvent(new StoppedEvent("entry", THREAD));
      return;
    }
    // A breakpoint on the first statement: resuming from there would pass it, so it is a hit.
    const top = this.#entry?.callFrames[0];
    const here = top ? await this.breakpoints!.atPause(top) : [];
    if (here.length && this.#entry) {
      await this.#onPaused({ ...this.#entry, reason: "other", hitBreakpoints: here.flatMap((w) => w.v8Ids) });
      return;
    }
    await this.cdp!.Debugger.resume({});
  }

  protected override async configurationDoneRequest(response: DebugProtocol.ConfigurationDoneResponse) {
    this.#configured = true;
    this.sendResponse(response);
    if (this.#entryPaused) await this.#leaveEntry().catch(() => undefined);
  }

  protected override async continueRequest(
    response: DebugProtocol.ContinueResponse,
    args: DebugProtocol.ContinueArguments,
  ) {
    response.body = { allThreadsContinued: true };
    await this.#run(response, args.threadId, undefined, (cdp) => cdp.Debugger.resume({}));
  }

  protected override async nextRequest(
    response: DebugProtocol.NextResponse,
    args: DebugProtocol.NextArguments,
  ) {
    await this.#run(response, args.threadId, "step", (cdp) => cdp.Debugger.stepOver({}));
  }

  protected override async stepInRequest(
    response: DebugProtocol.StepInResponse,
    args: DebugProtocol.StepInArguments,
  ) {
    await this.#run(response, args.threadId, "step", (cdp) => cdp.Debugger.stepInto({}));
  }

  protected override async stepOutRequest(
    response: DebugProtocol.StepOutResponse,
    args: DebugProtocol.StepOutArguments,
  ) {
    await this.#run(response, args.threadId, "step", (cdp) => cdp.Debugger.stepOut());
  }

  protected override async pauseRequest(
    response: DebugProtocol.PauseResponse,
    args: DebugProtocol.PauseArguments,
  ) {
    await this.answer(response, async () => {
      this.thread(args.threadId);
      this.#expecting = "pause";
      await this.live().cdp.Debugger.pause();
      return undefined;
    });
  }

  protected override async terminateRequest(response: DebugProtocol.TerminateResponse): Promise<void> {
    this.#child?.kill("SIGTERM");
    this.sendResponse(response);
  }

  protected override async disconnectRequest(response: DebugProtocol.DisconnectResponse): Promise<void> {
    this.#child?.kill("SIGKILL");
    const cdp = this.cdp;
    if (this.#attached && cdp && !this.ended) {
      this.ended = true;
      // Left running, as it was found; an inspector runbound opened is closed once this session is gone.
      if (this.paused) await cdp.Debugger.resume({}).catch(() => undefined);
      if (this.#attached.closeInspector)
        await cdp.Runtime.evaluate({
          expression: "setImmediate(() => process._debugEnd())",
          contextId: this.#mainContext,
        }).catch(() => undefined);
    }
    await cdp?.close().catch(() => undefined);
    this.sendResponse(response);
  }

  /** A step or continue: the stop it leads to comes as an event; until then the program runs. */
  async #run(
    response: DebugProtocol.Response,
    threadId: number,
    expecting: "step" | undefined,
    go: (cdp: CDP.Client) => Promise<unknown>,
  ): Promise<void> {
    await this.answer(response, async () => {
      this.thread(threadId);
      this.stopped();
      this.paused = undefined;
      this.#expecting = expecting;
      await go(this.live().cdp);
      return undefined;
    });
  }

  /** The attached program ended (or closed its inspector): its exit code is not runbound's to know. */
  #left(): void {
    this.ended = true;
    this.paused = undefined;
    this.sendEvent(new TerminatedEvent());
  }

  #exited(code: number): void {
    if (this.ended) return;
    this.ended = true;
    this.paused = undefined;
    this.sendEvent(new ExitedEvent(code));
    this.sendEvent(new TerminatedEvent());
  }
}

DebugSession.run(NodeDebugSession);
