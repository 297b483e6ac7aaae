/**
 * The live resources a run may wire. A tool names the ones it needs in `needs`; it is registered only when all of
 * them are wired, and inside its handler `ctx.use(key)` hands it the resource.
 *
 * Later resources (language servers, structural search, debug sessions, kernels, workers) add their key here.
 */
import type { AstEngine } from "./ast/engine.js";
import type { DebugSupervisor } from "./dap/supervisor.js";
import type { FileStore } from "./files/store.js";
import type { KernelPool } from "./kernels/pool.js";
import type { LanguageService } from "./lsp/service.js";
import type { NotebookBook } from "./notebooks/book.js";
import type { QuestionDesk } from "./questions/desk.js";
import type { VibePool } from "./vibe/pool.js";

export interface Resources {
  /** runbound's own read/write/edit/apply_patch, confined to the workdir. */
  files: FileStore;
  /** Jupyter notebooks in the workdir: read, edited and run in place (run needs kernels too). */
  notebooks: NotebookBook;
  /** A question port plus the target space where its cards are shown. */
  questions: QuestionDesk;
  /** The language-server supervisor (servers start lazily), the diagnostics journal. */
  lsp: LanguageService;
  /** The tree-sitter grammar bundle: structural search, staged rewrites. */
  ast: AstEngine;
  /** The debug-session supervisor (one session per conversation). */
  debug: DebugSupervisor;
  /** Jupyter kernels for eval (the server starts on the first cell). */
  kernels: KernelPool;
  /** Background workers; wired only while vibe mode is on. */
  vibe: VibePool;
  /** The conversation this run belongs to (some resources are per conversation). */
  conversation: string;
}

export type ResourceKey = keyof Resources;
