/**
 * One language-server process and its JSON-RPC connection. It answers the requests a real client must, tracks the
 * documents it opened and the diagnostics the server pushed, and gives every request a deadline: on timeout the
 * request is cancelled ($/cancelRequest) and counted, so the supervisor can restart a server that stopped answering.
 */
import { pathToFileURL } from "node:url";
import { CancellationTokenSource, type MessageConnection, ResponseError } from "vscode-jsonrpc/node";
import type { InitializeResult, ServerCapabilities } from "vscode-languageserver-protocol";
import { ToolError } from "../../errors.js";
import { regularTextSync } from "../../files/regular.js";
import type { Resolved } from "../../proc/binaries.js";
import type { ProcessTracker, TrackedProcess } from "../../proc/tracker.js";
import { deadline } from "../../signals.js";
import type { ServerSpec } from "../catalog.js";
import { answerServerRequests, CLIENT_CAPABILITIES, type ServerEventSink } from "./client-requests.js";
import type { OpenDocument, PushedDiagnostics } from "./documents.js";
import { RequestTimeout, ServerRefusal } from "./request-errors.js";
import { ServerOutput } from "./server-output.js";
import { startServer } from "./server-process.js";
import { WatchedFiles } from "./watched-files.js";

export type ServerState = "starting" | "indexing" | "ready" | "crashed" | "stopped";

export type { OpenDocument, PushedDiagnostics } from "./documents.js";

/** The progress entry standing for a server that says it is not quiescent. */
const SERVER_STATUS = "$serverStatus";

export class LspClient {
  readonly spec: ServerSpec;
  readonly root: string;
  readonly resolved: Resolved;
  state: ServerState = "starting";
  /** When the process was started (performance.now()). */
  readonly startedAt = performance.now();
  lastError: string | undefined;
  capabilities: ServerCapabilities = {};
  /** The files the server asked to hear about (didChangeWatchedFiles registrations). */
  readonly watched: WatchedFiles;
  /** What the server says its version is (initialize's serverInfo), when it says. */
  serverVersion: string | undefined;
  /** "utf-16" unless the server chose otherwise. */
  encoding = "utf-16";
  consecutiveTimeouts = 0;
  /** Requests awaiting an answer, and when one last began or ended (performance.now()): what idleness is. */
  inFlight = 0;
  lastUsed = performance.now();
  readonly documents = new Map<string, OpenDocument>();
  readonly pushed = new Map<string, PushedDiagnostics>();
  /** Dynamic registrations by id (a server may unregister one id and keep another for the same method). */
  readonly #registrations = new Map<string, string>();
  readonly #progress = new Map<string | number, string>();
  /** How many checks (work-done progresses, by the spec's `checkTitle`) have begun: "a check began after the save". */
  checksBegun = 0;
  readonly output = new ServerOutput();
  readonly #listeners = new Set<() => void>();
  #seq = 0;
  #connection: MessageConnection | undefined;
  #process: TrackedProcess | undefined;
  #onExit: ((client: LspClient) => void) | undefined;

  /** Whether the server runs the project's code (so it runs where the run confines). */
  readonly confined: boolean;
  /** Runs in the run's place (confined, or the container), not beside runbound on the host. */
  inPlace = false;

  constructor(spec: ServerSpec, root: string, resolved: Resolved, runsProjectCode = false) {
    this.spec = spec;
    this.root = root;
    this.resolved = resolved;
    this.confined = runsProjectCode;
    this.watched = new WatchedFiles(root);
  }

  get pid(): number | undefined {
    return this.#process?.pid;
  }

  /** The active work-done progress titles (indexing, loading). */
  get progressTitles(): string[] {
    return [...this.#progress.values()];
  }

  supportsPull(): boolean {
    return (
      this.capabilities.diagnosticProvider !== undefined ||
      [...this.#registrations.values()].includes("textDocument/diagnostic")
    );
  }

  async start(
    processes: ProcessTracker,
    onExit: (client: LspClient) => void,
    timeoutMs: number,
  ): Promise<void> {
    this.#onExit = onExit;
    const { proc, connection, inPlace } = startServer(
      processes,
      this.spec,
      this.root,
      this.resolved,
      this.confined,
    );
    this.#process = proc;
    this.inPlace = inPlace;
    proc.child.stderr?.on("data", (chunk: Buffer) => this.output.add(chunk.toString()));
    this.#connection = connection;
    answerServerRequests(connection, this.#sink());
    // After a crash, requests in flight never settle unless the connection is disposed (measured with kill -9).
    connection.onClose(() => this.#ended("the connection closed"));
    connection.onError(([error]) => this.output.add(`connection error: ${error.message}`));
    proc.exited.then(({ code, signal }) => this.#ended(`the process exited (${signal ?? `code ${code}`})`));
    connection.listen();
    const rootUri = pathToFileURL(this.root).href;
    const result = await this.request<InitializeResult>(
      "initialize",
      {
        // A server in another PID namespace cannot see this process; it would take it for gone and exit.
        processId: inPlace ? null : process.pid,
        clientInfo: { name: "runbound" },
        rootUri,
        rootPath: this.root,
        workspaceFolders: [{ uri: rootUri, name: this.root.split("/").pop() ?? "root" }],
        initializationOptions: this.spec.initializationOptions,
        capabilities: CLIENT_CAPABILITIES,
      },
      timeoutMs,
    );
    this.capabilities = result.capabilities;
    this.serverVersion = result.serverInfo?.version;
    this.encoding = result.capabilities.positionEncoding ?? "utf-16";
    await connection.sendNotification("initialized", {});
    if (this.state === "starting") this.state = this.#progress.size ? "indexing" : "ready";
  }

  /** Sends a request with a deadline; a timeout cancels it on the server and counts toward a restart. */
  async request<R>(method: string, params: unknown, timeoutMs: number, signal?: AbortSignal): Promise<R> {
    const connection = this.#connection;
    if (!connection || this.state === "crashed" || this.state === "stopped") {
      throw new Error(
        `the ${this.spec.id} server is ${this.state}${this.lastError ? ` (${this.lastError})` : ""}`,
      );
    }
    const source = new CancellationTokenSource();
    this.inFlight++;
    this.lastUsed = performance.now();
    let timer: NodeJS.Timeout | undefined;
    const onAbort = () => source.cancel();
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      const result = await Promise.race([
        connection.sendRequest<R>(method, params, source.token),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            source.cancel();
            reject(new RequestTimeout(`${this.spec.id} did not answer ${method} within ${timeoutMs} ms`));
          }, timeoutMs);
        }),
      ]);
      this.consecutiveTimeouts = 0;
      return result;
    } catch (error) {
      if (error instanceof RequestTimeout) this.consecutiveTimeouts++;
      if (signal?.aborted) throw signal.reason;
      if (error instanceof ResponseError && !this.#isCrashed())
        throw new ServerRefusal(
          this.spec.name,
          method,
          error.message,
          error.code,
          this.output.reports.slice(-3),
        );
      // The state may have changed while the request was pending (the server died meanwhile).
      if (this.#isCrashed()) {
        throw new ToolError(
          `The ${this.spec.name} server crashed while answering ${method} (${this.lastError ?? "no output"}). It is restarted on the next call, after a short backoff; \`lsp status\` shows its state.`,
        );
      }
      throw error;
    } finally {
      this.inFlight--;
      this.lastUsed = performance.now();
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      source.dispose();
    }
  }

  notify(method: string, params: unknown): Promise<void> {
    if (!this.#connection) return Promise.resolve();
    return this.#connection.sendNotification(method, params);
  }

  /**
   * Opens the file or sends its current content (didOpen, or didChange + didSave when it changed; `written`: the
   * file was just written, so a first didOpen is followed by didSave too — a server's check on save must run for
   * it). Returns the version the server now has, whether a save was sent, and the publish sequence before the sync
   * (the baseline for push waits).
   */
  async sync(
    file: string,
    languageId: string,
    current?: string,
    written = false,
  ): Promise<{ uri: string; version: number; changed: boolean; saved: boolean; baseline: number }> {
    const uri = pathToFileURL(file).href;
    // Synchronous: a source file reads in microseconds, a promise-based read costs far more per call.
    const text = current ?? regularTextSync(file, file, "lsp");
    const baseline = this.#seq;
    const doc = this.documents.get(uri);
    if (!doc) {
      this.documents.set(uri, { uri, version: 1, text });
      await this.notify("textDocument/didOpen", { textDocument: { uri, languageId, version: 1, text } });
      const saved = written && (await this.#save(uri, text));
      return { uri, version: 1, changed: true, saved, baseline };
    }
    if (doc.text === text) return { uri, version: doc.version, changed: false, saved: false, baseline };
    doc.version += 1;
    doc.text = text;
    await this.notify("textDocument/didChange", {
      textDocument: { uri, version: doc.version },
      contentChanges: [{ text }],
    });
    const saved = await this.#save(uri, text);
    return { uri, version: doc.version, changed: true, saved, baseline };
  }

  /** didSave, when the server asked for it; whether it was sent. */
  async #save(uri: string, text: string): Promise<boolean> {
    const save = this.capabilities.textDocumentSync;
    if (!(typeof save === "object" && save.save)) return false;
    const includeText = typeof save.save === "object" && save.save.includeText;
    await this.notify("textDocument/didSave", { textDocument: { uri }, ...(includeText ? { text } : {}) });
    return true;
  }

  async close(uri: string): Promise<void> {
    if (this.documents.delete(uri)) await this.notify("textDocument/didClose", { textDocument: { uri } });
  }

  /** Resolves on the next publish (or progress change) — for waits that re-check a condition. */
  changed(signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.#listeners.delete(done);
        signal.removeEventListener("abort", done);
        resolve();
      };
      this.#listeners.add(done);
      signal.addEventListener("abort", done, { once: true });
    });
  }

  /**
   * Waits for a server that is still loading its project: if no work-done progress is active, up to `graceMs` for
   * one to begin; then (at most `timeoutMs`) until none is active. Returns whether the server is idle.
   */
  async settled(timeoutMs: number, graceMs: number, signal?: AbortSignal): Promise<boolean> {
    const until = deadline(timeoutMs, signal);
    try {
      if (this.#progress.size === 0) {
        const grace = deadline(graceMs, until.signal);
        try {
          while (this.#progress.size === 0 && !grace.signal.aborted && this.state !== "crashed")
            await this.changed(grace.signal);
        } finally {
          grace.dispose();
        }
      }
      while (this.#progress.size > 0 && !until.signal.aborted && this.state !== "crashed")
        await this.changed(until.signal);
      return this.#progress.size === 0;
    } finally {
      until.dispose();
    }
  }

  /**
   * After a save that starts a check (rust-analyzer's cargo check): waits up to `graceMs` for a check to begin
   * after `begunBefore` (`checksBegun`, taken before the save), then (within `timeoutMs`) until no progress is
   * active. A check that began and ended before this call counts: no waiting for a second one.
   */
  async settledAfter(
    begunBefore: number,
    timeoutMs: number,
    graceMs: number,
    signal?: AbortSignal,
  ): Promise<{ idle: boolean; began: boolean }> {
    const until = deadline(timeoutMs, signal);
    try {
      if (this.checksBegun === begunBefore) {
        const grace = deadline(graceMs, until.signal);
        try {
          while (this.checksBegun === begunBefore && !grace.signal.aborted && this.state !== "crashed")
            await this.changed(grace.signal);
        } finally {
          grace.dispose();
        }
      }
      while (this.#progress.size > 0 && !until.signal.aborted && this.state !== "crashed")
        await this.changed(until.signal);
      return { idle: this.#progress.size === 0, began: this.checksBegun !== begunBefore };
    } finally {
      until.dispose();
    }
  }

  /** shutdown + exit within a deadline; the process tree is ended by the caller (the supervisor's tracker). */
  async stop(timeoutMs = 2000): Promise<void> {
    if (this.state === "stopped") return;
    const wasLive = this.state !== "crashed";
    this.state = "stopped";
    const connection = this.#connection;
    if (connection && wasLive) {
      try {
        await Promise.race([
          connection.sendRequest("shutdown"),
          new Promise((r) => setTimeout(r, timeoutMs)),
        ]);
        await connection.sendNotification("exit");
      } catch {
        // a server that cannot shut down is killed below
      }
    }
    connection?.dispose();
    this.#connection = undefined;
    this.#wake();
  }

  #isCrashed(): boolean {
    return this.state === "crashed";
  }

  get process(): TrackedProcess | undefined {
    return this.#process;
  }

  #ended(reason: string): void {
    if (this.state === "stopped" || this.state === "crashed") return;
    this.state = "crashed";
    const tail = this.output.log.slice(-3).join(" | ");
    this.lastError = tail ? `${reason}; last output: ${tail}` : reason;
    this.#connection?.dispose();
    this.#connection = undefined;
    this.#wake();
    this.#onExit?.(this);
  }

  #wake(): void {
    for (const listener of [...this.#listeners]) listener();
  }

  /** What the server tells this client, as client-requests.ts hands it over. */
  #sink(): ServerEventSink {
    const reflect = () => {
      if (this.state === "ready" || this.state === "indexing")
        this.state = this.#progress.size ? "indexing" : "ready";
      this.#wake();
    };
    return {
      root: this.root,
      settings: () => this.spec.settings ?? {},
      registered: (id, method, options) => {
        this.#registrations.set(id, method);
        if (method === "workspace/didChangeWatchedFiles") this.watched.register(id, options);
        this.#wake();
      },
      unregistered: (id) => {
        this.#registrations.delete(id);
        this.watched.unregister(id);
      },
      published: (params) => {
        this.#seq += 1;
        this.pushed.set(params.uri, { version: params.version, items: params.diagnostics, seq: this.#seq });
        this.#wake();
      },
      progressed: (token, value) => {
        if (value.kind === "begin") {
          this.#progress.set(token, value.title);
          const check = this.spec.checkTitle;
          if (check === undefined || String(value.title).startsWith(check)) this.checksBegun += 1;
        }
        if (value.kind === "end") this.#progress.delete(token);
        reflect();
      },
      statusChanged: (params) => {
        if (params.quiescent === false)
          this.#progress.set(SERVER_STATUS, params.message ?? "loading the workspace");
        else this.#progress.delete(SERVER_STATUS);
        reflect();
      },
      logged: (message, report) => this.output.add(message, report),
    };
  }
}
