/** What a harness sets for a run's language servers (`createRun({ lsp })`). */
import type { PythonServer, ServerSpec, TypeScriptServer } from "./catalog.js";

export interface LspTimeouts {
  /** initialize. Default 30 s. */
  readonly startMs: number;
  /** Any other request. Default 15 s. */
  readonly requestMs: number;
  /** Waiting for diagnostics of a version. Default 10 s. */
  readonly diagnosticsMs: number;
}

export interface LspOptions {
  readonly typescript?: TypeScriptServer;
  /** The Python server: pyright (default, shipped) or basedpyright (`npx runbound setup --only language-servers`). */
  readonly python?: PythonServer;
  readonly timeouts?: Partial<LspTimeouts>;
  /** Replace or add catalog entries (matched by id). */
  readonly servers?: readonly ServerSpec[];
  /**
   * A server not asked anything for this long is stopped, and started again on the next call that needs it
   * (documents reopened, the diagnostics journal kept). Default 600; 0 or false: never.
   */
  readonly idleSeconds?: number | false;
  /**
   * Language servers of this run running at once. A start beyond it stops the one least recently used (none with
   * a request in flight), which starts again when next needed; when every one is busy, the start is refused.
   * Default: no cap.
   */
  readonly maxServers?: number;
}
