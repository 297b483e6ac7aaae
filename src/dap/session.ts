/**
 * One debug session: an adapter process (or its TCP port), the debuggee under it, and what it last said. A stop is
 * answered in one call — reason, location with its source line, the top frames and the top frame's locals — and a
 * program that does not stop within the deadline is reported as running, honestly.
 */
import net from "node:net";
import path from "node:path";
import type { DebugProtocol } from "@vscode/debugprotocol";
import { ToolError } from "../errors.js";
import { fileLines } from "../files/lines.js";
import { exitedAndDrained, type ProcessTracker, type TrackedProcess } from "../proc/tracker.js";
import type { AdapterSpec, ResolvedAdapter } from "./adapters.js";
import { DapClient, DapRefused, DapTimeout, failureOf } from "./client.js";

export interface SessionTimeouts {
  /** Any single request. */
  readonly requestMs: number;
  /** Launch until the adapter says the program started (delve compiles first). */
  readonly launchMs: number;
  /** continue / step — and a started program — to the next stop before answering "running". */
  readonly stopMs: number;
}

export type SessionState = "running" | "stopped" | "exited";

/** A program already running under a debug server, on a loopback port. */
export type AttachTarget =
  | { readonly kind: "debugpy" | "delve"; readonly host: string; readonly port: number }
  | { readonly kind: "gdb-remote"; readonly host: string; readonly port: number; readonly program?: string };

export interface Frame {
  id: number;
  name: string;
  path?: string;
  line?: number;
}

export interface Variable {
  name: string;
  value: string;
  type?: string;
  reference?: number;
}

export interface StopReport {
  state: SessionState;
  reason?: string;
  thread_id?: number;
  location?: { path: string; line: number; function: string; source: string };
  /** At a stop for "error" (a step the adapter could not take): what the adapter said. */
  error?: string;
  /** When the top frame is outside the workdir (a runtime's panic handler, libc): the first frame inside it. */
  workdir_frame?: { id: number; path: string; line: number; function: string; source: string };
  /** At a stop for an exception (or a panic, a signal): what was raised, as the adapter names it. */
  exception?: { id?: string; description: string };
  /** What the adapter did not give at this stop (frames, scopes, variables), and why: the rest is still answered. */
  unavailable?: string[];
  frames?: Frame[];
  locals?: Variable[];
  exit_code?: number;
}

const OUTPUT_LIMIT = 64 * 1024;
const MAX_FRAMES = 30;
const MAX_CHILDREN = 50;
const MAX_VALUE = 400;
/** delve's own lines, which it writes to its stdout and sends as stdout output events among the program's. */
const DELVE_OWN_LINES = /^(Building .*|Type 'dlv help' for list of commands\.)\r?\n/gm;
/** Why a first-stop waiter is withdrawn (made once: an abort's default DOMException costs a stack). */
const WITHDRAWN = new Error("the launch was answered");
const REFUSED = new Error("the adapter refused the request");

export class DebugSession {
  readonly spec: AdapterSpec;
  readonly adapter: ResolvedAdapter;
  readonly program: string;
  readonly startedAt = Date.now();
  state: SessionState = "running";
  stopped: { reason: string; threadId: number; text?: string; description?: string } | undefined;
  exitCode: number | undefined;
  /** Set when the adapter exited under a program that had not: what happened, for every answer after. */
  adapterDied: string | undefined;
  #client!: DapClient;
  /** The adapter process runbound started; undefined when attached to a program's own debug server. */
  #process: TrackedProcess | undefined;
  /** A program's own DAP server (debugpy --listen, dlv --headless): spoken to directly. */
  #remote: { host: string; port: number } | undefined;
  /** Set by attach: runbound did not start the program, so terminate detaches and leaves it running. */
  #attached: AttachTarget | undefined;
  #capabilities: DebugProtocol.Capabilities = {};
  #output = "";
  #dropped = 0;
  readonly #workdir: string;
  readonly #timeouts: SessionTimeouts;
  readonly #processes: ProcessTracker;

  constructor(
    spec: AdapterSpec,
    adapter: ResolvedAdapter,
    program: string,
    workdir: string,
    processes: ProcessTracker,
    timeouts: SessionTimeouts,
  ) {
    this.spec = spec;
    this.adapter = adapter;
    this.program = program;
    this.#workdir = workdir;
    this.#processes = processes;
    this.#timeouts = timeouts;
  }

  get pid(): number | undefined {
    return this.#process?.pid;
  }

  /** Joined with attach: runbound did not start the program, and terminate leaves it running. */
  get attached(): boolean {
    return this.#attached !== undefined;
  }

  /** Starts the adapter and the program, with `breakpoints` set before it runs; resolves at the first stop or exit. */
  launch(args: readonly string[], cwd: string, breakpoints: ReadonlyMap<string, readonly number[]>) {
    return this.#start("launch", this.spec.launchArguments(this.program, args, cwd), cwd, breakpoints);
  }

  /**
   * Joins a program already running under a debug server. debugpy (`python -m debugpy --listen`) and delve
   * (`dlv --headless`, "remote attach") speak DAP on their port, so the client talks to it directly; lldb-server
   * speaks gdb-remote, so runbound's lldb adapter connects to it (`gdb-remote HOST:PORT`).
   */
  attach(target: AttachTarget, cwd: string, breakpoints: ReadonlyMap<string, readonly number[]>) {
    this.#attached = target;
    if (target.kind === "gdb-remote") {
      return this.#start(
        "attach",
        {
          request: "attach",
          attachCommands: [`gdb-remote ${target.host}:${target.port}`],
          ...(target.program ? { program: target.program } : {}),
        },
        cwd,
        breakpoints,
      );
    }
    this.#remote = { host: target.host, port: target.port };
    const args =
      target.kind === "delve"
        ? { request: "attach", mode: "remote" }
        : { request: "attach", justMyCode: true };
    return this.#start("attach", args, cwd, breakpoints);
  }

  async #start(
    request: "launch" | "attach",
    requestArgs: Record<string, unknown>,
    cwd: string,
    breakpoints: ReadonlyMap<string, readonly number[]>,
  ): Promise<{ report: StopReport; verified: Map<string, DebugProtocol.Breakpoint[]> }> {
    await this.#connect(cwd);
    const client = this.#client;
    const t = this.#timeouts;
    this.#capabilities =
      (await client.request<DebugProtocol.Capabilities>(
        "initialize",
        {
          clientID: "runbound",
          adapterID: this.adapter.id,
          linesStartAt1: true,
          columnsStartAt1: true,
          pathFormat: "path",
          supportsRunInTerminalRequest: false,
        },
        t.requestMs,
      )) ?? {};
    // The order that works for debugpy, delve and lldb: launch (not awaited), initialized, breakpoints,
    // configurationDone, then the launch response. The first stop can come at once: wait for it from the start.
    const initialized = client.waitFor("initialized", t.launchMs);
    const withdraw = new AbortController();
    const firstStop = this.#nextStop(t.launchMs, withdraw.signal);
    const launched = client.send(request, requestArgs, t.launchMs);
    await Promise.race([
      initialized,
      launched.then((r) => (r.success ? initialized : Promise.reject(new Error(failureOf(r))))),
    ]);
    const verified = new Map<string, DebugProtocol.Breakpoint[]>();
    for (const [file, lines] of breakpoints) verified.set(file, await this.setBreakpoints(file, lines));
    // Stop where an IDE stops by default (debugpy: uncaught exceptions). Without this a Python program that raises
    // just exits with a traceback in its output, and the frame that raised is gone.
    const filters = (this.#capabilities.exceptionBreakpointFilters ?? [])
      .filter((f) => f.default)
      .map((f) => f.filter);
    if (filters.length)
      await client.request("setExceptionBreakpoints", { filters }, t.requestMs).catch(() => undefined);
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
    return { report: await this.#settle(outcome), verified };
  }

  async setBreakpoints(file: string, lines: readonly number[]): Promise<DebugProtocol.Breakpoint[]> {
    const body = await this.#client.request<DebugProtocol.SetBreakpointsResponse["body"]>(
      "setBreakpoints",
      {
        source: { path: file, name: path.basename(file) },
        breakpoints: lines.map((line) => ({ line })),
        lines,
      },
      this.#timeouts.requestMs,
    );
    return body?.breakpoints ?? [];
  }

  /** continue / next / stepIn / stepOut: one answer with where it stopped (or that it runs, or exited). */
  async resume(command: "continue" | "next" | "stepIn" | "stepOut", threadId?: number): Promise<StopReport> {
    this.#requireStopped(command);
    const thread = threadId ?? this.stopped!.threadId;
    // The request is written at once and the waiter registered right after, in the same turn: the adapter's answer
    // and its events are read only once this yields, so the stop cannot be missed, and the adapter starts ~30 µs
    // sooner (the waiter's set-up is done while it steps).
    const asked = this.#client.request(command, { threadId: thread }, this.#timeouts.requestMs);
    const refused = new AbortController();
    const stop = this.#nextStop(this.#timeouts.stopMs, refused.signal);
    this.state = "running";
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
      this.state = "stopped";
      throw new ToolError(
        `${this.spec.name} refused ${command}${threadId !== undefined ? ` for \`thread_id\` ${threadId}` : ""}: ${(error as Error).message.trim().replace(/\.$/, "")}. The program is still stopped${threadId !== undefined ? "; threads lists the thread ids" : ""}.`,
      );
    }
    return this.#settle(stop);
  }

  async pause(threadId?: number): Promise<StopReport> {
    if (this.state === "stopped") return this.report();
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
    return (await this.#stackFrames(threadId)).map((f) => this.#frame(f));
  }

  async #stackFrames(threadId?: number): Promise<DebugProtocol.StackFrame[]> {
    this.#requireStopped("stack");
    const body = await this.#client.request<DebugProtocol.StackTraceResponse["body"]>(
      "stackTrace",
      { threadId: threadId ?? this.stopped!.threadId, startFrame: 0, levels: MAX_FRAMES },
      this.#timeouts.requestMs,
    );
    return (body?.stackFrames ?? []).slice(0, MAX_FRAMES);
  }

  #frame(f: DebugProtocol.StackFrame): Frame {
    return {
      id: f.id,
      name: f.name,
      ...(f.source?.path ? { path: this.#rel(f.source.path) } : {}),
      ...(f.line ? { line: f.line } : {}),
    };
  }

  async scopes(frameId: number): Promise<{ name: string; reference: number }[]> {
    this.#requireStopped("scopes");
    const body = await this.#client.request<DebugProtocol.ScopesResponse["body"]>(
      "scopes",
      { frameId },
      this.#timeouts.requestMs,
    );
    return (body?.scopes ?? []).map((s) => ({ name: s.name, reference: s.variablesReference }));
  }

  async variables(
    reference: number,
    limit = MAX_CHILDREN,
  ): Promise<{ variables: Variable[]; total: number }> {
    this.#requireStopped("variables");
    const body = await this.#client.request<DebugProtocol.VariablesResponse["body"]>(
      "variables",
      { variablesReference: reference },
      this.#timeouts.requestMs,
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
    frameId?: number,
  ): Promise<{ result: string; type?: string; reference?: number }> {
    this.#requireStopped("evaluate");
    const frame = frameId ?? (await this.stack())[0]?.id;
    const body = await this.#client
      .request<DebugProtocol.EvaluateResponse["body"]>(
        "evaluate",
        { expression, frameId: frame, context: "repl" },
        this.#timeouts.requestMs,
      )
      .catch((error: Error) => {
        throw new ToolError(`Evaluating \`${expression}\` failed: ${error.message.trim()}`);
      });
    const result = clip(body.result);
    return {
      result,
      ...(body.type ? { type: body.type } : {}),
      ...(body.variablesReference ? { reference: body.variablesReference } : {}),
    };
  }

  output(): { text: string; dropped: number } {
    return { text: this.#output, dropped: this.#dropped };
  }

  /** The last `count` lines of the program's output, trimmed; "" when it printed nothing. */
  lastLines(count: number): string {
    return this.#output.trim().split("\n").slice(-count).join("\n");
  }

  /** Where it stands now: for status, and after every stop. */
  async report(): Promise<StopReport> {
    if (this.state === "exited")
      return {
        state: "exited",
        ...(this.exitCode !== undefined ? { exit_code: this.exitCode } : {}),
        ...(this.adapterDied ? { error: this.adapterDied } : {}),
      };
    if (this.state === "running" || !this.stopped) return { state: "running" };
    // Each request goes out as soon as what it needs is known, and runbound's own work on the answer (the frames,
    // the source lines, a stat of each file) is done while the adapter works on the next: in sequence it was
    // ~0.1 ms of a ~4 ms lldb step between the adapter's answers (measured).
    const unavailable: string[] = [];
    const missing =
      <T>(what: string, instead: T) =>
      (error: unknown): T => {
        unavailable.push(`${what}: ${this.#failure(error)}`);
        return instead;
      };
    const raw = await this.#stackFrames().catch(missing("frames", [] as DebugProtocol.StackFrame[]));
    const scopesAsked = raw[0] ? this.scopes(raw[0].id).catch(missing("scopes", [])) : undefined;
    const frames = raw.map((f) => this.#frame(f));
    const top = frames[0];
    const location =
      top?.path && top.line
        ? { path: top.path, line: top.line, function: top.name, source: this.#sourceLine(top.path, top.line) }
        : undefined;
    // A Go panic stops in runtime.fatalpanic, a signal may stop in libc: point at the code the agent can change.
    const own =
      top?.path && path.isAbsolute(top.path)
        ? frames.find((f) => f.path && f.line && !path.isAbsolute(f.path))
        : undefined;
    const workdirFrame =
      own?.path && own.line
        ? {
            id: own.id,
            path: own.path,
            line: own.line,
            function: own.name,
            source: this.#sourceLine(own.path, own.line),
          }
        : undefined;
    const first = scopesAsked ? (await scopesAsked)[0] : undefined;
    const locals = first
      ? (await this.variables(first.reference, 20).catch(missing("locals", { variables: [] }))).variables
      : [];
    const exception = this.stopped.reason === "exception" ? await this.#exception() : undefined;
    // delve answers a step it cannot take (an unknown goroutine) with a stop for "error": its text is the why.
    const error =
      this.stopped.reason === "error" ? (this.stopped.text ?? this.stopped.description) : undefined;
    return {
      state: "stopped",
      reason: this.stopped.reason,
      thread_id: this.stopped.threadId,
      ...(exception ? { exception } : {}),
      ...(error ? { error: clip(error) } : {}),
      ...(workdirFrame ? { workdir_frame: workdirFrame } : {}),
      ...(location ? { location } : {}),
      frames: frames.slice(0, 5),
      locals,
      ...(unavailable.length ? { unavailable } : {}),
    };
  }

  /** What a stop for an exception was about: the adapter's exceptionInfo where it has one, else the stop's text. */
  async #exception(): Promise<StopReport["exception"]> {
    const stop = this.stopped!;
    if (this.#capabilities.supportsExceptionInfoRequest) {
      const info = await this.#client
        .request<DebugProtocol.ExceptionInfoResponse["body"]>(
          "exceptionInfo",
          { threadId: stop.threadId },
          this.#timeouts.requestMs,
        )
        .catch(() => undefined);
      const description = info?.description ?? info?.details?.message ?? stop.text ?? stop.description;
      if (info && description) return { id: info.exceptionId, description: clip(description) };
    }
    const description = stop.text ?? stop.description;
    return description ? { description: clip(description) } : undefined;
  }

  /** Ends the debuggee and the adapter as process trees; after an attach, detaches and leaves the program running. */
  async terminate(): Promise<void> {
    if (this.#client && !this.#client.closed) {
      // A multi-client dlv server keeps the program as it was at disconnect, halted included: let it run first.
      if (this.#attached?.kind === "delve" && this.state === "stopped" && this.stopped) {
        await this.#client.send("continue", { threadId: this.stopped.threadId }, 2000).catch(() => undefined);
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
    this.state = "exited";
  }

  async #connect(cwd: string): Promise<void> {
    if (this.#remote) {
      const socket = await connectTcp(this.#remote);
      this.#client = new DapClient(socket, socket);
      socket.once("close", () => {
        this.#client.close("the program's debug server closed the connection");
        this.state = "exited";
      });
      this.#client.onEvent((event) => this.#onEvent(event));
      return;
    }
    const proc = this.#processes.spawn(
      `${this.spec.id} debug adapter`,
      this.adapter.command,
      this.adapter.args,
      { cwd, stdio: ["pipe", "pipe", "pipe"] },
    );
    this.#process = proc;
    let stderr = "";
    proc.child.stderr?.on("data", (d: Buffer) => {
      stderr = (stderr + d.toString()).slice(-2000);
    });
    if (this.adapter.transport === "stdio") {
      this.#client = new DapClient(proc.child.stdout!, proc.child.stdin!);
    } else {
      // delve: "DAP server listening at: 127.0.0.1:PORT"; afterwards its stdout carries the program's output.
      const address = await new Promise<{ host: string; port: number }>((resolve, reject) => {
        let seen = "";
        const timer = setTimeout(
          () =>
            reject(
              new Error(
                `${this.adapter.command} did not say where it listens within ${this.#timeouts.launchMs} ms: ${seen || stderr}`,
              ),
            ),
          this.#timeouts.launchMs,
        );
        const onData = (d: Buffer) => {
          seen += d.toString();
          const m = /listening at:\s*([\d.]+):(\d+)/.exec(seen);
          if (m) {
            clearTimeout(timer);
            proc.child.stdout?.off("data", onData);
            // delve's own lines ("Building …", "Type 'dlv help' …") are not the program's output.
            proc.child.stdout?.on("data", (more: Buffer) =>
              this.#append(more.toString().replace(DELVE_OWN_LINES, "")),
            );
            resolve({ host: m[1]!, port: Number(m[2]) });
          }
        };
        proc.child.stdout?.on("data", onData);
        proc.exited.then(() =>
          reject(new Error(`${this.adapter.command} exited before listening: ${stderr}`)),
        );
      });
      const socket = await connectTcp(address);
      this.#client = new DapClient(socket, socket);
    }
    // Only once its pipes are read to the end: a "terminated" written just before a normal exit is seen first.
    exitedAndDrained(proc).then(({ code, signal }) => {
      const why = `${signal ?? `code ${code}`}${stderr ? `: ${stderr.trim().split("\n").slice(-2).join(" | ")}` : ""}`;
      this.#client.close(`the ${this.spec.name} adapter exited (${why})`);
      // Under a program that had not exited: the adapter died, and the program went with it.
      if (this.state !== "exited") {
        this.adapterDied = `the ${this.spec.name} adapter died (it exited with ${why})`;
        this.state = "exited";
      }
    });
    this.#client.onEvent((event) => this.#onEvent(event));
  }

  #onEvent(event: DebugProtocol.Event): void {
    if (event.event === "output") {
      const body = (event as DebugProtocol.OutputEvent).body;
      // The program's own streams only: "console" (the default) is the adapter talking ("Running attachCommands",
      // "Type 'dlv help'"), telemetry and "important" are the adapter's too.
      if (body.category !== "stdout" && body.category !== "stderr") return;
      // delve also sends its "Building …" line as the program's stdout.
      this.#append(this.spec.id === "delve" ? body.output.replace(DELVE_OWN_LINES, "") : body.output);
    } else if (event.event === "stopped") {
      const body = (event as DebugProtocol.StoppedEvent).body;
      this.state = "stopped";
      this.stopped = {
        reason: body.reason,
        threadId: body.threadId ?? this.stopped?.threadId ?? 1,
        ...(body.text ? { text: body.text } : {}),
        ...(body.description ? { description: body.description } : {}),
      };
    } else if (event.event === "continued") {
      this.state = "running";
    } else if (event.event === "exited") {
      this.exitCode = (event as DebugProtocol.ExitedEvent).body.exitCode;
    } else if (event.event === "terminated") {
      this.state = "exited";
    }
  }

  /** The next stop, exit or termination, registered before the request that causes it. */
  #nextStop(timeoutMs: number, withdraw?: AbortSignal): Promise<"stopped" | "exited" | "running"> {
    // One waiter for both: two, with the loser withdrawn on an abort signal, put that withdrawal between the
    // stop and the stack request (~60 µs of a 3 ms lldb step, measured).
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
    if (outcome === "exited") this.state = "exited";
    if (outcome === "running") this.state = "running";
    return this.report();
  }

  #requireStopped(what: string): void {
    if (this.adapterDied)
      throw new ToolError(
        `${this.adapterDied.replace(/^the/, "The")}; the program and the session went with it. Launch again.`,
      );
    if (this.state === "exited")
      throw new ToolError(
        `The program has exited${this.exitCode !== undefined ? ` (code ${this.exitCode})` : ""}; ${what} needs a stopped program. Launch again.`,
      );
    if (this.state !== "stopped")
      throw new ToolError(
        `The program is running; ${what} needs it stopped. Use pause (or wait for a breakpoint), then ${what}.`,
      );
  }

  #append(text: string): void {
    this.#output += text;
    if (this.#output.length > OUTPUT_LIMIT) {
      this.#dropped += this.#output.length - OUTPUT_LIMIT;
      this.#output = this.#output.slice(-OUTPUT_LIMIT);
    }
  }

  /** Why a request at a stop failed, in the adapter's name. */
  #failure(error: unknown): string {
    if (error instanceof DapTimeout) return error.by(this.spec.name);
    if (error instanceof DapRefused)
      return `${this.spec.name} refused ${error.command}: ${error.message.trim()}`;
    return error instanceof Error ? error.message : String(error);
  }

  #sourceLine(rel: string, line: number): string {
    return (fileLines(path.resolve(this.#workdir, rel))?.[line - 1] ?? "").trim();
  }

  #rel(file: string): string {
    const rel = path.relative(this.#workdir, file);
    return rel.startsWith("..") ? file : rel;
  }
}

/** A DAP connection over TCP; setNoDelay because each step is a small round trip (delve: 49 ms → 5 ms). */
async function connectTcp(address: { host: string; port: number }): Promise<net.Socket> {
  const socket = net.createConnection(address);
  socket.setNoDelay(true);
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  return socket;
}

/** A value as answers show it: at most MAX_VALUE characters, and when cut, how long it was (an ellipsis alone hid it). */
function clip(value: string): string {
  return value.length > MAX_VALUE ? `${value.slice(0, MAX_VALUE)}… (${value.length} characters)` : value;
}
