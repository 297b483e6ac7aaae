/**
 * The `kernels` resource of a run: a Jupyter server started on the first eval, one kernel per language (Python:
 * ipykernel in the project's environment when it has one, else runbound's environment in its home; JavaScript:
 * Deno's kernel from the npm `deno` package), each with the tool() prelude that bridges calls over the kernel's
 * stdin channel.
 */

import { randomBytes } from "node:crypto";
import { existsSync, rmSync } from "node:fs";
import path from "node:path";
import { type Kernel, KernelManager, type KernelMessage, ServerConnection } from "@jupyterlab/services";
import WebSocket from "ws";
import { errorMessage, ToolError } from "../errors.js";
import { takeSlot } from "../host-limits.js";
import { IdleCheck, idleSecondsOf } from "../idle.js";
import { type RunLogger, stderrLogger } from "../log.js";
import { childEnvironment } from "../proc/environment.js";
import type { ProcessTracker } from "../proc/tracker.js";
import { setupCommand } from "../setup/components.mjs";
import { homeLayout } from "../setup/home.mjs";
import { denoBinary, zeromqFolder } from "../setup/npm.js";
import type { OnDemandInstaller } from "../setup/on-demand.js";
import type { ToolResult } from "../tool-result.js";
import { cellReply } from "./answers.js";
import { type CellOutcome, onGone, runCell } from "./cell.js";
import { environmentsOutside, pythonForCells } from "./interpreters.js";
import { answered, type Interpreter, KernelStartFailure, startFailure, stderrTail } from "./kernel-life.js";
import { outsideRunLogger, withRunLogger } from "./library-console.js";
import type { KernelOptions } from "./options.js";
import { prelude } from "./prelude.js";
import { pythonImports } from "./python-imports.js";
import type { KernelLanguage } from "./schema.js";
import { JupyterServer, serverAnswers } from "./server.js";
import { leaseSharedServer, type SharedLease } from "./shared-server.js";
import { KernelSpecs } from "./specs.js";

export type { CellOutcome } from "./cell.js";
export type { KernelLanguage, Sandbox } from "./schema.js";

/** Answers a cell's tool(name, args) call, as the run answers a model's. */
export type Bridge = (name: string, args: Record<string, unknown>) => Promise<ToolResult>;

export class KernelPool {
  readonly #workdir: string;
  readonly #home: string;
  readonly #processes: ProcessTracker;
  readonly #idleMs: number;
  readonly #startMs: number;
  readonly #options: KernelOptions;
  #server: JupyterServer | undefined;
  /** The run's use of the shared server, when its kernels are there. */
  #lease: SharedLease | undefined;
  /** Names the run's kernelspecs on the shared server. */
  readonly #id = `runbound-${randomBytes(4).toString("hex")}`;
  readonly #specs: KernelSpecs;
  #manager: Promise<KernelManager> | undefined;
  readonly #kernels = new Map<KernelLanguage, Promise<Kernel.IKernelConnection>>();
  readonly #logger: RunLogger;
  /** Aborted when the server under the current kernels goes away; cells in flight end as "died". */
  #lost = new AbortController();
  /** Languages whose kernel state went with a server that exited between cells: the next cell says so. */
  readonly #lostBetweenCells = new Map<KernelLanguage, string>();
  /** Said by the next cell of a kernel just started (where it runs, when that is not what the project has). */
  readonly #notices = new Map<KernelLanguage, string>();
  #disposing = false;
  /** Languages whose kernel was discarded (notebook_run's reset): their next cell says it runs on a fresh one. */
  readonly #fresh = new Set<KernelLanguage>();
  /** When each language's last cell ended (performance.now()), and the languages with a cell running. */
  readonly #lastCell = new Map<KernelLanguage, number>();
  readonly #running = new Set<KernelLanguage>();
  readonly #idleCheck: IdleCheck;

  constructor(
    workdir: string,
    processes: ProcessTracker,
    home: string,
    options: KernelOptions = {},
    logger: RunLogger = stderrLogger,
    /** Installs a missing component (runbound's Python environment, ZeroMQ, Deno) first, where the run allows it. */
    private readonly installer?: OnDemandInstaller,
  ) {
    this.#workdir = workdir;
    this.#home = home;
    this.#logger = logger;
    this.#processes = processes;
    this.#idleMs = (options.idleSeconds ?? 300) * 1000;
    this.#startMs = (options.startTimeoutSeconds ?? 60) * 1000;
    this.#options = options;
    const stopIdleMs = idleSecondsOf(options.stopIdleSeconds, "kernels.stopIdleSeconds", 0) * 1000;
    this.#idleCheck = new IdleCheck(stopIdleMs, () => void this.#stopIdle(stopIdleMs));
    this.#specs = new KernelSpecs({
      workdir,
      processes,
      runboundPython: homeLayout(home).python,
      home,
      javascript: options.javascript ?? "node",
      ...(options.sandbox ? { sandbox: options.sandbox } : {}),
    });
  }

  /** The hard limit of a cell, in seconds. */
  get maxCellSeconds(): number {
    return this.#options.maxCellSeconds ?? 1800;
  }

  /** Runs a cell; `bridge` answers the cell's tool() calls. */
  run(
    code: string,
    language: KernelLanguage,
    reset: boolean,
    bridge: Bridge,
    signal: AbortSignal,
    record?: (msg: KernelMessage.IIOPubMessage) => void,
  ): Promise<CellOutcome> {
    this.#running.add(language);
    return withRunLogger(this.#logger, () =>
      this.#run(code, language, reset, bridge, signal, record),
    ).finally(() => {
      this.#running.delete(language);
      this.#lastCell.set(language, performance.now());
    });
  }

  /** Ends the kernel of `language`, if one runs: its next cell starts a fresh one and says so. */
  async discard(language: KernelLanguage): Promise<void> {
    if (!this.#kernels.has(language)) return;
    await this.#shutdown(language);
    this.#fresh.add(language);
  }

  /**
   * Moves the kernel of `language` (started if need be) into `folder`, a host path, silently (no output, no
   * execution count): notebook_run runs a notebook's cells in its folder, as Jupyter does. Not on a harness's
   * server, whose kernels see other paths.
   */
  async chdir(language: KernelLanguage, folder: string): Promise<void> {
    if (this.#options.server) return;
    const kernel = await this.kernel(language);
    const where = JSON.stringify(this.#processes.confinedPlace.toPlace(folder));
    const code =
      language === "python"
        ? `__import__("os").chdir(${where})`
        : (this.#options.javascript ?? "node") === "node"
          ? `process.chdir(${where})`
          : `Deno.chdir(${where})`;
    await kernel.requestExecute({ code, silent: true, store_history: false }).done;
  }

  /** Shuts down the kernels without a cell for `idleMs` (kernels.stopIdleSeconds); the next cell says so. */
  async #stopIdle(idleMs: number): Promise<void> {
    for (const language of [...this.#kernels.keys()]) {
      if (this.#disposing || this.#running.has(language)) continue;
      if (performance.now() - (this.#lastCell.get(language) ?? 0) < idleMs) continue;
      this.#lostBetweenCells.set(
        language,
        `the last one was shut down after ${idleMs / 1000} s without a cell (kernels.stopIdleSeconds)`,
      );
      await this.#shutdown(language);
    }
  }

  async #run(
    ...[code, language, reset, bridge, signal, record]: Parameters<KernelPool["run"]>
  ): Promise<CellOutcome> {
    let restarted = this.#fresh.delete(language);
    if (reset) {
      await this.#shutdown(language);
      restarted = true;
    }
    const lostBefore = this.#lostBetweenCells.get(language);
    this.#lostBetweenCells.delete(language);
    const kernel = await this.kernel(language);
    const notice = this.#notices.get(language);
    this.#notices.delete(language);
    const result = await runCell(kernel, code, {
      idleMs: this.#idleMs,
      maxMs: this.maxCellSeconds * 1000,
      interruptGraceMs: (this.#options.interruptGraceSeconds ?? 10) * 1000,
      signal,
      lost: this.#lost.signal,
      ...(record ? { record } : {}),
      bridge: async (request) => {
        try {
          const { name, args } = JSON.parse(request) as { name: string; args: Record<string, unknown> };
          // The tools it reaches are not the kernel library: their console lines stay theirs.
          return cellReply(await outsideRunLogger(() => bridge(name, args ?? {})));
        } catch (error) {
          return JSON.stringify({ error: `tool() failed: ${(error as Error).message}` });
        }
      },
    });
    if (result.status === "died") {
      // This answer tells of the loss already; the next one must not tell it again.
      this.#lostBetweenCells.delete(language);
      await this.#shutdown(language);
      const external = this.#options.server;
      if (external && result.diedBecause && !(await serverAnswers(external)))
        result.diedBecause += `; the Jupyter server the harness gave (${external.url}) does not answer: once it is up again, the next cell starts a kernel there`;
    }
    return { ...result, restarted, ...(lostBefore ? { lostBefore } : {}), ...(notice ? { notice } : {}) };
  }

  /**
   * Our Jupyter server exited under the run (killed, out of memory): every kernel went with it. Cells in flight
   * end as "died"; the next cell starts a new server and says that the state was lost.
   */
  #serverExited(server: JupyterServer): void {
    if (this.#disposing || this.#server !== server) return;
    const why = "the Jupyter server exited";
    this.#logger({ level: "warn", source: "eval", message: `${why}; kernels' state is lost` });
    for (const [language, kernel] of this.#kernels) {
      this.#lostBetweenCells.set(language, `${why} since the last cell`);
      // Stop the library's reconnect attempts against the dead server.
      void kernel.then((k) => k.dispose()).catch(() => undefined);
    }
    this.#kernels.clear();
    this.#lost.abort(why);
    this.#lost = new AbortController();
    const manager = this.#manager;
    this.#manager = undefined;
    void manager?.then((m) => m.dispose()).catch(() => undefined);
    this.#server = undefined;
    const lease = this.#lease;
    this.#lease = undefined;
    if (lease) void lease.release().catch(() => undefined);
    else void server.stop(this.#processes).catch(() => undefined);
  }

  dispose(): Promise<void> {
    return withRunLogger(this.#logger, () => this.#dispose());
  }

  async #dispose(): Promise<void> {
    this.#disposing = true;
    this.#idleCheck.dispose();
    for (const language of [...this.#kernels.keys()]) await this.#shutdown(language);
    const manager = await this.#manager?.catch(() => undefined);
    manager?.dispose();
    const lease = this.#lease;
    this.#lease = undefined;
    if (lease) {
      for (const language of ["python", "javascript"] as const)
        lease.server.removeSpec(this.#specs.name(language));
      lease.server.removeRunFolder(this.#id);
      await lease.release();
    } else await this.#server?.stop(this.#processes);
    this.#server = undefined;
    this.#specs.dispose();
  }

  /** The kernel behind eval for `language` (started if need be): for harness UIs and the benchmarks. */
  kernel(language: KernelLanguage): Promise<Kernel.IKernelConnection> {
    let kernel = this.#kernels.get(language);
    if (!kernel) {
      // Started in the run's logging context: the library's later socket and timer callbacks inherit it.
      kernel = withRunLogger(this.#logger, () => this.#startKernel(language));
      this.#kernels.set(language, kernel);
      kernel.catch(() => this.#kernels.delete(language));
    }
    return kernel;
  }

  async #startKernel(language: KernelLanguage): Promise<Kernel.IKernelConnection> {
    const manager = await this.#managerReady();
    const external = this.#options.server;
    const name = external ? (language === "python" ? "python3" : "deno") : this.#specs.name(language);
    // A harness's server holds its kernels elsewhere: the host's cap counts the kernels runbound starts.
    const current = this.#kernels.get(language);
    if (!external)
      takeSlot(
        "kernels",
        this.#workdir,
        `${language} kernel`,
        () => current !== undefined && this.#kernels.get(language) === current,
      );
    if (language === "javascript" && !external) await this.#javascriptInstalled();
    const interpreter = external ? undefined : this.#chooseInterpreter(language);
    let kernel: Kernel.IKernelConnection;
    try {
      // The shared server's root is "/": the path makes the workdir the kernel's folder (the jupyter API takes it).
      const at = this.#lease ? { path: path.relative("/", this.#workdir) } : {};
      kernel = await manager.startNew({ name, ...at } as Kernel.IKernelOptions);
    } catch (error) {
      if (!external) throw error;
      // The harness's server: runbound neither starts nor restarts it, so say whose it is and what to do.
      throw new ToolError(
        `The Jupyter server the harness gave (${external.url}) could not start a ${name} kernel: ${errorMessage(error)}. If that server is down, start it again (the next eval connects anew); or create the run without kernels.server and runbound runs its own.`,
      );
    }
    // When a kernel dies the library reconnects by itself, and that promise rejects at dispose with nobody
    // listening (an unhandled rejection in the host). Observe it here.
    const reconnect = kernel.reconnect.bind(kernel);
    // (The library awaits it inside a `void` promise on autorestart, so the returned promise must not reject.)
    kernel.reconnect = () => reconnect().catch(() => undefined);
    const stderrFile = this.#server?.kernelStderr(kernel.id);
    try {
      await answered(kernel, this.#startMs);
    } catch (error) {
      if (!(error instanceof KernelStartFailure)) throw error;
      await kernel.shutdown().catch(() => kernel.dispose());
      const tail = stderrTail(stderrFile);
      if (stderrFile) rmSync(stderrFile, { force: true });
      throw new ToolError(startFailure(language, interpreter, error, this.#startMs, tail));
    }
    // Dead between cells (killed, out of memory): the next cell says the state is gone, in a fresh kernel.
    onGone(kernel, () => {
      // Not when runbound ended it (reset, idle, dispose) or a cell saw it go (that answer said so).
      if (this.#disposing || this.#running.has(language) || this.#kernels.get(language) !== current) return;
      // What it wrote last is not said: ipykernel sends its process's stderr to the cell, so nothing is left there.
      this.#lostBetweenCells.set(language, "the last one died between cells");
      void this.#shutdown(language);
    });
    const code = prelude(language, this.#options.javascript ?? "node");
    await kernel.requestExecute({ code, silent: true, store_history: false }).done;
    return kernel;
  }

  async #shutdown(language: KernelLanguage): Promise<void> {
    const kernel = await this.#kernels.get(language)?.catch(() => undefined);
    this.#kernels.delete(language);
    if (!kernel) return;
    await kernel.shutdown().catch(() => kernel.dispose());
    const stderrFile = this.#server?.kernelStderr(kernel.id);
    if (stderrFile) rmSync(stderrFile, { force: true });
  }

  #managerReady(): Promise<KernelManager> {
    this.#manager ??= (async () => {
      const external = this.#options.server;
      if (external) {
        const settings = ServerConnection.makeSettings({
          baseUrl: external.url,
          wsUrl: external.url.replace(/^http/, "ws"),
          token: external.token,
          appendToken: true,
          WebSocket: WebSocket as unknown as typeof globalThis.WebSocket,
          fetch: globalThis.fetch,
        });
        const manager = new KernelManager({ serverSettings: settings });
        await manager.ready;
        return manager;
      }
      const serverPython = homeLayout(this.#home).python;
      const ready = async () =>
        existsSync(serverPython) &&
        (await pythonImports(serverPython, ["jupyter_server", "ipykernel"], childEnvironment(process.env)));
      if (!(await (this.installer ? this.installer.ensure("python", ready) : ready()))) {
        throw new ToolError(
          `eval needs runbound's Python environment (jupyter_server, ipykernel), which is not installed in runbound's home (${this.#home}). Install it: ${setupCommand("python")}; then call eval again.`,
        );
      }
      const settings = await this.#startServer(serverPython);
      const manager = new KernelManager({ serverSettings: settings });
      await manager.ready;
      return manager;
    })();
    this.#manager.catch(() => {
      this.#manager = undefined;
    });
    return this.#manager;
  }

  /**
   * The shared server for a run on the host (its kernels reach the server's loopback ports); a confined run's
   * kernels have a loopback of their own, so their server is the run's own, in its sandbox.
   */
  async #startServer(python: string): Promise<ServerConnection.ISettings> {
    const place = this.#processes.confinedPlace;
    if (place.kind === "host") {
      const lease = await leaseSharedServer(python, this.#startMs, (server) => this.#serverExited(server));
      this.#lease = lease;
      this.#server = lease.server;
      // Connection files in a folder of the run's own in the server's private folder, never in a folder a process
      // of a run can replace with a link (the host's server wrote through such a link into .git/hooks and into
      // runbound's Python environment).
      const folder = lease.server.runFolder(this.#id);
      this.#specs.share(this.#id, folder);
      for (const spec of [this.#specs.python(python), this.#specs.javascript()]) lease.server.writeSpec(spec);
      return lease.settings;
    }
    // In a container the server's private folder must be one both sides see: the place's scratch folder.
    const server = new JupyterServer(place.kind === "container" ? place.scratch : undefined);
    this.#server = server;
    const settings = await server.start(
      python,
      this.#workdir,
      [this.#specs.python(python), this.#specs.javascript()],
      this.#processes,
      this.#startMs,
      environmentsOutside(this.#workdir, this.#home),
    );
    void server.exited?.then(() => this.#serverExited(server));
    return settings;
  }

  /** The JavaScript kernel's component, installed first where the run allows it (else #chooseInterpreter says). */
  async #javascriptInstalled(): Promise<void> {
    const node = (this.#options.javascript ?? "node") === "node";
    await this.installer?.ensure(
      node ? "node-kernel" : "deno",
      () => (node ? zeromqFolder(this.#home) : denoBinary(this.#home)) !== undefined,
    );
  }

  /** The pid of the Jupyter server under the run's kernels, shared or its own, when one runs. */
  get serverPid(): number | undefined {
    return this.#server?.pid;
  }

  /**
   * Before a kernel of runbound's server starts: its interpreter is chosen again (the project may have installed
   * ipykernel since), its spec rewritten, and what the first cell must be told is kept.
   */
  #chooseInterpreter(language: KernelLanguage): Interpreter {
    if (language === "javascript" && (this.#options.javascript ?? "node") === "node") {
      if (!zeromqFolder(this.#home))
        throw new ToolError(
          `JavaScript cells run in runbound's kernel on this Node, whose ZeroMQ is not installed in runbound's home (${this.#home}). Install it: ${setupCommand("node-kernel")}; then call eval again.`,
        );
      this.#server?.writeSpec(this.#specs.javascript());
      return { program: process.execPath, project: false };
    }
    if (language === "javascript") {
      const deno = denoBinary(this.#home);
      if (!deno)
        throw new ToolError(
          `JavaScript cells run in Deno's kernel here (kernels.javascript "deno"), which is not installed in runbound's home (${this.#home}). Install it: ${setupCommand("deno")}; then call eval again.`,
        );
      this.#server?.writeSpec(this.#specs.javascript());
      return { program: deno, project: false };
    }
    const choice = pythonForCells(this.#workdir, this.#home);
    this.#server?.writeSpec(this.#specs.python(choice.python));
    if (choice.notice) this.#notices.set(language, choice.notice);
    else this.#notices.delete(language);
    const project = choice.python !== homeLayout(this.#home).python;
    const inside = path.relative(this.#workdir, choice.python);
    return { program: project && !inside.startsWith("..") ? inside : choice.python, project };
  }
}
