/**
 * What runbound knows of a language server (the catalog's entries, and a harness's own in `lsp.servers`), and what
 * the catalog is made from.
 */
import type { BinaryCandidate } from "../proc/binaries.js";

export interface ServerSpec {
  readonly id: string;
  readonly name: string;
  /** Extension (with dot) → LSP language id. */
  readonly languages: Readonly<Record<string, string>>;
  /** Whole file names (no extension to go by: `Dockerfile`, `Dockerfile.dev`) → LSP language id. */
  readonly fileNames?: readonly { readonly pattern: RegExp; readonly language: string }[];
  /**
   * Files whose presence marks a root, nearest first while walking up from the file. None: the workdir is the root
   * (languages without a project file).
   */
  readonly rootMarkers: readonly string[];
  /** Tried in order; the first that resolves is used. */
  readonly candidates: readonly BinaryCandidate[];
  /**
   * false: the server has no workspace symbol search (measured), so a query across the workspace does not name it as
   * a server that could have searched.
   */
  readonly searchesWorkspace?: false;
  /** Answers to workspace/configuration, by section. */
  readonly settings?: Readonly<Record<string, unknown>>;
  readonly initializationOptions?: Readonly<Record<string, unknown>>;
  /** How to get the binary when it is missing: a command that works for an installed package. */
  readonly install: string;
  /** The setup component that brings it (`npx runbound setup --only <component>`), when one does. */
  readonly component?: string;
  /**
   * How long the first document of a fresh server waits for the server's project load to begin (then until it
   * ends). Only for servers that answer empty or `any` while loading instead of waiting themselves.
   */
  readonly warmupMs?: number;
  /**
   * typescript-language-server: diagnostics are asked of its tsserver (`typescript.tsserverRequest`) for the text it
   * holds, since what it pushes carries no version and comes kind by kind (Vue's semantic pass a second later).
   */
  readonly diagnosticsFromTsserver?: boolean;
  /**
   * Offered for the workdir (status, a workspace search, the project-wide check) only where a file it serves is near
   * the top: its root markers (tsconfig.json, package.json) are every Node project's. A file deeper down is served all
   * the same, from its own root.
   */
  readonly onlyWithItsFiles?: boolean;
  /**
   * The server runs a checker after each save (rust-analyzer: cargo check) and publishes its findings after its
   * own fast pass: how long to wait for that check to begin before the fast pass counts as the answer.
   */
  readonly checkOnSaveMs?: number;
  /**
   * How that check's work-done progress is titled at its start (rust-analyzer: `cargo check`, `cargo clippy`):
   * other work the server reports after a save (indexing) is not the check. Absent: any progress counts.
   */
  readonly checkTitle?: string;
  /**
   * Why the server's cross-file answers (references, implementations, hierarchies, workspace symbols) cover only
   * part of the project, when they do: said in each such answer, which is then not complete.
   */
  readonly searchesOpenFilesOnly?: string;
  /**
   * For this long after its start the server may answer references from a half-analysed workspace without reporting
   * progress (pyright: 3 references, then 4): such an answer is confirmed by asking again after a pause until two
   * agree. Only where measured — each confirmation costs a pause.
   */
  readonly confirmReferencesMs?: number;
  /**
   * Code action kinds that open something for a person (a browser page, a web UI) and change no code: left out of
   * `code_actions`, with a count, since an agent can do nothing with them (gopls lists six on any Go line).
   */
  readonly browseActionKinds?: readonly string[];
  /**
   * In an untrusted workspace: what replaces the settings above so the server runs none of the project's code
   * (rust-analyzer: no build scripts, proc macros or cargo check), and why, for `status`.
   */
  readonly untrusted?: {
    readonly settings?: Readonly<Record<string, unknown>>;
    readonly initializationOptions?: Readonly<Record<string, unknown>>;
    /** What trusting the workspace would run, for status ("its build scripts, proc macros and cargo check"). */
    readonly runs: string;
    /** Added to the environment of the server and of its project-wide check. */
    readonly env?: Readonly<Record<string, string>>;
    readonly note: string;
  };
  /** Added to the server's environment (and its project-wide check's). */
  readonly env?: Readonly<Record<string, string>>;
  /** A build cache of its root's own when it runs confined, for the server and its check (proc/build-cache.ts). */
  readonly buildCache?: "go";
}

export type TypeScriptServer = "tsgo" | "typescript-language-server";

/** Which server serves Python: pyright (runbound's own dependency) or basedpyright (its fork, from setup). */
export type PythonServer = "pyright" | "basedpyright";

/** For a server runbound ships as an npm dependency: missing means the install itself is broken. */
export interface CatalogOptions {
  /** Which TypeScript server serves TS/JS: TypeScript 7's native `tsc --lsp` (default) or the classic one. */
  readonly typescript?: TypeScriptServer;
  /** Which server serves Python: pyright (default) or basedpyright. */
  readonly python?: PythonServer;
  /** Binaries runbound resolves from its own dependencies, or from its home's npm folder (TypeScript 6's). */
  readonly embedded: {
    tsgo(): string | undefined;
    tsserverPath(): string | undefined;
    typescriptLanguageServer(): string | undefined;
    /** Vue's TypeScript plugin's folder, and the probe location of runbound's wrapper of it (trust/vue-plugin.ts). */
    vuePlugin(): string | undefined;
    vueWrapperLocation(): string | undefined;
  };
}
