/**
 * runbound's debug adapter for Node programs (JavaScript, and TypeScript through tsx or compiled with source maps):
 * DAP on its stdio, the Chrome DevTools Protocol to the program's inspector. No adapter for Node is published on a
 * registry runbound reaches (VS Code's js-debug ships only in the editor), so this one speaks for V8 the way
 * debugpy, delve and lldb speak for theirs. It runs where the program runs: confined with it. The program's worker
 * threads are threads of the session (workers.ts).
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
  ThreadEvent,
} from "@vscode/debugadapter";
import type { DebugProtocol } from "@vscode/debugprotocol";
import type CDP from "chrome-remote-interface";
import type { Protocol } from "devtools-protocol";
import type { NodeAttachArguments, NodeLaunchArguments } from "./arguments.js";
import { NodeBreakpoints } from "./breakpoints.js";
import { type Children, followChildren } from "./children.js";
import { NodeInspection } from "./inspection.js";
import { joinInspector, startInspected } from "./inspector.js";
import { MAIN_THREAD, NODE_INTERNALS, Target } from "./targets.js";
import { valueText } from "./values.js";
import { followWorkers } from "./workers.js";

const INSPECTOR_MS = 30_000;
/** How many frames of Node's own a step leaves before it stops there anyway (a stack of internals only). */
const MAX_SKIPPED = 64;

class NodeDebugSession extends NodeInspection {
  #child: ChildProcess | undefined;
  #entryPaused = false;
  /** The pause on the program's first statement (`--inspect-brk`), until it is left. */
  #entry: Protocol.Debugger.PausedEvent | undefined;
  #atEntry: (() => void) | undefined;
  #configured = false;
  #stopOnEntry = false;
  #mainContext: number | undefined;
  /** Joined with attach: the program is not runbound's to end, and it leaves when runbound leaves. */
  #attached: NodeAttachArguments | undefined;
  /** Where a launched program's Node child processes report (children.ts). */
  #children: Children | undefined;
  #nextThread = MAIN_THREAD + 1;

  protected override async launchRequest(
    response: DebugProtocol.LaunchResponse,
    args: NodeLaunchArguments,
  ): Promise<void> {
    try {
      if (args.refused) throw new Error(args.refused);
      this.#stopOnEntry = args.stopOnEntry === true;
      this.#children = followChildren(this.#threads());
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
      child.once("exit", (code, signal) => this.#exited(code ?? (signal ? 128 : 0)));
      cdp.on("disconnect", () => child.kill("SIGKILL"));
      const entry = new Promise<void>((resolve) => {
        this.#atEntry = resolve;
      });
      await this.#listenMain(cdp);
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
      cdp.on("disconnect", () => {
        if (!this.ended) this.#left();
      });
      await this.#listenMain(cdp);
      this.sendResponse(response);
      this.sendEvent(new InitializedEvent());
    } catch (error) {
      this.sendErrorResponse(response, 1, (error as Error).message);
    }
  }

  async #listenMain(cdp: CDP.Client): Promise<void> {
    const main = new Target(MAIN_THREAD, "main", cdp);
    this.targets.set(MAIN_THREAD, main);
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
    await followWorkers(cdp, this.#threads());
    await this.#listen(main);
  }

  /** A thread's events, and its inspector set up as every thread's is; then it may run. */
  async #listen(target: Target): Promise<void> {
    const { cdp } = target;
    target.breakpoints = new NodeBreakpoints(cdp, target.scripts, (answer, wanted) => {
      // A worker's binding is said under the main thread's id for that breakpoint.
      const id =
        target.thread === MAIN_THREAD ? answer.id : this.live().breakpoints.idFor(wanted.file, wanted.line);
      if (id !== undefined)
        this.sendEvent(new BreakpointEvent("changed", { ...answer, id } as DebugProtocol.Breakpoint));
    });
    cdp.on("Debugger.scriptParsed", (event: Protocol.Debugger.ScriptParsedEvent) =>
      target.scripts.add(event),
    );
    cdp.on("Debugger.breakpointResolved", (event: Protocol.Debugger.BreakpointResolvedEvent) =>
      target.breakpoints.resolved(event),
    );
    cdp.on("Debugger.paused", (event: Protocol.Debugger.PausedEvent) => {
      this.#onPaused(target, event).catch((error: Error) =>
        this.say(`runbound's Node adapter: ${error.message}\n`),
      );
    });
    // runbound does not hold an attached program's stdout, nor a worker's console there: it comes this way.
    if (this.#attached)
      cdp.on("Runtime.consoleAPICalled", (event: Protocol.Runtime.ConsoleAPICalledEvent) => {
        const text = event.args.map((a) => (a.type === "string" ? String(a.value) : valueText(a))).join(" ");
        this.say(`${text}\n`, event.type === "error" || event.type === "warning" ? "stderr" : "stdout");
      });
    if (target.thread !== MAIN_THREAD) this.#endsWithItsContext(target);
    await cdp.Runtime.enable();
    await cdp.Debugger.enable({});
    await cdp.Debugger.setBlackboxPatterns({ patterns: NODE_INTERNALS });
    await cdp.Debugger.setInstrumentationBreakpoint({
      instrumentation: "beforeScriptWithSourceMapExecution",
    });
    if (this.exceptions !== "none") await cdp.Debugger.setPauseOnExceptions({ state: this.exceptions });
    for (const [file, wanted] of this.requested) await target.breakpoints.set(file, wanted);
    await cdp.Runtime.runIfWaitingForDebugger();
  }

  /** A child process waits at its exit for its debugger to leave: its thread ends with its main context. */
  #endsWithItsContext(target: Target): void {
    let context: number | undefined;
    target.cdp.on(
      "Runtime.executionContextCreated",
      (event: Protocol.Runtime.ExecutionContextCreatedEvent) => {
        if ((event.context.auxData as { isDefault?: boolean } | undefined)?.isDefault)
          context ??= event.context.id;
      },
    );
    target.cdp.on(
      "Runtime.executionContextDestroyed",
      (event: Protocol.Runtime.ExecutionContextDestroyedEvent) => {
        if (event.executionContextId !== context) return;
        target.cdp.close().catch(() => undefined);
        this.#workerEnded(target);
      },
    );
  }

  /** How a worker or a child process becomes a thread of the session, and stops being one. */
  #threads() {
    return {
      started: (target: Target) => this.#workerStarted(target),
      ended: (target: Target) => this.#workerEnded(target),
      nextThread: () => this.#nextThread++,
    };
  }

  async #workerStarted(target: Target): Promise<void> {
    this.targets.set(target.thread, target);
    await this.#listen(target);
    this.sendEvent(new ThreadEvent("started", target.thread));
  }

  #workerEnded(target: Target): void {
    if (target.ended || !this.targets.has(target.thread)) return;
    target.ended = true;
    target.paused = undefined;
    this.targets.delete(target.thread);
    this.sendEvent(new ThreadEvent("exited", target.thread));
  }

  async #onPaused(target: Target, event: Protocol.Debugger.PausedEvent): Promise<void> {
    const { cdp } = target;
    if (event.reason === "instrumentation") {
      const script = target.scripts.get((event.data as { scriptId: string }).scriptId);
      if (script) await target.breakpoints.scriptLoaded(script);
      await cdp.Debugger.resume({});
      return;
    }
    if ((event.reason as string) === "Break on start") {
      if (target.thread !== MAIN_THREAD) {
        // A worker waits at its first line for its debugger: it goes on, unless a breakpoint sits there.
        await this.#passEntry(target, event);
        return;
      }
      if (!this.#entryPaused) {
        this.#entryPaused = true;
        this.#entry = event;
        // Set now, not at the spawn: a preload in NODE_OPTIONS would change how the program itself starts.
        if (this.#children)
          await cdp.Runtime.evaluate({ expression: this.#children.arming }).catch(() => undefined);
        this.#atEntry?.();
        if (this.#configured) await this.#leaveEntry();
        return;
      }
    }
    const hits = target.breakpoints.hit(event.hitBreakpoints ?? []);
    if (
      target.expecting === "step" &&
      !hits.length &&
      event.reason === "other" &&
      target.inNodeInternals(event)
    ) {
      if (target.skipped++ < MAX_SKIPPED) {
        await cdp.Debugger.stepOut();
        return;
      }
    }
    target.skipped = 0;
    const state = target.stop(event);
    if (hits.length && !target.expecting && event.reason === "other") {
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
    target.paused = state;
    const expecting = target.expecting;
    target.expecting = undefined;
    const exception = event.reason === "exception" || event.reason === "promiseRejection";
    const reason = exception ? "exception" : hits.length ? "breakpoint" : (expecting ?? "debugger statement");
    const stopped = new StoppedEvent(reason, target.thread) as DebugProtocol.StoppedEvent;
    // Node stops one thread at a time: a worker runs on while the main thread is stopped, and the other way round.
    stopped.body.allThreadsStopped = this.targets.size === 1;
    if (exception) stopped.body.text = valueText(event.data as Protocol.Runtime.RemoteObject);
    this.sendEvent(stopped);
  }

  async #leaveEntry(): Promise<void> {
    const main = this.live();
    if (this.#stopOnEntry) {
      main.paused = undefined;
      this.sendEvent(new StoppedEvent("entry", MAIN_THREAD));
      return;
    }
    if (this.#entry) await this.#passEntry(main, this.#entry);
  }

  /** A breakpoint on the first statement: resuming from there would pass it, so it is a hit. */
  async #passEntry(target: Target, entry: Protocol.Debugger.PausedEvent): Promise<void> {
    const top = entry.callFrames[0];
    const here = top ? await target.breakpoints.atPause(top) : [];
    if (here.length) {
      const hitBreakpoints = here.flatMap((w) => w.v8Ids);
      await this.#onPaused(target, { ...entry, reason: "other", hitBreakpoints });
      return;
    }
    await target.cdp.Debugger.resume({});
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
    response.body = { allThreadsContinued: this.targets.size === 1 };
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
      const target = this.target(args.threadId);
      target.expecting = "pause";
      await target.cdp.Debugger.pause();
      return undefined;
    });
  }

  protected override async terminateRequest(response: DebugProtocol.TerminateResponse): Promise<void> {
    this.#child?.kill("SIGTERM");
    this.sendResponse(response);
  }

  protected override async disconnectRequest(response: DebugProtocol.DisconnectResponse): Promise<void> {
    this.#child?.kill("SIGKILL");
    const main = this.targets.get(MAIN_THREAD);
    if (this.#attached && main && !this.ended) {
      this.ended = true;
      // Left running, as it was found; an inspector runbound opened is closed once this session is gone.
      for (const target of this.targets.values())
        if (target.paused) await target.cdp.Debugger.resume({}).catch(() => undefined);
      if (this.#attached.closeInspector)
        await main.cdp.Runtime.evaluate({
          expression: "setImmediate(() => process._debugEnd())",
          contextId: this.#mainContext,
        }).catch(() => undefined);
    }
    await main?.cdp.close().catch(() => undefined);
    this.sendResponse(response);
  }

  /** A step or continue of one thread: the stop it leads to comes as an event; until then the thread runs. */
  async #run(
    response: DebugProtocol.Response,
    threadId: number,
    expecting: "step" | undefined,
    go: (cdp: CDP.Client) => Promise<unknown>,
  ): Promise<void> {
    await this.answer(response, async () => {
      this.stopped(threadId);
      const target = this.target(threadId);
      target.paused = undefined;
      target.expecting = expecting;
      await go(target.cdp);
      return undefined;
    });
  }

  /** The attached program ended (or closed its inspector): its exit code is not runbound's to know. */
  #left(): void {
    this.#end();
    this.sendEvent(new TerminatedEvent());
  }

  #exited(code: number): void {
    if (this.ended) return;
    this.#end();
    this.sendEvent(new ExitedEvent(code));
    this.sendEvent(new TerminatedEvent());
  }

  #end(): void {
    this.#children?.close();
    this.ended = true;
    for (const target of this.targets.values()) target.paused = undefined;
  }
}

DebugSession.run(NodeDebugSession);
