/**
 * One debug session: an adapter process (or its TCP port), the debuggee under it, and what it last said. A stop is
 * answered in one call — reason, location with its source line, the top frames and the top frame's locals — and a
 * program that does not stop within the deadline is reported as running, honestly.
 */
import path from "node:path";
import type { DebugProtocol } from "@vscode/debugprotocol";
import { ToolError } from "../errors.js";
import type { ProcessTracker, TrackedProcess } from "../proc/tracker.js";
import { type AdapterSpec, type AttachTarget, attachRequest, type ResolvedAdapter } from "./adapters.js";
import { type BreakpointBook, BreakpointChannel, Logpoints } from "./breakpoints.js";
import { type DapClient, DapTimeout, failureOf } from "./client.js";
import { connectAdapter, initialize, OutputRing, programText } from "./connection.js";
import { InterpreterWatch } from "./interpreter-watch.js";
import type { Frame, SessionState, StopReport, Variable } from "./schema.js";
import { type Stop, StopInspector } from "./stop-report.js";

export interface SessionTimeouts {
  /** Any single request. */
  readonly requestMs: number;
  /** Launch until the adapter says the program started (delve compiles first). */
  readonly launchMs: number;
  /** continue / step — and a started program — to the next stop before answering "running". */
  readonly stopMs: number;
}

export type { AttachTarget } from "./adapters.js";
export type { Frame, SessionState, StopReport, Variable } from "./schema.js";

const OUTPUT_LIMIT = 64 * 1024;
/** Why a first-stop waiter is withdrawn (made once: an abort's default DOMException costs a stack). */
const WITHDRAWN = new Error("the launch was answered");
const REFUSED = new Error("the adapter refused the request");

export class DebugSession {
  readonly spec: AdapterSpec;
  readonly adapter: ResolvedAdapter;
  readonly program: string;
  readonly startedAt = Date.now();
  #state: SessionState = "running";
  #stopped: Stop | undefined;
  #exitCode: number | undefined;
  /** Set when the adapter exited under a program that had not: what happened, for every answer after. */
  #adapterDied: string | undefined;
  #client!: DapClient;
  #inspector!: StopInspector;
  /** The adapter process runbound started; undefined when attached to a program's own debug server. */
  #process: TrackedProcess | undefined;
  /** A program's own DAP server (debugpy --listen, dlv --headless): spoken to directly. */
  #remote: { host: string; port: number } | undefined;
  /** Set by attach: runbound did not start the program, so terminate detaches and leaves it running. */
  #attached: AttachTarget | undefined;
  #capabilities: DebugProtocol.Capabilities = {};
  #breakpoints!: BreakpointChannel;
  /** The logpoints set, to tell their output from the program's; what they printed since the last answer. */
  readonly #logpoints = new Logpoints();
  /** The breakpoints sent at the start, as the adapter answered them; a later "breakpoint" event updates them. */
  #sent = new Map<string, DebugProtocol.Breakpoint[]>();
  readonly #output = new OutputRing(OUTPUT_LIMIT);
  readonly #workdir: string;
  readonly #timeouts: SessionTimeouts;
  readonly #libraries: () => readonly string[];
  readonly #processes: ProcessTracker;

  constructor(
    spec: AdapterSpec,
    adapter: ResolvedAdapter,
    program: string,
    workdir: string,
    processes: ProcessTracker,
    timeouts: SessionTimeouts,
    /** The library roots a stop may quote besides the workdir (files/library-roots.ts). */
    libraries: () => readonly string[] = () => [],
  ) {
    this.spec = spec;
    this.adapter = adapter;
    this.program = program;
    this.#workdir = workdir;
    this.#processes = processes;
    this.#timeouts = timeouts;
    this.#libraries = libraries;
  }

  get pid(): number | undefined {
    return this.#process?.pid;
  }

  get state(): SessionState {
    return this.#state;
  }

  /** Expressions evaluated at every stop, shown in its answer. */
  watch: readonly string[] = [];

  /** What the adapter said it supports (initialize's answer). */
  get capabilities(): DebugProtocol.Capabilities {
    return this.#capabilities;
  }

  /** Joined with attach: runbound did not start the program, and terminate leaves it running. */
  get attached(): boolean {
    return this.#attached !== undefined;
  }

  /** Starts the adapter and the program, with `breakpoints` set before it runs; resolves at the first stop or exit. */
  launch(args: readonly string[], cwd: string, breakpoints: BreakpointBook) {
    const request = this.spec.launchArguments(this.program, args, cwd, this.adapter);
    if (this.adapter.interpreter) {
      this.#watch = new InterpreterWatch(this.#processes.confinedPlace, this.adapter.interpreter);
      request.debugLauncherPython = this.#watch.launcher;
    }
    return this.#start("launch", request, cwd, breakpoints);
  }

  /** Joins a program already running under a debug server (adapters.ts's attachRequest says how, per kind). */
  attach(target: AttachTarget, cwd: string, breakpoints: BreakpointBook) {
    this.#attached = target;
    const { remote, args } = attachRequest(target);
    this.#remote = remote;
    return this.#start("attach", args, cwd, breakpoints);
  }

  /** The program's interpreter's files, when it is not the adapter's (interpreter-watch.ts says why). */
  #watch: InterpreterWatch | undefined;

  async #start(
    request: "launch" | "attach",
    requestArgs: Record<string, unknown>,
    cwd: string,
    breakpoints: BreakpointBook,
  ): Promise<{ report: StopReport; verified: Map<string, DebugProtocol.Breakpoint[]>; notes: string[] }> {
    await this.#connect(cwd);
    const client = this.#client;
    const t = this.#timeouts;
    this.#capabilities = await initialize(client, this.adapter.id, t.requestMs);
    this.#inspector = new StopInspector(
      client,
      this.spec.name,
      this.#capabilities,
      this.#workdir,
      t.requestMs,
      this.#libraries,
    );
    // The order that works for debugpy, delve and lldb: launch (not awaited), initialized, breakpoints,
    // configurationDone, then the launch response. The first stop can come at once: wait for it from the start.
    const initialized = client.waitFor("initialized", t.launchMs);
    const withdraw = new AbortController();
    const firstStop = this.#nextStop(t.launchMs, withdraw.signal);
    const launched = client.send(request, requestArgs, t.launchMs);
    const watching = new AbortController();
    const interpreter = this.adapter.interpreter;
    const died = this.#watch && interpreter ? this.#watch.failed(interpreter, watching.signal) : undefined;
    died?.catch(() => undefined);
    await Promise.race([
      initialized,
      launched.then((r) => (r.success ? initialized : Promise.reject(new Error(failureOf(r))))),
      ...(died ? [died] : []),
    ]).finally(() => watching.abort());
    this.#breakpoints = new BreakpointChannel(
      client,
      this.#capabilities,
      this.spec.name,
      t.requestMs,
      this.#logpoints,
    );
    const { verified, notes } = await this.#breakpoints.sendBook(breakpoints);
    this.#sent = verified;
    if (this.#capabilities.supportsConfigurationDoneRequest !== false)
      await client.request("configurationDone", {}, t.requestMs);
    const response = await launched;
    if (!response.success) {
      withdraw.abort(WITHDRAWN);
      throw new ToolError(
        `The ${this.spec.name} adapter could not ${request} ${request === "launch" ? this.#rel(this.program) : "to the program"}: ${failureOf(response)}.`,
      );
    }
    // Started: from here it may stop as late as a continue may (a server without breakpoints never does), so the
    // answer comes within stopMs as "running" — before, launch waited the whole launchMs, as long as the MCP client's
    // own 60 s request timeout, and the harness gave up first.
    let timer: NodeJS.Timeout | undefined;
    const running = new Promise<"running">((resolve) => {
      timer = setTimeout(() => resolve("running"), t.stopMs);
    });
    const outcome = Promise.race([firstStop, running]).finally(() => {
      clearTimeout(timer);
      withdraw.abort(WITHDRAWN);
    });
    return { report: await this.#settle(outcome), verified, notes };
  }

  /** Where breakpoints of every kind are sent, checked against the adapter's capabilities (once started). */
  get breakpoints(): BreakpointChannel {
    return this.#breakpoints;
  }

  /** continue / next / stepIn / stepOut: one answer with where it stopped (or that it runs, or exited). */
  async resume(command: "continue" | "next" | "stepIn" | "stepOut", threadId?: number): Promise<StopReport> {
    this.#requireStopped(command);
    const thread = threadId ?? this.#stopped!.threadId;
    // The request is written at once and the waiter registered right after, in the same turn: the adapter's answer
    // and its events are read only once this yields, so the stop cannot be missed, and the adapter starts sooner
    // (the waiter's set-up is done while it steps).
    const asked = this.#client.request(command, { threadId: thread }, this.#timeouts.requestMs);
    const refused = new AbortController();
    const stop = this.#nextStop(this.#timeouts.stopMs, refused.signal);
    this.#state = "running";
    try {
      await asked;
    } catch (error) {
      // Refused (an unknown thread, say): nothing moved. The session said "running" from here on, and pause then
      // waited for a stop that never came.
      refused.abort(REFUSED);
      if (this.#client.closed) throw error;
      // Not answered: whether it moved is unknown, so it is not said to be stopped; a later stop still sets it.
      if (error instanceof DapTimeout) {
        throw new ToolError(
          `${this.spec.name} did not answer ${command} within ${this.#timeouts.requestMs} ms: the program may be stopped or running. Use status (or pause); if the adapter hangs, terminate and launch again.`,
        );
      }
      this.#state = "stopped";
      throw new ToolError(
        `${this.spec.name} refused ${command}${threadId !== undefined ? ` for \`thread_id\` ${threadId}` : ""}: ${(error as Error).message.trim().replace(/\.$/, "")}. The program is still stopped${threadId !== undefined ? "; threads lists the thread ids" : ""}.`,
      );
    }
    return this.#settle(stop);
  }

  async pause(threadId?: number): Promise<StopReport> {
    if (this.#state === "stopped") return this.report();
    const thread = threadId ?? (await this.threads())[0]?.id ?? 1;
    const stop = this.#nextStop(this.#timeouts.requestMs);
    await this.#client.request("pause", { threadId: thread }, this.#timeouts.requestMs);
    return this.#settle(stop);
  }

  async threads(all = false): Promise<{ id: number; name: string }[]> {
    const body = await this.#client.request<DebugProtocol.ThreadsResponse["body"]>(
      "threads",
      {},
      this.#timeouts.requestMs,
    );
    const threads = body?.threads ?? [];
    // delve lists the Go runtime's own goroutines too; they are noise unless asked for.
    return all || this.adapter.id !== "delve"
      ? threads
      : threads.filter((t) => !/runtime\.|\[runtime/.test(t.name));
  }

  async stack(threadId?: number): Promise<Frame[]> {
    this.#requireStopped("stack");
    const frames = await this.#inspector.stackFrames(threadId ?? this.#stopped!.threadId);
    return frames.map((f) => this.#inspector.frame(f));
  }

  async scopes(frameId: number): Promise<{ name: string; reference: number }[]> {
    this.#requireStopped("scopes");
    return this.#inspector.scopes(frameId);
  }

  async variables(reference: number, limit?: number): Promise<{ variables: Variable[]; total: number }> {
    this.#requireStopped("variables");
    return this.#inspector.variables(reference, limit);
  }

  async evaluate(
    expression: string,
    frameId?: number,
  ): Promise<{ result: string; type?: string; reference?: number }> {
    this.#requireStopped("evaluate");
    return this.#inspector.evaluate(expression, frameId ?? (await this.stack())[0]?.id);
  }

  async setVariable(
    name: string,
    value: string,
    frameId?: number,
    reference?: number,
  ): Promise<{ value: string; type?: string }> {
    this.#requireStopped("set_variable");
    const frame = reference === undefined ? (frameId ?? (await this.stack())[0]?.id) : frameId;
    return this.#inspector.setVariable(name, value, frame, reference);
  }

  output(): { text: string; dropped: number } {
    return this.#output.contents();
  }

  /** The last `count` lines of the program's output, trimmed; "" when it printed nothing. */
  lastLines(count: number): string {
    return this.#output.lastLines(count);
  }

  /** Where it stands now: for status, and after every stop. */
  async report(): Promise<StopReport> {
    const logged = this.#logpoints.drain();
    if (this.#state === "exited")
      return {
        state: "exited",
        ...(this.#exitCode !== undefined ? { exit_code: this.#exitCode } : {}),
        ...(this.#adapterDied ? { error: this.#adapterDied } : {}),
        ...logged,
      };
    if (this.#state === "running" || !this.#stopped) return { state: "running", ...logged };
    return { ...(await this.#inspector.report(this.#stopped, this.watch)), ...logged };
  }

  /** Ends the debuggee and the adapter as process trees; after an attach, detaches and leaves the program running. */
  async terminate(): Promise<void> {
    if (this.#client && !this.#client.closed) {
      // A multi-client dlv server keeps the program as it was at disconnect, halted included: let it run first.
      if (this.#attached?.kind === "delve" && this.#state === "stopped" && this.#stopped) {
        await this.#client
          .send("continue", { threadId: this.#stopped.threadId }, 2000)
          .catch(() => undefined);
      }
      const ask = this.#attached
        ? this.#client.send("disconnect", { terminateDebuggee: false }, 2000)
        : this.#capabilities.supportsTerminateRequest
          ? this.#client.send("terminate", {}, 2000)
          : this.#client.send("disconnect", { terminateDebuggee: true }, 2000);
      await ask.catch(() => undefined);
      this.#client.close("the session was terminated");
    }
    if (this.#process) await this.#processes.kill(this.#process.pid, 1000);
    this.#watch?.dispose();
    this.#state = "exited";
  }

  async #connect(cwd: string): Promise<void> {
    const connection = await connectAdapter(
      this.spec,
      this.adapter,
      this.#remote,
      { cwd, workdir: this.#workdir, processes: this.#processes, launchMs: this.#timeouts.launchMs },
      {
        output: (text) => this.#output.append(text),
        ended: (why) => {
          // Under a program that had not exited, or killed by a signal (confined, the program dies with it and its
          // exit can be told first): the adapter died, and the program went with it.
          if (why.kind === "adapter exited" && (this.#state !== "exited" || why.how.startsWith("SIG")))
            this.#adapterDied = `the ${this.spec.name} adapter died (it exited with ${why.how})`;
          this.#state = "exited";
        },
      },
    );
    this.#client = connection.client;
    this.#process = connection.process;
    this.#client.onEvent((event) => this.#onEvent(event));
  }

  #onEvent(event: DebugProtocol.Event): void {
    if (event.event === "output") {
      const text = programText((event as DebugProtocol.OutputEvent).body, this.spec.id, this.#logpoints);
      if (text) this.#output.append(text);
    } else if (event.event === "stopped") {
      const body = (event as DebugProtocol.StoppedEvent).body;
      this.#state = "stopped";
      this.#stopped = {
        reason: body.reason,
        threadId: body.threadId ?? this.#stopped?.threadId ?? 1,
        ...(body.text ? { text: body.text } : {}),
        ...(body.description ? { description: body.description } : {}),
      };
    } else if (event.event === "breakpoint") {
      // Bound after it was answered (a script that loads later: Node's adapter, lldb's shared libraries).
      const changed = (event as DebugProtocol.BreakpointEvent).body.breakpoint;
      for (const list of this.#sent.values())
        for (const [i, b] of list.entries())
          if (changed.id !== undefined && b.id === changed.id) list[i] = changed;
    } else if (event.event === "continued") {
      this.#state = "running";
    } else if (event.event === "exited") {
      this.#exitCode = (event as DebugProtocol.ExitedEvent).body.exitCode;
    } else if (event.event === "terminated") {
      this.#state = "exited";
    }
  }

  /** The next stop, exit or termination, registered before the request that causes it. */
  #nextStop(timeoutMs: number, withdraw?: AbortSignal): Promise<"stopped" | "exited" | "running"> {
    // One waiter for both: two, with the loser withdrawn on an abort signal, put that withdrawal between the
    // stop and the stack request.
    return this.#client.waitFor(["stopped", "terminated"], timeoutMs, undefined, withdraw).then(
      (event) => (event.event === "stopped" ? ("stopped" as const) : ("exited" as const)),
      () => (this.#client.closed ? ("exited" as const) : ("running" as const)),
    );
  }

  /** Event waiters still registered with the adapter's client (for tests: none between calls). */
  get waiting(): number {
    return this.#client.waiting;
  }

  async #settle(next: Promise<"stopped" | "exited" | "running">): Promise<StopReport> {
    const outcome = await next;
    if (outcome === "exited") this.#state = "exited";
    if (outcome === "running") this.#state = "running";
    return this.report();
  }

  #requireStopped(what: string): void {
    if (this.#adapterDied)
      throw new ToolError(
        `${this.#adapterDied.replace(/^the/, "The")}; the program and the session went with it. Launch again.`,
      );
    if (this.#state === "exited")
      throw new ToolError(
        `The program has exited${this.#exitCode !== undefined ? ` (code ${this.#exitCode})` : ""}; ${what} needs a stopped program. Launch again.`,
      );
    if (this.#state !== "stopped")
      throw new ToolError(
        `The program is running; ${what} needs it stopped. Use pause (or wait for a breakpoint), then ${what}.`,
      );
  }

  #rel(file: string): string {
    const rel = path.relative(this.#workdir, file);
    return rel.startsWith("..") ? file : rel;
  }
}
