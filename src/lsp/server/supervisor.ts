/**
 * The language servers of one run: one per (root, server id), started lazily on the first call that needs it and
 * shared by every surface. A crashed server, or one that timed out three times in a row, is restarted with backoff
 * and its tracked documents are opened again. `status` says, for every catalog server, whether and why not.
 */

import { existsSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { ToolError } from "../../errors.js";
import { rootAbove } from "../../files/roots.js";
import { shownPath } from "../../files/visible.js";
import { checkedCap, takeSlot } from "../../host-limits.js";
import { IdleCheck, idleSecondsOf } from "../../idle.js";
import { type Resolved, resolveBinary } from "../../proc/binaries.js";
import type { Place } from "../../proc/place.js";
import type { ProcessTracker } from "../../proc/tracker.js";
import { npmBin, tsgoBinary, tsserverPath } from "../../setup/npm.js";
import type { OnDemandInstaller } from "../../setup/on-demand.js";
import { catalog, languageOf, rootsOf, type ServerSpec } from "../catalog.js";
import type { LspOptions, LspTimeouts } from "../options.js";
import { projectCodeAt, untrustedNotes, withoutProjectCode } from "../trust/project-code.js";
import { WorkspaceTrust } from "../trust/trust.js";
import { vuePluginFolder, vueWrapperLocation } from "../trust/vue-plugin.js";
import { LspClient } from "./client.js";
import {
  availability,
  type Handle,
  type ServerStatus,
  statusOf,
  toMakeRoom,
  type UnavailableServer,
} from "./handle.js";

const MAX_TIMEOUTS = 3;
const BACKOFF_MS = [500, 1000, 2000, 5000, 10_000, 30_000];

export class LspSupervisor {
  /** Every server spec as configured; `specs` is what runs at the current trust. */
  readonly #specs: ServerSpec[];
  /** The catalog as an untrusted workspace runs it (made once: every call that finds a file's server reads it). */
  #untrustedSpecs: ServerSpec[] | undefined;
  readonly trust: WorkspaceTrust;
  readonly timeouts: LspTimeouts;
  /** runbound's home, where `runbound setup` put what is not an npm dependency. */
  readonly home: string;
  readonly workdir: string;
  readonly #processes: ProcessTracker;
  readonly #handles = new Map<string, Handle>();
  readonly #idleMs: number;
  readonly #maxServers: number | undefined;
  readonly #idleCheck: IdleCheck;
  #disposed = false;
  /** Called after each server start (the resource starts watching the workdir then). */
  onStart: (() => void) | undefined;

  /**
   * `trust`: whether the workspace's own code may run — its node_modules/.bin and .venv servers, rust-analyzer's
   * build scripts and proc macros, cargo check. Untrusted (the default), runbound's own servers only, with those off.
   */
  constructor(
    workdir: string,
    processes: ProcessTracker,
    home: string,
    options: LspOptions = {},
    trust: WorkspaceTrust = new WorkspaceTrust(undefined),
    /** Installs a missing server's component first, where the run allows it. */
    readonly installer?: OnDemandInstaller,
  ) {
    this.trust = trust;
    this.workdir = workdir;
    this.#processes = processes;
    this.home = home;
    const base = catalog({
      typescript: options.typescript ?? "tsgo",
      python: options.python ?? "pyright",
      embedded: {
        tsgo: tsgoBinary,
        tsserverPath: () => tsserverPath(home),
        typescriptLanguageServer: () =>
          npmBin("typescript-language-server", "typescript-language-server", home),
        vuePlugin: () => vuePluginFolder(home),
        vueWrapperLocation: () => vueWrapperLocation(home),
      },
    });
    const overrides = options.servers ?? [];
    const specs = [...base.filter((s) => !overrides.some((o) => o.id === s.id)), ...overrides];
    this.#specs = specs;
    this.timeouts = { startMs: 30_000, requestMs: 15_000, diagnosticsMs: 10_000, ...options.timeouts };
    this.#idleMs = idleSecondsOf(options.idleSeconds, "lsp.idleSeconds") * 1000;
    this.#maxServers = checkedCap(options.maxServers, "lsp.maxServers");
    this.#idleCheck = new IdleCheck(this.#idleMs, () => void this.#stopIdle());
  }

  get trusted(): boolean {
    return this.trust.trusted;
  }

  /** Where a server that runs the project's code runs: the run's confined place, or the host. */
  get confinedPlace(): Place {
    return this.#processes.confinedPlace;
  }

  get specs(): ServerSpec[] {
    if (this.trusted) return this.#specs;
    this.#untrustedSpecs ??= this.#specs.map(withoutProjectCode);
    return this.#untrustedSpecs;
  }

  /**
   * What trusting the workspace would run for `file` (its server's own binary in the project, or what the server
   * runs of the project's code), or undefined when trust changes nothing there.
   */
  projectCodeFor(file: string): string | undefined {
    const spec = this.#specs.find((s) => languageOf(s, file) !== undefined);
    const root = spec && this.rootFor(spec, file);
    return spec && root ? projectCodeAt(spec, root, this.workdir, this.home) : undefined;
  }

  /** What trusting the workspace would run anywhere in it (for requests that span it). */
  projectCodeAnywhere(): string | undefined {
    for (const spec of this.#specs) {
      const root = rootsOf(this.workdir, spec)[0];
      const what = root && projectCodeAt(spec, root, this.workdir, this.home);
      if (what) return what;
    }
    return undefined;
  }

  /** After the workspace became trusted: servers started without its code stop, and start again on the next call. */
  async trustChanged(): Promise<void> {
    for (const handle of this.#handles.values()) {
      await this.#stop(handle, "the workspace became trusted");
      handle.spec = this.specs.find((s) => s.id === handle.spec.id) ?? handle.spec;
      handle.restarts = 0;
      handle.nextAttempt = 0;
    }
  }

  specFor(file: string): ServerSpec | undefined {
    return this.specs.find((spec) => languageOf(spec, file) !== undefined);
  }

  /** The nearest folder at or above the file (not above the workdir) holding one of the spec's root markers. */
  rootFor(spec: ServerSpec, file: string): string | undefined {
    return rootAbove(this.workdir, path.dirname(file), spec.rootMarkers);
  }

  /** The running (or newly started) server for `file`, or a ToolError saying exactly why there is none. */
  async clientFor(file: string, rel: string): Promise<{ client: LspClient; languageId: string }> {
    if (this.#disposed) throw new ToolError("The run has ended; its language servers are stopped.");
    const spec = this.specFor(file);
    if (!spec) {
      const known = [...new Set(this.specs.flatMap((s) => Object.keys(s.languages)))].join(" ");
      throw new ToolError(
        `No language server in runbound's catalog handles ${shownPath(rel)} (by its extension). Handled: ${known}.`,
      );
    }
    const languageId = languageOf(spec, file)!;
    const root = this.rootFor(spec, file);
    if (!root) {
      throw new ToolError(
        `${spec.name} cannot serve ${shownPath(rel)}: no root marker (${spec.rootMarkers.join(", ")}) in its folder or any folder above it inside the workdir. Add one (e.g. ${spec.rootMarkers[0]}) at the project's root.`,
      );
    }
    const key = `${spec.id}@${root}`;
    let handle = this.#handles.get(key);
    if (!handle) {
      handle = {
        spec,
        root,
        client: undefined,
        starting: undefined,
        restarts: 0,
        nextAttempt: 0,
        startedAt: 0,
        tracked: new Map(),
        usedAt: 0,
        idle: { stops: 0, stopped: false },
      };
      this.#handles.set(key, handle);
    }
    handle.tracked.set(file, languageId);
    handle.usedAt = performance.now();
    return { client: await this.#ensure(handle), languageId };
  }

  async #ensure(handle: Handle): Promise<LspClient> {
    const client = handle.client;
    if (client && (client.state === "ready" || client.state === "indexing")) {
      if (client.consecutiveTimeouts < MAX_TIMEOUTS) return client;
      await this.#stop(handle, `it did not answer ${MAX_TIMEOUTS} requests in a row`);
    }
    if (handle.starting) return handle.starting;
    const wait = handle.nextAttempt - Date.now();
    if (client && client.state === "crashed" && wait > 0) {
      throw new ToolError(
        `The ${handle.spec.name} server for ${this.#rel(handle.root)} crashed (${client.lastError ?? "no output"}); it restarts in ${Math.ceil(wait / 1000)} s. Call again then, or use \`lsp status\`.`,
      );
    }
    handle.starting = this.#start(handle).finally(() => {
      handle.starting = undefined;
    });
    return handle.starting;
  }

  async #start(handle: Handle): Promise<LspClient> {
    const resolve = () =>
      handle.spec.candidates
        .map((c) => resolveBinary(c, handle.root, this.workdir, this.home, { project: this.trusted }))
        .find((r) => r !== undefined);
    let resolved = resolve();
    if (!resolved && handle.spec.component && this.installer) {
      await this.installer.ensure(handle.spec.component, () => resolve() !== undefined);
      resolved = resolve();
    }
    if (!resolved) {
      throw new ToolError(
        `${handle.spec.name} cannot serve ${this.#rel(handle.root)}: its binary (${handle.spec.candidates.map((c) => c.name).join(" or ")}) was not found in the project, runbound's dependencies, runbound's home or PATH.${handle.spec.install ? ` Fix: ${handle.spec.install}.` : " Install it, or give the server's command in createRun({ lsp: { servers } })."}`,
      );
    }
    const previous = handle.client;
    // Trusted, a server that is the project's own or runs its build scripts runs the project's code.
    const runsProjectCode =
      this.trusted && (resolved.from === "project" || handle.spec.untrusted !== undefined);
    await this.#makeRoom(handle);
    const client = new LspClient(handle.spec, handle.root, resolved, runsProjectCode);
    takeSlot(
      "languageServers",
      this.workdir,
      `${handle.spec.id} @ ${this.#rel(handle.root)}`,
      () => handle.client === client && client.state !== "stopped" && client.state !== "crashed",
    );
    handle.client = client;
    handle.idle.stopped = false;
    handle.startedAt = Date.now();
    try {
      await client.start(this.#processes, (c) => this.#crashed(handle, c), this.timeouts.startMs);
    } catch (error) {
      const why = (error as Error).message;
      await this.#stop(handle, `it failed to start: ${why}`);
      client.state = "crashed";
      client.lastError ??= why;
      // The start's own error may already say what happens next (a crash does): said once.
      const next = /`lsp status`/.test(why) ? "" : " `lsp status` shows its last output.";
      throw new ToolError(
        `The ${handle.spec.name} server for ${this.#rel(handle.root)} did not start: ${why.replace(/\.$/, "")}.${next}`,
      );
    }
    this.onStart?.();
    if (previous) {
      // A restart: the server has forgotten every document; open the tracked ones again.
      for (const [file, languageId] of handle.tracked) {
        if (existsSync(file)) await client.sync(file, languageId).catch(() => undefined);
      }
    }
    return client;
  }

  #crashed(handle: Handle, client: LspClient): void {
    if (handle.client !== client || this.#disposed) return;
    // A server that ran a while before crashing starts the backoff over.
    if (Date.now() - handle.startedAt > 60_000) handle.restarts = 0;
    handle.nextAttempt =
      Date.now() + (BACKOFF_MS[Math.min(handle.restarts, BACKOFF_MS.length - 1)] ?? 30_000);
    handle.restarts++;
    const pid = client.pid;
    if (pid !== undefined) void this.#processes.kill(pid, 500);
  }

  async #stop(handle: Handle, why: string): Promise<void> {
    const client = handle.client;
    if (!client) return;
    client.lastError = why;
    await client.stop();
    if (client.pid !== undefined) await this.#processes.kill(client.pid, 1000);
    handle.restarts++;
  }

  /** A file that no longer exists: closed on every server that had it open, and no longer re-opened. */
  async forget(file: string): Promise<void> {
    const uri = pathToFileURL(file).href;
    for (const handle of this.#handles.values()) {
      handle.tracked.delete(file);
      await handle.client?.close(uri).catch(() => undefined);
    }
  }

  /** Clients that are up, for requests that span the workspace. */
  runningClients(): LspClient[] {
    return [...this.#handles.values()]
      .map((h) => h.client)
      .filter((c): c is LspClient => c !== undefined && (c.state === "ready" || c.state === "indexing"));
  }

  /** The running clients and those stopped for idleness, started again: for a request that spans the workspace. */
  async liveClients(): Promise<LspClient[]> {
    const idle = [...this.#handles.values()].filter((h) => h.idle.stopped && !this.#disposed);
    await Promise.all(idle.map((h) => this.#ensure(h).catch(() => undefined)));
    return this.runningClients();
  }

  /** Under the run's cap (lsp.maxServers), stops the least recently used other server, or refuses when all are busy. */
  async #makeRoom(starting: Handle): Promise<void> {
    const cap = this.#maxServers;
    const evicted =
      cap === undefined ? undefined : toMakeRoom(this.#handles.values(), starting, cap, (d) => this.#rel(d));
    if (evicted) await this.#park(evicted, `to make room (lsp.maxServers ${cap})`);
  }

  /** Stops a server that starts again on next use, saying why in status. */
  async #park(handle: Handle, why: string): Promise<void> {
    const client = handle.client;
    if (!client) return;
    await client.stop(1000);
    if (client.pid !== undefined) await this.#processes.kill(client.pid, 1000);
    // A call may have started it again meanwhile.
    if (handle.client !== client) return;
    handle.idle.stops++;
    handle.idle.stopped = true;
    handle.idle.why = why;
  }

  /** Stops every server idle for the run's idle time: no request in flight, none begun or ended, no call. */
  async #stopIdle(): Promise<void> {
    const now = performance.now();
    for (const handle of this.#handles.values()) {
      const client = handle.client;
      if (!client || handle.starting || client.inFlight > 0) continue;
      if (client.state !== "ready" && client.state !== "indexing") continue;
      if (now - Math.max(handle.usedAt, client.lastUsed) < this.#idleMs) continue;
      await this.#park(handle, `after ${this.#idleMs / 1000} s idle`);
    }
  }

  /** Restarts the servers of `file`'s root (or every running one). */
  async reload(file?: string): Promise<ServerStatus[]> {
    const spec = file ? this.specFor(file) : undefined;
    const root = spec && file ? this.rootFor(spec, file) : undefined;
    const handles = [...this.#handles.values()].filter(
      (h) => !file || (h.spec.id === spec?.id && h.root === root),
    );
    const restarted: Handle[] = [];
    for (const handle of handles) {
      // A server that never started (its binary missing, say) has nothing to restart: the next call starts it,
      // with no backoff left. Listing it crashed reload (it has no client to describe).
      const started = handle.client !== undefined;
      await this.#stop(handle, "reloaded");
      handle.restarts = 0;
      handle.nextAttempt = 0;
      if (!started) continue;
      await this.#ensure(handle).catch(() => undefined);
      if (handle.client) restarted.push(handle);
    }
    return restarted.map((h) => statusOf(h, this.#rel(h.root), this.#idleMs));
  }

  /**
   * A server's roots in the workdir, and the binary that would serve the first (or the workdir, without a root):
   * what `status`, a start and `runbound doctor` all go by.
   */
  locate(spec: ServerSpec): { roots: string[]; resolved: Resolved | undefined } {
    const roots = rootsOf(this.workdir, spec);
    const at = roots[0] ?? this.workdir;
    const resolved = spec.candidates
      .map((c) => resolveBinary(c, at, this.workdir, this.home, { project: this.trusted }))
      .find((r) => r !== undefined);
    return { roots, resolved };
  }

  /** What an untrusted workspace changes here, per server (nothing when trusted). */
  trustNotes(server?: string): { id: string; note: string }[] {
    if (this.trusted) return [];
    // One server's notes look up its own binaries only: every catalog entry's slowed each run's first answer.
    const specs = server === undefined ? this.specs : this.specs.filter((spec) => spec.id === server);
    return specs.flatMap((spec) => {
      const root = rootsOf(this.workdir, spec)[0];
      return root ? untrustedNotes(spec, root, this.workdir, this.home) : [];
    });
  }

  status(): {
    running: ServerStatus[];
    unavailable: UnavailableServer[];
    available: { id: string; roots: string[] }[];
  } {
    const running = [...this.#handles.values()]
      .filter((h) => h.client)
      .map((h) => statusOf(h, this.#rel(h.root), this.#idleMs));
    return {
      running,
      ...availability(
        this.specs,
        (spec) => this.locate(spec),
        (dir) => this.#rel(dir),
      ),
    };
  }

  async dispose(): Promise<void> {
    this.#disposed = true;
    this.#idleCheck.dispose();
    await Promise.all([...this.#handles.values()].map((h) => h.client?.stop(500)));
  }

  /** A folder as answers and status show it. */
  #rel(dir: string): string {
    const rel = path.relative(this.workdir, dir);
    return rel === "" ? "." : shownPath(rel);
  }
}
