/**
 * What a harness gives createRun, and the check that it gave nothing else.
 */

import type { ApproverOption } from "./approvals.js";
import type { AstOptions } from "./ast/engine.js";
import type { DebugOptions } from "./dap/supervisor.js";
import type { KernelOptions } from "./kernels/options.js";
import type { RunLogger } from "./log.js";
import type { LspOptions } from "./lsp/options.js";
import type { ConfineMode, ConfinePolicy } from "./proc/confined.js";
import type { ContainerOptions } from "./proc/container.js";
import type { EnvPolicy } from "./proc/environment.js";
import type { QuestionPort } from "./questions/card.js";
import type { Caller } from "./registry.js";
import type { InstallPolicy } from "./setup/on-demand.js";
import type { Surface } from "./surfaces.js";
import type { VibeOptions } from "./vibe/pool.js";

export interface QuestionsOption {
  readonly port: QuestionPort;
  /** Where cards are shown; defaults to the conversation id. Without either, ask_user is not registered. */
  readonly space?: string;
  /** How long a card waits for a person. Default 600. */
  readonly timeoutSeconds?: number;
}

export interface RunOptions {
  /** The folder the run works in; file tools are confined to it. */
  readonly workdir: string;
  readonly conversationId?: string;
  /** runbound's read/write/edit/apply_patch. Default true; false when the harness brings its own. */
  readonly files?: boolean;
  /** Vibe mode: background workers (vibe_*) with a backend per tier. Absent → off. */
  readonly vibe?: VibeOptions;
  /** Jupyter kernels for eval (Python, JavaScript). Default true; nothing starts until the first cell. */
  readonly kernels?: boolean | KernelOptions;
  /** The debug-session supervisor (needs conversationId). Default true. */
  readonly debug?: boolean | DebugOptions;
  /** Structural search and staged rewrite over the grammar bundle (ast_grep, ast_edit, resolve). Default true. */
  readonly ast?: boolean | AstOptions;
  /** Language servers (lsp, lsp_rename, diagnostics on write). Default true; no server starts until needed. */
  readonly lsp?: boolean | LspOptions;
  /** A port to a person (+ target space): wires ask_user, and permission cards when no approver is given. */
  readonly questions?: QuestionPort | QuestionsOption;
  /** Decides write/exec calls on a full surface. Absent → permission cards via `questions`, else fail closed. */
  readonly approver?: ApproverOption;
  /**
   * Where runbound's own reports go (a kernel connection lost and retried, the kernel library's errors). Default:
   * warnings and errors to stderr, one prefixed line each.
   */
  readonly logger?: RunLogger;
  /**
   * runbound's home: where `npx runbound setup` put the components that are not npm packages (its Python
   * environment, gopls, delve). Default: `$RUNBOUND_HOME`, else `$XDG_DATA_HOME/runbound`, else
   * `~/.local/share/runbound` — the same folder `setup` uses without `--home`.
   */
  readonly home?: string;
  /**
   * `"on-demand"`: a call that needs a component runbound's home lacks (its Python environment, the JavaScript
   * kernel's ZeroMQ or Deno, a language server, a debug adapter) installs it first, as `npx runbound setup --only
   * <component>` would, and its answer begins with what was installed and how long it took. Default `"never"`: the
   * answer names that command.
   */
  readonly install?: InstallPolicy;
  /**
   * What the run's processes (kernels, debuggees and adapters, language servers, workers) get of the harness's
   * environment: everything but names that look like credentials (`*_API_KEY`, `*_TOKEN`, `*_SECRET`,
   * `*PASSWORD*`, `AWS_*`, an SSH agent, …), plus `pass` (names to keep anyway) and `set` (values to add).
   */
  readonly env?: EnvPolicy;
  /**
   * Whether the workspace's own code may run on read-tier calls: `"workspace"` trusts it (its node_modules/.bin and
   * .venv language servers, rust-analyzer's build scripts and proc macros, cargo check). Absent: untrusted —
   * runbound's own servers only, with those off; `lsp status` says what that changes. (Exec-tier tools — eval,
   * debug, command workers — run code by nature, on approval.) `"ask"`: the first call that would run the
   * project's code asks the approver (or a person, on a permission card) once, and the answer holds for the run.
   */
  readonly trust?: "workspace" | "ask";
  /**
   * Where the processes that run code live — kernels, debug adapters and debuggees, command workers, and language
   * servers that run the project's code: `"preferred"` (default) in an OS sandbox on this host (bubblewrap) where it
   * works, else on the host, said in the first answer of each such tool; `"required"`: createRun fails where it
   * cannot confine; `"off"`: on the host.
   */
  readonly confine?: ConfineMode;
  /** What a confined process may reach (docs/places.md): network, extra folders, memory and process limits. */
  readonly sandbox?: ConfinePolicy;
  /**
   * The conversation's own container: the processes that run code run inside it, through `exec` (e.g.
   * `["podman", "exec", "-i", "box"]`) and a path map. runbound never starts or stops it. Overrides `confine`.
   */
  readonly container?: ContainerOptions;
}

export interface LinkOptions {
  readonly surface: Surface;
  readonly clientInfo?: { name: string; version: string };
}

export interface CallOptions {
  readonly surface: Surface;
  readonly caller?: Caller;
  readonly signal?: AbortSignal;
}

/** Every option createRun takes: a key missing here is a type error, a key a harness misspells is refused. */
const RUN_OPTION_KEYS: Record<keyof RunOptions, true> = {
  workdir: true,
  conversationId: true,
  files: true,
  vibe: true,
  kernels: true,
  debug: true,
  ast: true,
  lsp: true,
  questions: true,
  approver: true,
  logger: true,
  home: true,
  install: true,
  env: true,
  trust: true,
  confine: true,
  sandbox: true,
  container: true,
};

export function checkOptionKeys(options: RunOptions): void {
  const unknown = Object.keys(options).filter((key) => !Object.hasOwn(RUN_OPTION_KEYS, key));
  if (unknown.length > 0)
    throw new TypeError(
      `createRun: unknown option${unknown.length === 1 ? "" : "s"} ${unknown.map((key) => JSON.stringify(key)).join(", ")}; the options are ${Object.keys(RUN_OPTION_KEYS).join(", ")}`,
    );
}
