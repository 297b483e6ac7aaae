import path from "node:path";
import { rootsIn } from "../files/roots.js";
import type { BinaryCandidate } from "../proc/binaries.js";
import { setupCommand } from "../setup/components.mjs";
import { npmBin } from "../setup/npm.js";
import { rustWithoutProjectPrograms } from "./trust/rust-toolchain.js";

/**
 * The language servers runbound knows: which files each serves, the root markers that say "this is a project of
 * mine", how its binary is found, its settings, and how to install it when it is missing.
 */

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
const REINSTALL = (pkg: string) =>
  `runbound ships ${pkg} as a dependency and it did not resolve from runbound's module; reinstall: npm install runbound`;

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
  };
}

/** rust-analyzer's settings that keep it from building and running the project's build.rs and proc macros. */
const RUST_WITHOUT_PROJECT_CODE = {
  cargo: { buildScripts: { enable: false } },
  procMacro: { enable: false },
  checkOnSave: false,
};

const TS_LANGUAGES = {
  ".ts": "typescript",
  ".mts": "typescript",
  ".cts": "typescript",
  ".tsx": "typescriptreact",
  ".js": "javascript",
  ".mjs": "javascript",
  ".cjs": "javascript",
  ".jsx": "javascriptreact",
};

export function catalog(options: CatalogOptions): ServerSpec[] {
  const typescript: ServerSpec =
    options.typescript === "typescript-language-server"
      ? {
          id: "typescript-language-server",
          name: "typescript-language-server (TypeScript 6)",
          languages: TS_LANGUAGES,
          rootMarkers: ["tsconfig.json", "jsconfig.json", "package.json"],
          candidates: [
            {
              name: "typescript-language-server",
              args: ["--stdio"],
              embedded: options.embedded.typescriptLanguageServer,
            },
          ],
          // Read as the server starts: TypeScript 6 may have been installed since the catalog was made (on demand).
          get initializationOptions() {
            return { tsserver: { path: options.embedded.tsserverPath() } };
          },
          // Measured: ~2 s of "Initializing JS/TS language features" after the first open, answering [] / `any`.
          warmupMs: 3000,
          component: "typescript6",
          install: `${setupCommand("typescript6")} (typescript-language-server with TypeScript 6, into runbound's home)`,
        }
      : {
          id: "tsgo",
          name: "TypeScript 7 (tsc --lsp)",
          languages: TS_LANGUAGES,
          rootMarkers: ["tsconfig.json", "jsconfig.json", "package.json"],
          candidates: [{ name: "tsgo", args: ["--lsp", "--stdio"], embedded: options.embedded.tsgo }],
          install: REINSTALL("TypeScript 7 (typescript@7)"),
        };
  return [
    python(options.python ?? "pyright"),
    typescript,
    {
      id: "gopls",
      name: "gopls",
      languages: { ".go": "go" },
      rootMarkers: ["go.work", "go.mod"],
      candidates: [{ name: "gopls", args: [] }],
      component: "gopls",
      install: `${setupCommand("gopls")} (builds it with the machine's Go into runbound's home)`,
      buildCache: "go",
      untrusted: {
        // A go.mod's `go` or `toolchain` line makes the go command download that toolchain and run it.
        env: { GOTOOLCHAIN: "local" },
        note: "gopls and go vet use the machine's Go, never a toolchain the go.mod names (it would be downloaded and run)",
      },
      browseActionKinds: [
        "source.assembly",
        "source.doc",
        "source.freesymbols",
        "source.splitPackage",
        "source.toggleCompilerOptDetails",
        "gopls.doc.features",
      ],
    },
    {
      id: "clangd",
      name: "clangd",
      languages: {
        ".c": "c",
        ".h": "c",
        ".cc": "cpp",
        ".cpp": "cpp",
        ".cxx": "cpp",
        ".hpp": "cpp",
        ".hh": "cpp",
      },
      rootMarkers: ["compile_commands.json", "compile_flags.txt", "CMakeLists.txt", ".clangd"],
      candidates: [{ name: "clangd", args: ["--background-index=false"], versioned: true }],
      // A read must write nothing in the workdir, and the background index is written to .cache/clangd there.
      searchesOpenFilesOnly:
        "clangd runs without its background index (it would write .cache/clangd into the workdir), so it searched the files opened in this run and what they include, not the rest of the project",
      component: "clangd",
      install: `${setupCommand("clangd")} (apt-get as root; otherwise the system's clangd or clangd-NN package)`,
    },
    {
      id: "rust-analyzer",
      name: "rust-analyzer",
      languages: { ".rs": "rust" },
      rootMarkers: ["Cargo.toml"],
      candidates: [{ name: "rust-analyzer", args: [] }],
      // Loading the cargo workspace and the sysroot takes seconds cold; answers meanwhile are empty.
      warmupMs: 10_000,
      // Type errors (E0599, E0308, …) come from the cargo check it runs on save, after its native diagnostics. Under
      // load the check began more than 4 s after the save (a full test run, two CPUs); the wait ends as soon as a
      // check begun after the save has ended, so a longer bound costs only when no check comes (then: stale).
      checkOnSaveMs: 8000,
      // Under load its indexing began and ended after a save before the check began (the answer missed E0599).
      checkTitle: "cargo ",
      component: "rust-analyzer",
      install: `${setupCommand("rust-analyzer")} (rustup component add rust-analyzer)`,
      untrusted: {
        initializationOptions: RUST_WITHOUT_PROJECT_CODE,
        settings: { "rust-analyzer": RUST_WITHOUT_PROJECT_CODE },
        // Read when an untrusted run first needs its servers (it asks rustup once per process).
        get env() {
          return rustWithoutProjectPrograms();
        },
        note: "rust-analyzer runs without build scripts, proc macros and cargo check (each runs the project's code), and with rustup's default toolchain and cargo's own rustc whatever the project's rust-toolchain.toml or .cargo/config.toml name; type errors that only cargo check finds are not reported",
      },
    },
    ...npmServers(),
    {
      id: "dart",
      name: "Dart analysis server",
      languages: { ".dart": "dart" },
      rootMarkers: ["pubspec.yaml"],
      candidates: [{ name: "dart", args: ["language-server", "--protocol=lsp"] }],
      install: "install the Dart SDK (https://dart.dev/get-dart) so that `dart` is on PATH",
    },
  ];
}

/** A server's roots in the workdir: its marked folders, or the workdir where a file it serves lies near the top. */
export function rootsOf(workdir: string, spec: ServerSpec): string[] {
  return rootsIn(workdir, spec.rootMarkers, (name) => languageOf(spec, name) !== undefined);
}

/** Why a server has no root in the workdir, for `status`. */
export function noRootReason(spec: ServerSpec): string {
  if (spec.rootMarkers.length) return `no root marker (${spec.rootMarkers.join(", ")}) in the workdir`;
  const kinds = [...Object.keys(spec.languages), ...(spec.fileNames ?? []).map((f) => f.pattern.source)];
  return `no file it serves (${kinds.join(", ")}) in the workdir or a folder just below`;
}

export function languageOf(spec: ServerSpec, file: string): string | undefined {
  const name = path.basename(file);
  const byName = spec.fileNames?.find((f) => f.pattern.test(name))?.language;
  if (byName) return byName;
  const dot = name.lastIndexOf(".");
  return dot === -1 ? undefined : spec.languages[name.slice(dot).toLowerCase()];
}

/** How a server from the `language-servers` component is installed. */
const NPM_SERVER_INSTALL = `${setupCommand("language-servers")} (npm installs it into runbound's home)`;

/** The servers of the `language-servers` component (runbound's home, from npm): no project file marks a root. */
function npmServers(): ServerSpec[] {
  const vscode = (
    id: string,
    name: string,
    languages: Record<string, string>,
    settings: Record<string, unknown>,
  ) => ({
    id,
    name,
    languages,
    rootMarkers: [],
    candidates: [{ name: `vscode-${id}-language-server`, args: ["--stdio"] }],
    searchesWorkspace: false as const,
    // Schemas are not fetched: a confined run has no network by default, and a repository's `$schema` URL would
    // make the server reach wherever it names.
    settings,
    component: "language-servers",
    install: NPM_SERVER_INSTALL,
  });
  return [
    {
      id: "bash",
      name: "bash-language-server",
      languages: { ".sh": "shellscript", ".bash": "shellscript" },
      rootMarkers: [],
      candidates: [{ name: "bash-language-server", args: ["start"] }],
      // Measured: its answers in the first ~0.6 s are empty (its parser is loading) and it reports no progress, so
      // the first document waits this bound once per start.
      warmupMs: 1500,
      component: "language-servers",
      install: NPM_SERVER_INSTALL,
    },
    {
      id: "yaml",
      name: "yaml-language-server",
      languages: { ".yaml": "yaml", ".yml": "yaml" },
      rootMarkers: [],
      candidates: [{ name: "yaml-language-server", args: ["--stdio"] }],
      searchesWorkspace: false,
      settings: { yaml: { validate: true, hover: true, completion: true, schemaStore: { enable: false } } },
      component: "language-servers",
      install: NPM_SERVER_INSTALL,
    },
    vscode(
      "json",
      "vscode-json-language-server",
      { ".json": "json", ".jsonc": "jsonc" },
      {
        json: { validate: { enable: true }, schemaDownload: { enable: false } },
      },
    ),
    vscode(
      "css",
      "vscode-css-language-server",
      { ".css": "css", ".scss": "scss", ".less": "less" },
      {
        css: { validate: true },
        scss: { validate: true },
        less: { validate: true },
      },
    ),
    vscode(
      "html",
      "vscode-html-language-server",
      { ".html": "html", ".htm": "html" },
      {
        html: { validate: { scripts: true, styles: true } },
      },
    ),
    {
      id: "php",
      name: "Intelephense",
      languages: { ".php": "php", ".phtml": "php" },
      // Not composer.json: many PHP projects have none (a WordPress plugin), and the server indexes its root.
      rootMarkers: [],
      candidates: [{ name: "intelephense", args: ["--stdio"] }],
      // Its index lives in the server's temporary folder (private to a confined run); no licence key: the free
      // features (navigation, hover, symbols, diagnostics).
      component: "language-servers",
      install: NPM_SERVER_INSTALL,
    },
    {
      id: "svelte",
      name: "svelte-language-server",
      languages: { ".svelte": "svelte" },
      // Not package.json: every Node project has one, and a Svelte server in each would be offered and checked there.
      rootMarkers: ["svelte.config.js", "svelte.config.mjs", "svelte.config.ts"],
      candidates: [{ name: "svelteserver", args: ["--stdio"] }],
      // The server imports the project's svelte.config and its own svelte and typescript packages unless told
      // the workspace is not trusted (its default is trusted).
      initializationOptions: { isTrusted: true },
      untrusted: {
        initializationOptions: { isTrusted: false },
        note: "svelte-language-server loads neither the project's svelte.config nor its svelte and typescript packages (each runs the project's code); preprocessors the config names are not applied",
      },
      component: "language-servers",
      install: NPM_SERVER_INSTALL,
    },
    {
      id: "dockerfile",
      name: "dockerfile-language-server",
      languages: { ".dockerfile": "dockerfile" },
      fileNames: [{ pattern: /^(Docker|Container)file(\..+)?$/, language: "dockerfile" }],
      rootMarkers: [],
      candidates: [{ name: "docker-langserver", args: ["--stdio"] }],
      searchesWorkspace: false,
      component: "language-servers",
      install: NPM_SERVER_INSTALL,
    },
  ];
}

const PYTHON_ROOT_MARKERS = [
  "pyproject.toml",
  "pyrightconfig.json",
  "setup.py",
  "setup.cfg",
  "requirements.txt",
];

function python(server: PythonServer): ServerSpec {
  // Only open files are checked on the fly; the project as a whole is `diagnostics "*"`'s job.
  const analysis = { diagnosticMode: "openFilesOnly", autoSearchPaths: true };
  if (server === "basedpyright")
    return {
      id: "basedpyright",
      name: "basedpyright",
      languages: PYTHON_LANGUAGES,
      rootMarkers: [...PYTHON_ROOT_MARKERS, "basedpyrightconfig.json"],
      candidates: [{ name: "basedpyright-langserver", args: ["--stdio"] }],
      settings: { basedpyright: { analysis } },
      confirmReferencesMs: 15_000,
      component: "language-servers",
      install: NPM_SERVER_INSTALL,
    };
  return {
    id: "pyright",
    name: "Pyright",
    languages: PYTHON_LANGUAGES,
    rootMarkers: PYTHON_ROOT_MARKERS,
    candidates: [
      {
        name: "pyright-langserver",
        args: ["--stdio"],
        embedded: () => npmBin("pyright", "pyright-langserver"),
      },
    ],
    settings: { python: { analysis } },
    confirmReferencesMs: 15_000,
    install: REINSTALL("pyright"),
  };
}

const PYTHON_LANGUAGES = { ".py": "python", ".pyi": "python" };
