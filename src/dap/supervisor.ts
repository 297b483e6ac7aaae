/**
 * The debug sessions of one run: one per conversation, with a hard TTL (30 minutes by default). A second launch
 * while one runs is refused with the running session's description; breakpoints may be set before launch; at
 * expiry the session is terminated and the next call says so.
 */

import { existsSync, statSync } from "node:fs";
import path from "node:path";
import type { DebugProtocol } from "@vscode/debugprotocol";
import { ToolError } from "../errors.js";
import { libraryRoots } from "../files/library-roots.js";
import { fileLines } from "../files/lines.js";
import { confine, confineExisting } from "../files/paths.js";
import { rootAbove, rootsIn } from "../files/roots.js";
import { plural, withoutTrailing } from "../files/text.js";
import { shownPath } from "../files/visible.js";
import type { ProcessTracker } from "../proc/tracker.js";
import type { OnDemandInstaller } from "../setup/on-demand.js";
import { ADAPTERS, type AdapterSpec, adapterForProgram, type ResolvedAdapter } from "./adapters.js";
import { type AttachPlan, failFastOnInjection, InjectionFailed, pidTarget, portTarget } from "./attach.js";
import { BreakpointBook, type LineBreakpoint } from "./breakpoints.js";
import { type AdapterConfig, customAdapters } from "./custom-adapters.js";
import { DebugSession, type SessionTimeouts, type StopReport } from "./session.js";

/** How to build each compiled language's source with debug information, to say so when a source file is launched. */
const BUILD_FIRST: Record<string, (source: string, out: string) => string> = {
  ".c": (source, out) => `gcc -g -O0 -o ${out} ${source}`,
  ".cc": (source, out) => `g++ -g -O0 -o ${out} ${source}`,
  ".cpp": (source, out) => `g++ -g -O0 -o ${out} ${source}`,
  ".cxx": (source, out) => `g++ -g -O0 -o ${out} ${source}`,
  ".rs": () => "cargo build, then launch target/debug/<name>",
};

export interface DebugOptions {
  /** Hard session lifetime. Default 1800 (30 minutes). */
  readonly ttlSeconds?: number;
  readonly timeouts?: Partial<SessionTimeouts>;
  /** Adapters of the harness's own, used like the built-in ones (checked at createRun). */
  readonly adapters?: readonly AdapterConfig[];
}

export interface BreakpointResult {
  line: number;
  /** A function breakpoint's name. */
  name?: string;
  verified: boolean;
  actual_line?: number;
  message?: string;
}

/** A session begun by launch or attach: its first report, the breakpoints' results, what was not set. */
export interface Begun {
  report: StopReport;
  breakpoints: { path: string; results: BreakpointResult[] }[];
  session: DebugSession;
  notes: string[];
  /** Whether the program runs on the host, outside the run's sandboxes (attach by pid, or a host port). */
  outside?: boolean;
}

export class DebugSupervisor {
  readonly conversation: string;
  readonly #workdir: string;
  readonly #home: string;
  readonly #confineRequired: boolean;
  /** What an attach holds on the host until its session ends (the endpoint into a sandbox's loopback). */
  #release: (() => void) | undefined;
  readonly #processes: ProcessTracker;
  readonly #ttlMs: number;
  readonly #timeouts: SessionTimeouts;
  readonly #breakpoints = new BreakpointBook();
  /** The harness's own adapters first, then the built-in ones. */
  readonly #adapters: readonly AdapterSpec[];
  /** Watch expressions, kept across launches as breakpoints are. */
  #watch: string[] = [];
  #session: DebugSession | undefined;
  #expiry: NodeJS.Timeout | undefined;
  #ended: string | undefined;

  constructor(
    workdir: string,
    conversation: string,
    processes: ProcessTracker,
    home: string,
    options: DebugOptions = {},
    /** The run was created with `confine: "required"`: nothing of it may run code outside the sandbox. */
    confineRequired = false,
    /** Installs a missing adapter's component first, where the run allows it. */
    private readonly installer?: OnDemandInstaller,
  ) {
    this.#workdir = workdir;
    this.#home = home;
    this.#confineRequired = confineRequired;
    this.conversation = conversation;
    this.#processes = processes;
    this.#ttlMs = (options.ttlSeconds ?? 1800) * 1000;
    this.#timeouts = { requestMs: 10_000, launchMs: 60_000, stopMs: 10_000, ...options.timeouts };
    this.#adapters = [...customAdapters(options.adapters ?? []), ...ADAPTERS];
  }

  /**
   * An adapter's roots in the workdir, and what would debug a program of the first (or of the workdir, without a
   * root): what `adapters`, a launch and `runbound doctor` all go by.
   */
  locate(spec: AdapterSpec): { roots: string[]; resolved: ResolvedAdapter | { missing: string } } {
    const roots = rootsIn(this.#workdir, spec.rootMarkers);
    return { roots, resolved: spec.resolve(roots[0] ?? this.#workdir, this.#workdir, this.#home) };
  }

  /** Where adapters and debuggees run: the run's confined place, or the host. */
  get place(): string {
    return this.#processes.confinedPlace.description;
  }

  /** For each adapter: usable here, and why or why not. */
  adapters(): { id: string; usable: boolean; detail: string }[] {
    return this.#adapters.map((spec) => {
      const { roots, resolved } = this.locate(spec);
      if (roots.length === 0)
        return {
          id: spec.id,
          usable: false,
          detail: `no root marker (${spec.rootMarkers.join(", ")}) in the workdir`,
        };
      if ("missing" in resolved)
        return { id: spec.id, usable: false, detail: `${resolved.missing}. Fix: ${spec.install}` };
      return {
        id: spec.id,
        usable: true,
        detail: `${resolved.detail}; roots: ${roots.map((r) => shownPath(path.relative(this.#workdir, r) || ".")).join(", ")}`,
      };
    });
  }

  /** The live session, or a ToolError that says why there is none (never launched, ended, expired). */
  session(what: string): DebugSession {
    if (this.#session) return this.#session;
    throw new ToolError(
      `${this.#ended ? `${this.#ended}. ` : "No debug session is running. "}${what} needs one: launch a program first (debug launch).`,
    );
  }

  get running(): DebugSession | undefined {
    return this.#session;
  }

  get timeLeftMs(): number | undefined {
    return this.#session ? this.#session.startedAt + this.#ttlMs - Date.now() : undefined;
  }

  async setBreakpoints(
    file: string,
    breakpoints: readonly LineBreakpoint[],
  ): Promise<{ path: string; results: BreakpointResult[]; sent: boolean }> {
    const lines = breakpoints.map((b) => b.line);
    const target = await this.#lineTarget(file, lines, "lines");
    const session = this.#live();
    // Sent first: an adapter that refuses an option leaves the book as it was.
    const answer = session ? await session.breakpoints.lines(target.real, breakpoints) : undefined;
    if (breakpoints.length) this.#breakpoints.lines.set(target.real, [...breakpoints]);
    else this.#breakpoints.lines.delete(target.real);
    if (!answer)
      return {
        path: target.rel,
        results: lines.map((line) => ({
          line,
          verified: false,
          message: "set before launch; sent when the program starts",
        })),
        sent: false,
      };
    return { path: target.rel, results: toResults(breakpoints, answer), sent: true };
  }

  /** A file in the workdir, with every line of `lines` inside it (`argument` names them in the refusal). */
  async #lineTarget(file: string, lines: readonly number[], argument: string) {
    const target = await confineExisting(this.#workdir, file, "file");
    // A line past the end would be sent and come back "not verified" with no reason given; say it now.
    const text = fileLines(target.real);
    // The empty string after a final newline is not a line of the file.
    const length = text && (text.at(-1) === "" ? text.length - 1 : text.length);
    const past = length === undefined ? [] : lines.filter((line) => line > length);
    if (length !== undefined && past.length) {
      throw new ToolError(
        `\`${argument}\` ${past.join(", ")} ${past.length === 1 ? "is" : "are"} past the end of ${target.shown} (${plural(length, "line")}); no breakpoint was changed.`,
      );
    }
    return target;
  }

  /**
   * Runs `work` with a plain breakpoint of runbound's own at `file:line` (with `condition`, if given) beside the
   * file's own (one of them on that line stands aside meanwhile); the file's own are sent back afterwards, whether
   * the program stopped, ended or runs on: none stays behind. `work` gets the line the adapter bound it at.
   */
  async withLineBreakpoint<T>(
    operation: string,
    file: string,
    line: number,
    condition: string | undefined,
    work: (session: DebugSession, path: string, line: number) => Promise<T>,
  ): Promise<{ path: string; line: number; value: T }> {
    const session = this.session(operation);
    const target = await this.#lineTarget(file, [line], "line");
    const kept = this.#breakpoints.lines.get(target.real) ?? [];
    const own = condition === undefined ? { line } : { line, condition };
    const sent = await session.breakpoints.lines(target.real, [...kept.filter((b) => b.line !== line), own]);
    // The adapter may move it to the next line with code: that is where the program will stop.
    const actual = sent.at(-1)?.line ?? line;
    try {
      return { path: target.rel, line: actual, value: await work(session, target.rel, actual) };
    } finally {
      if (this.#session === session)
        await session.breakpoints.lines(target.real, kept).catch(() => undefined);
    }
  }

  /** Function breakpoints by name (replacing the earlier ones; [] clears): sent now when a program runs. */
  async setFunctionBreakpoints(names: readonly string[]): Promise<BreakpointResult[] | undefined> {
    const session = this.#live();
    const answer = session ? await session.breakpoints.functions(names) : undefined;
    this.#breakpoints.functions = [...names];
    return answer?.map((bp, i) => ({
      line: bp.line ?? 0,
      verified: bp.verified,
      ...(names[i] ? { name: names[i] } : {}),
      ...(bp.message ? { message: bp.message } : {}),
    }));
  }

  /** The exception filters to stop on (replacing the adapter's defaults; [] stops on none). */
  async setExceptionBreakpoints(filters: readonly string[]): Promise<boolean> {
    const session = this.#live();
    if (session) await session.breakpoints.exceptions(filters);
    this.#breakpoints.exceptions = [...filters];
    return session !== undefined;
  }

  /** The watch expressions (replacing the earlier ones): shown at every stop from now on. */
  setWatch(expressions: readonly string[]): void {
    this.#watch = [...expressions];
    const session = this.#live();
    if (session) session.watch = this.#watch;
  }

  #live(): DebugSession | undefined {
    const session = this.#session;
    return session && session.state !== "exited" ? session : undefined;
  }

  async launch(program: string, args: readonly string[]): Promise<Begun> {
    await this.#refuseIfRunning();
    const target = await confine(this.#workdir, program, "program");
    if (!existsSync(target.real))
      throw new ToolError(
        `\`program\` ${target.shown} does not exist; build it first or give the source file to run.`,
      );
    // A compiled language's source is not a program: lldb said "doesn't contain any 'host' platform architectures".
    const build = BUILD_FIRST[path.extname(target.real).toLowerCase()];
    if (build) {
      const out = target.rel.replace(/\.[^./]+$/, "");
      throw new ToolError(
        `\`program\` ${target.shown} is source code; lldb debugs the built binary. Build it with debug information first (${build(target.shown, shownPath(out))}), then launch the binary.`,
      );
    }
    const spec = adapterForProgram(target.real, this.#adapters);
    const root = rootAbove(
      this.#workdir,
      statSync(target.real).isDirectory() ? target.real : path.dirname(target.real),
      spec.rootMarkers,
    );
    if (!root) {
      throw new ToolError(
        `${spec.name} cannot debug ${target.shown}: no root marker (${spec.rootMarkers.join(", ")}) in its folder or above it inside the workdir.`,
      );
    }
    let resolved = spec.resolve(root, this.#workdir, this.#home);
    if ("missing" in resolved && spec.component && this.installer) {
      await this.installer.ensure(
        spec.component,
        () => !("missing" in spec.resolve(root, this.#workdir, this.#home)),
      );
      resolved = spec.resolve(root, this.#workdir, this.#home);
    }
    if ("missing" in resolved)
      throw new ToolError(
        `${spec.name} cannot debug ${target.shown}: ${resolved.missing}. Fix: ${spec.install}.`,
      );
    const session = new DebugSession(
      spec,
      resolved,
      target.real,
      this.#workdir,
      this.#processes,
      this.#timeouts,
      () => libraryRoots(this.#home),
    );
    return this.#begin(session, target.shown, () => session.launch(args, root, this.#breakpoints));
  }

  /**
   * Attaches to a program already running under a debug server on a loopback port: one of the run's sandboxes' own
   * (a server a cell started), else the host's — refused where the run requires confinement, as by pid.
   */
  async attach(port: number): Promise<Begun> {
    await this.#refuseIfRunning();
    const plan = await portTarget(port, this.#workdir, this.#home, this.#processes);
    if (plan.outside && this.#confineRequired) {
      plan.release?.();
      throw new ToolError(
        `attach to 127.0.0.1:${port} is refused on this run: nothing of the run listens there, and the program that does runs on the host, outside the sandbox, where a debugger can make it run any code as its user (the run was created with confine: "required"). Start the program under a debug server inside the run (eval or a worker: \`python -m debugpy --listen 127.0.0.1:PORT app.py\`) and attach to that port, or launch it.`,
      );
    }
    return this.#attachTo(plan);
  }

  /**
   * Attaches to a running program by its process id (in the workdir; the debugger joins it from the host, outside
   * the sandbox, and can make that program run anything: refused where the run requires confinement).
   */
  async attachPid(pid: number): Promise<Begun> {
    if (this.#confineRequired)
      throw new ToolError(
        `attach by pid is refused on this run: it was created with confine: "required", and a debugger joining pid ${pid} runs on the host, outside the sandbox, where it can make that program run any code as the harness's user. Start the program under a debug server inside the run (eval or a worker: \`python -m debugpy --listen 127.0.0.1:PORT app.py\`) and attach by port, or launch it.`,
      );
    await this.#refuseIfRunning();
    return this.#attachTo(await pidTarget(pid, this.#workdir, this.#home));
  }

  async #attachTo(to: AttachPlan): Promise<Begun> {
    const { spec, adapter, target, label } = to;
    const session = new DebugSession(
      spec,
      adapter,
      to.program,
      this.#workdir,
      this.#processes,
      this.#timeouts,
      () => libraryRoots(this.#home),
    );
    const attached = () => session.attach(target, this.#workdir, this.#breakpoints);
    this.#release = to.release;
    const begun = await this.#begin(
      session,
      label,
      target.kind === "pid" ? () => failFastOnInjection(session, label, attached()) : attached,
    );
    return { ...begun, outside: to.outside };
  }

  /** One session per conversation: a second one is refused with the first's description, never swapped in. */
  async #refuseIfRunning(): Promise<void> {
    if (this.#session && this.#session.state !== "exited") {
      throw new ToolError(
        `A debug session is already running (${this.describe(this.#session)}). Terminate it first; it is never replaced silently.`,
      );
    }
    if (this.#session) await this.#close(undefined);
  }

  async #begin(
    session: DebugSession,
    label: string,
    start: () => Promise<{
      report: StopReport;
      verified: Map<string, DebugProtocol.Breakpoint[]>;
      notes: string[];
    }>,
  ): Promise<Begun> {
    this.#session = session;
    session.watch = this.#watch;
    this.#ended = undefined;
    this.#expiry = setTimeout(
      () =>
        void this.#close(
          `The debug session of ${label} expired after its ${ttlText(this.#ttlMs)} TTL and was terminated`,
        ),
      this.#ttlMs,
    );
    this.#expiry.unref();
    try {
      const { report, verified, notes } = await start();
      const breakpoints = [...verified].map(([file, answer]) => ({
        path: path.relative(this.#workdir, file),
        results: toResults(this.#breakpoints.lines.get(file) ?? [], answer),
      }));
      return { report, breakpoints, session, notes };
    } catch (error) {
      // What the program or the adapter printed before it failed (delve's compiler errors come only that way: its
      // answer says "Check the debug console for details"), kept before the session and its output go.
      const printed = session.lastLines(20).slice(-2000);
      await this.#close(undefined);
      const why =
        error instanceof ToolError
          ? error.message
          : `${session.spec.name} could not start ${label}: ${withoutTrailing((error as Error).message.trim(), ".")}.`;
      const told = error instanceof InjectionFailed;
      throw new ToolError(printed && !told ? `${why}\nWhat it printed before that:\n${printed}` : why);
    }
  }

  /** Ends the session; the answer's sentence says what happened to the program. */
  async terminate(): Promise<string> {
    const session = this.session("terminate");
    const what = this.describe(session);
    if (session.attached) {
      const ended = session.state === "exited";
      await this.#close(`The debug session (${what}) was detached`);
      return ended
        ? `Ended the session of ${what}: the program had ended by itself.`
        : `Detached from ${what}; the program keeps running (runbound did not start it).`;
    }
    await this.#close(`The debug session (${what}) was terminated`);
    return `Terminated ${what}; the program and the adapter are gone.`;
  }

  describe(session: DebugSession): string {
    // The workdir itself (a Go package at the root: program ".") is ".", not an empty name.
    const program =
      (path.isAbsolute(session.program) ? path.relative(this.#workdir, session.program) : session.program) ||
      ".";
    const what = `${shownPath(program)} under ${session.spec.name}, ${session.state}`;
    // An ended program has no time left to speak of; under a minute, the seconds ("0 min left" reads as gone).
    if (session.state === "exited") return what;
    const ms = Math.max(0, this.timeLeftMs ?? 0);
    const left = ms < 60_000 ? `${Math.ceil(ms / 1000)} s` : `${Math.round(ms / 60_000)} min`;
    return `${what}, ${left} left of its TTL`;
  }

  async dispose(): Promise<void> {
    await this.#close("The run ended");
  }

  async #close(reason: string | undefined): Promise<void> {
    clearTimeout(this.#expiry);
    const session = this.#session;
    // The session is gone (and said to be) only once its processes are.
    await session?.terminate().catch(() => undefined);
    this.#release?.();
    this.#release = undefined;
    if (this.#session === session) this.#session = undefined;
    this.#ended = reason;
  }
}

function ttlText(ms: number): string {
  return ms >= 60_000 && ms % 60_000 === 0 ? `${ms / 60_000}-minute` : `${Math.round(ms / 1000)} s`;
}

function toResults(lines: readonly LineBreakpoint[], answer: DebugProtocol.Breakpoint[]): BreakpointResult[] {
  return lines.map(({ line }, i) => {
    const bp = answer[i];
    return {
      line,
      verified: bp?.verified ?? false,
      ...(bp?.line && bp.line !== line ? { actual_line: bp.line } : {}),
      ...(bp?.message ? { message: bp.message } : {}),
    };
  });
}
