/**
 * The language servers runbound knows: which files each serves, the root markers that say "this is a project of
 * mine", how its binary is found, its settings, and how to install it when it is missing.
 */
import path from "node:path";
import { fileNamesNear, rootsIn } from "../files/roots.js";
import { setupCommand } from "../setup/components.mjs";
import { npmBin } from "../setup/npm.js";
import {
  NPM_SERVER_INSTALL,
  npmServers,
  TS_ROOT_MARKERS,
  typescriptLanguageServer,
  vue,
} from "./npm-servers.js";
import type { CatalogOptions, PythonServer, ServerSpec } from "./spec.js";
import { rustWithoutProjectPrograms } from "./trust/rust-toolchain.js";

export type { CatalogOptions, PythonServer, ServerSpec, TypeScriptServer } from "./spec.js";

const REINSTALL = (pkg: string) =>
  `runbound ships ${pkg} as a dependency and it did not resolve from runbound's module; reinstall: npm install runbound`;

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
          rootMarkers: TS_ROOT_MARKERS,
          candidates: [typescriptLanguageServer(options)],
          // Read as the server starts: TypeScript 6 may have been installed since the catalog was made (on demand).
          get initializationOptions() {
            return { tsserver: { path: options.embedded.tsserverPath() } };
          },
          // Measured: ~2 s of "Initializing JS/TS language features" after the first open, answering [] / `any`.
          warmupMs: 3000,
          diagnosticsFromTsserver: true,
          component: "typescript6",
          install: `${setupCommand("typescript6")} (typescript-language-server with TypeScript 6, into runbound's home)`,
        }
      : {
          id: "tsgo",
          name: "TypeScript 7 (tsc --lsp)",
          languages: TS_LANGUAGES,
          rootMarkers: TS_ROOT_MARKERS,
          candidates: [{ name: "tsgo", args: ["--lsp", "--stdio"], embedded: options.embedded.tsgo }],
          install: REINSTALL("TypeScript 7 (typescript@7)"),
        };
  return [
    python(options.python ?? "pyright"),
    typescript,
    vue(options),
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
        runs: "the Go toolchain its go.mod names (downloaded)",
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
        runs: "its build scripts, proc macros and cargo check",
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
  const serves = (name: string) => languageOf(spec, name) !== undefined;
  if (spec.onlyWithItsFiles && !fileNamesNear(workdir).some(serves)) return [];
  return rootsIn(workdir, spec.rootMarkers, serves);
}

/** Why a server has no root in the workdir, for `status`. */
export function noRootReason(spec: ServerSpec): string {
  if (spec.onlyWithItsFiles)
    return `no file it serves (${Object.keys(spec.languages).join(", ")}) in the workdir or two levels below`;
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
