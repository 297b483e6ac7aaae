/**
 * One agent run: its workdir, its conversation, the live resources it wired, and the links through which a
 * harness reaches its tools. `dispose()` ends all of it.
 */

import { realpath, stat } from "node:fs/promises";
import path from "node:path";
import type { McpServer } from "@modelcontextprotocol/server";
import { ApprovalGate } from "./approvals.js";
import { errorMessage } from "./errors.js";
import { FileStore } from "./files/store.js";
import { visibleLine } from "./files/visible.js";
import { Lanes } from "./lanes.js";
import { type RunLogger, stderrLogger } from "./log.js";
import type { TrustAsked } from "./lsp/trust/trust.js";
import type { Mounted } from "./mount.js";
import { choosePlace } from "./proc/confined.js";
import { ProcessTracker } from "./proc/tracker.js";
import { QuestionDesk } from "./questions/desk.js";
import {
  type AfterWriteHook,
  type AnyToolSpec,
  type Caller,
  type CallRequest,
  type Dispatch,
  Registry,
  type ToolContext,
} from "./registry.js";
import type { ResourceKey, Resources } from "./resources.js";
import type { RunLink } from "./run-link.js";
import { loadRunModules, type RunModules } from "./run-modules.js";
import { type CallOptions, checkOptionKeys, type LinkOptions, type RunOptions } from "./run-options.js";
import { defaultHome, homeLayout } from "./setup/home.mjs";
import { OnDemandInstaller } from "./setup/on-demand.js";
import { isSurface, SURFACES, type Surface, surfaceSees } from "./surfaces.js";
import type { ToolResult } from "./tool-result.js";
import { VERSION } from "./version.js";

const SERVER_INFO = { name: "runbound", version: VERSION };
/** How long dispose waits for one resource's graceful end before it ends the run's processes anyway. */
const DISPOSE_GRACE_MS = 10_000;

export type { CallOptions, LinkOptions, QuestionsOption, RunOptions } from "./run-options.js";

export async function createRun(options: RunOptions): Promise<Run> {
  checkOptionKeys(options);
  let workdir: string;
  try {
    workdir = await realpath(options.workdir);
    if (!(await stat(workdir)).isDirectory()) throw new Error("not a directory");
  } catch (error) {
    throw new Error(
      `createRun: workdir "${options.workdir}" is not a usable directory (${errorMessage(error)})`,
    );
  }
  return new Run(workdir, options, await loadRunModules(options));
}

export class Run {
  readonly workdir: string;
  /** runbound's home for this run (RunOptions.home, else the default). */
  readonly home: string;
  readonly conversationId: string | undefined;
  readonly processes: ProcessTracker;
  /** Why this run's code-running processes are not confined although it asked for confinement where possible. */
  readonly unconfined: string | undefined;
  readonly approvals: ApprovalGate;
  readonly #resources: Partial<Resources> = {};
  readonly #registry: Registry;
  readonly #dispatch: Dispatch;
  readonly #lanes = new Lanes();
  readonly #hooks: AfterWriteHook[] = [];
  readonly #links = new Set<RunLink>();
  readonly #servers = new Set<Mounted>();
  readonly #ended = new AbortController();
  readonly #noted = new Set<string>();
  readonly #modules: RunModules;
  readonly #installer: OnDemandInstaller;
  readonly #logger: RunLogger;
  /** Whether what the run starts reaches the network: not in a sandbox whose network is off (tools/list says so). */
  readonly #network: boolean;
  #disposing: Promise<void> | undefined;

  /** Use createRun (it checks the workdir). */
  constructor(workdir: string, options: RunOptions, modules: RunModules) {
    this.workdir = workdir;
    this.#modules = modules;
    this.home = options.home ? path.resolve(options.home) : defaultHome();
    this.#installer = new OnDemandInstaller(this.home, options.install ?? "never");
    this.#logger = options.logger ?? stderrLogger;
    const confined = choosePlace(
      options.confine ?? "preferred",
      workdir,
      this.home,
      options.sandbox,
      options.container,
    );
    this.unconfined = confined.unconfined;
    this.#network = !(confined.place.kind === "confined" && options.sandbox?.network === "off");
    this.processes = new ProcessTracker({
      confined: confined.place,
      ...(options.env ? { env: options.env } : {}),
    });
    this.conversationId = options.conversationId;
    if (options.conversationId) this.#resources.conversation = options.conversationId;
    if (options.files !== false) {
      this.#resources.files = new FileStore(workdir);
      if (modules.notebooks) this.#resources.notebooks = new modules.notebooks.NotebookBook(workdir);
    }
    if (modules.ast)
      this.#resources.ast = new modules.ast.AstEngine(
        workdir,
        this.processes,
        typeof options.ast === "object" ? options.ast : {},
        homeLayout(this.home).npmPrefix,
      );
    if (options.vibe && modules.vibe) {
      // Workers' calls go through the same gate as the model's, but say who made them (approval cards show it).
      this.#resources.vibe = new modules.vibe.VibePool(workdir, this.processes, options.vibe, (surface) =>
        this.#link(surface, { name: "runbound-worker", version: VERSION }, "worker"),
      );
    }
    if (modules.kernels) {
      this.#resources.kernels = new modules.kernels.KernelPool(
        workdir,
        this.processes,
        this.home,
        typeof options.kernels === "object" ? options.kernels : {},
        options.logger,
        this.#installer,
      );
    }
    if (modules.debug && options.conversationId) {
      const debugOptions = typeof options.debug === "object" ? options.debug : {};
      this.#resources.debug = new modules.debug.DebugSupervisor(
        workdir,
        options.conversationId,
        this.processes,
        this.home,
        debugOptions,
        options.confine === "required",
        this.#installer,
      );
    }
    if (modules.lsp) this.#wireLsp(options, modules.lsp);
    const questions =
      options.questions && ("port" in options.questions ? options.questions : { port: options.questions });
    const space = questions?.space ?? options.conversationId;
    if (questions && space) {
      this.#resources.questions = new QuestionDesk({
        port: questions.port,
        space,
        ...(questions.timeoutSeconds !== undefined ? { timeoutSeconds: questions.timeoutSeconds } : {}),
      });
    }
    this.approvals = new ApprovalGate(options.approver, this.#resources.questions);
    this.#registry = new Registry({
      isWired: (key) => this.#resources[key] !== undefined,
      whyUnwired: (key) => whyUnwired(options, key),
      afterWrite: () => this.#hooks,
    });
    this.#dispatch = modules.gate.createDispatcher({
      registry: this.#registry,
      lanes: this.#lanes,
      approvals: this.approvals,
      afterWrite: () => this.#hooks,
      runSignal: this.#ended.signal,
      context: (request, signal) => this.#context(request, signal),
      firstAnswerNote: (spec) => this.#unconfinedNote(spec),
      installsOnDemand: options.install === "on-demand",
    });
    for (const spec of modules.tools.BUILTIN_TOOLS) this.#registry.add(spec);
  }

  /** Language servers (started lazily) and their diagnostics on every write. */
  #wireLsp(options: RunOptions, wiring: NonNullable<RunModules["lsp"]>): void {
    const trust = new wiring.WorkspaceTrust(options.trust, (what, asked) => this.#askTrust(what, asked));
    const lspOptions = typeof options.lsp === "object" ? options.lsp : {};
    const servers = new wiring.LspSupervisor(
      this.workdir,
      this.processes,
      this.home,
      lspOptions,
      trust,
      this.#installer,
    );
    const lsp = new wiring.LanguageService(servers, this.processes);
    this.#resources.lsp = lsp;
    this.#hooks.push({
      key: "diagnostics",
      schema: wiring.afterWriteDiagnosticsSchema,
      run: (paths, signal) => lsp.afterWrite(paths, signal),
    });
  }

  /** Said once per tool that runs code, when the run asked to be confined where possible and could not be. */
  #unconfinedNote(spec: AnyToolSpec): string | undefined {
    if (!spec.runsCode || !this.unconfined || this.#noted.has(spec.name)) return undefined;
    this.#noted.add(spec.name);
    return this.unconfined;
  }

  get disposed(): boolean {
    return this.#ended.signal.aborted;
  }

  /** Aborted when the run is disposed: resources stop their work on it. */
  get signal(): AbortSignal {
    return this.#ended.signal;
  }

  /** Whether a resource is wired for this run. */
  wired(key: ResourceKey): boolean {
    return this.#resources[key] !== undefined;
  }

  /** A wired resource (e.g. `run.resource("lsp")?.status()` for a harness UI), or undefined when not wired. */
  resource<K extends ResourceKey>(key: K): Resources[K] | undefined {
    return this.#resources[key];
  }

  /** The names of the tools a surface lists. */
  tools(surface: Surface): string[] {
    return this.#registry.visible(checkSurface(surface)).map((spec) => spec.name);
  }

  /** A link to this run's tools for `surface`: private and in-memory, nothing listens (see RunLink). */
  async link(options: LinkOptions): Promise<RunLink> {
    const surface = checkSurface(options.surface);
    return this.#link(
      surface,
      options.clientInfo ?? { name: `runbound-${surface}`, version: VERSION },
      "model",
    );
  }

  async #link(
    surface: Surface,
    clientInfo: { name: string; version: string },
    caller: Caller,
  ): Promise<RunLink> {
    this.#assertLive("link");
    const { mountSurface } = this.#modules.mount;
    const registry = this.#registry;
    const link = await this.#modules.link.linkPrivately(
      {
        // One server per request (how the SDK serves 2026-07-28): it lists the tools the surface sees then.
        serve: () =>
          mountSurface(registry, this.#dispatch, SERVER_INFO, {
            surface,
            caller,
            network: this.#network,
            live: false,
          }).server,
        onToolAdded: (listener) =>
          registry.onAdd((spec) => {
            if (surfaceSees(surface, spec.tier)) listener();
          }),
        onEnd: () => this.#links.delete(link),
      },
      clientInfo,
    );
    this.#links.add(link);
    return link;
  }

  /**
   * The MCP SDK (v2) McpServer for `surface`, unconnected, for an in-process host that connects it itself (it
   * speaks the 2025 protocol versions over the SDK's transports). Hosts on the v1 SDK use their adapter.
   */
  mcpServer(options: { surface: Surface }): McpServer {
    const surface = checkSurface(options.surface);
    this.#assertLive("mcpServer");
    const mounted = this.#modules.mount.mountSurface(this.#registry, this.#dispatch, SERVER_INFO, {
      surface,
      network: this.#network,
    });
    this.#servers.add(mounted);
    return mounted.server;
  }

  /** Adds a harness tool behind the same gate. Throws if a resource it needs is not wired or the name is taken. */
  registerTool(spec: AnyToolSpec): void {
    this.#assertLive("registerTool");
    const missing = this.#registry.missing(spec);
    if (missing.length) {
      throw new Error(`registerTool: ${spec.name} needs ${missing.join(", ")}, which this run did not wire`);
    }
    this.#registry.add(spec);
  }

  /** Adds an after-write hook; writing tools listed on links made afterwards carry its field in their output. */
  addAfterWriteHook(hook: AfterWriteHook): void {
    if (this.#hooks.some((h) => h.key === hook.key))
      throw new Error(`an after-write hook "${hook.key}" exists already`);
    this.#hooks.push(hook);
  }

  /**
   * Calls a tool without a link, as `surface` sees it — the entry for kernels' tool() bridge and workers. The
   * same gate applies: a surface that cannot see a tool cannot call it.
   */
  callTool(name: string, args: Record<string, unknown>, options: CallOptions): Promise<ToolResult> {
    return this.#dispatch({
      name,
      args,
      surface: checkSurface(options.surface),
      caller: options.caller ?? "bridge",
      signal: options.signal ? AbortSignal.any([options.signal, this.#ended.signal]) : this.#ended.signal,
    });
  }

  /** Ends everything the run started: calls in flight, questions, links, and every process tree. */
  dispose(): Promise<void> {
    this.#disposing ??= this.#dispose();
    return this.#disposing;
  }

  async #dispose(): Promise<void> {
    this.#ended.abort(new Error("the run was disposed"));
    const links = [...this.#links];
    this.#links.clear();
    await Promise.allSettled(links.map((link) => link.close()));
    for (const mounted of this.#servers) {
      mounted.unmount();
      await mounted.server.close().catch(() => undefined);
    }
    this.#servers.clear();
    const resources = this.#resources;
    await this.#ending("language servers", resources.lsp?.dispose());
    await this.#ending("structural search", resources.ast?.dispose());
    await this.#ending("the debug session", resources.debug?.dispose());
    await this.#ending("the kernels", resources.kernels?.dispose());
    await this.#ending("the workers", resources.vibe?.dispose());
    await this.processes.killAll();
  }

  /**
   * One resource's graceful end, within DISPOSE_GRACE_MS: a Jupyter server that stops answering held dispose for
   * good (its kernels' shutdown requests never returned). Past the grace, the run's processes are ended anyway.
   */
  async #ending(what: string, ended: Promise<void> | undefined): Promise<void> {
    if (!ended) return;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<"late">((resolve) => {
      timer = setTimeout(() => resolve("late"), DISPOSE_GRACE_MS);
    });
    const outcome = await Promise.race([ended.catch(() => undefined), late]);
    clearTimeout(timer);
    if (outcome === "late")
      this.#logger({
        level: "warn",
        source: "run",
        message: `${what} did not end within ${DISPOSE_GRACE_MS / 1000} s of dispose; the run's processes are ended without waiting for them`,
      });
  }

  #context(request: CallRequest, signal: AbortSignal): ToolContext {
    const resources = this.#resources;
    return {
      workdir: this.workdir,
      surface: request.surface,
      caller: request.caller,
      signal,
      processes: this.processes,
      progress: request.progress ?? (async () => undefined),
      callTool: (name, args) =>
        this.callTool(name, args, { surface: request.surface, caller: "bridge", signal }),
      use<K extends ResourceKey>(key: K): Resources[K] {
        const resource = resources[key];
        if (resource === undefined)
          throw new Error(`resource "${key}" is not wired (the tool did not declare it in needs)`);
        return resource as Resources[K];
      },
    };
  }

  /** Workspace trust "ask": one approval, as for an exec-tier call (running the project's code is one). */
  async #askTrust(what: string, asked: TrustAsked): Promise<boolean> {
    const decision = await this.approvals.check(
      {
        tool: "lsp",
        title: "lsp (workspace trust)",
        tier: "exec",
        surface: asked.surface,
        caller: asked.caller,
        summary: visibleLine(`run the workspace's own code for the rest of this run: ${what}`),
        arguments: { trust: "workspace", runs: what },
      },
      asked.signal,
    );
    return decision.allow;
  }

  #assertLive(what: string): void {
    if (this.disposed) throw new Error(`${what}: this run has been disposed`);
  }
}

function checkSurface(surface: unknown): Surface {
  if (!isSurface(surface))
    throw new Error(`unknown surface ${JSON.stringify(surface)}; use one of ${SURFACES.join(", ")}`);
  return surface;
}

/** Why a resource is not wired, from the run's options, for the refusal a model (and its harness's log) reads. */
function whyUnwired(options: RunOptions, key: ResourceKey): string | undefined {
  if (Reflect.get(options, key) === false) return `createRun({ ${key}: false })`;
  if (options.conversationId) return undefined;
  if (key === "debug")
    return "createRun was given no conversationId: debug keeps one session per conversation";
  if (key === "questions" && options.questions)
    return "createRun was given no conversationId or questions.space: a card needs a place to be shown";
  if (key === "conversation") return "createRun was given no conversationId";
  return undefined;
}
