// @ts-check
// The components `runbound setup` installs: what each is, how to tell that it is there (and which version), and
// how to install it. The npm components (pyright, TypeScript 7, Deno, ...) are runbound's own dependencies and are
// not here. Dependency-free, like everything `setup` runs.
import { spawnSync } from "node:child_process";
import { accessSync, constants, existsSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import path from "node:path";
import { GRAMMAR_PACKAGES } from "../../grammars/packages.mjs";
import { homeLayout } from "./home.mjs";
import { llvmMajor, newestAptPackage, olderThanOffered } from "./llvm.mjs";

export const GOPLS_VERSION = "v0.23.0"; // the newest gopls Go 1.26 builds; v0.24 needs Go 1.27
export const DELVE_VERSION = "v1.27.2";

/** runbound's Python environment, pinned. setuptools and wheel build local packages without fetching build tools. */
export const PYTHON_PACKAGES = {
  debugpy: "1.8.22",
  jupyter_server: "2.21.1",
  ipykernel: "7.4.0",
  pandas: "3.1.1",
  matplotlib: "3.11.2",
};
const PYTHON_BUILD_TOOLS = ["setuptools", "wheel"];

export const LLDB_ADAPTERS = ["lldb-dap", "lldb-vscode"];

/** Whether the default toolchain has the standard library's source (rustup's rust-src), which rust-analyzer reads. */
function hasRustSource() {
  const sysroot = output("rustc", ["--print", "sysroot"])?.trim();
  return !!sysroot && existsSync(path.join(sysroot, "lib", "rustlib", "src", "rust", "library"));
}

/**
 * Language servers published on npm, installed into runbound's home on request rather than with runbound (they
 * weigh ~130 MB together): pinned, each serving the languages the catalog names.
 */
export const NPM_SERVERS = {
  "bash-language-server": "5.8.1",
  "yaml-language-server": "2.0.0",
  "vscode-langservers-extracted": "4.10.0",
  "dockerfile-language-server-nodejs": "0.15.0",
  basedpyright: "1.40.1",
  intelephense: "1.18.5",
  "svelte-language-server": "0.18.4",
};

/** The grammars runbound does not ship (grammars/packages.mjs says which it does), by id: their versions. */
const HOME_GRAMMARS = Object.fromEntries(
  Object.entries(GRAMMAR_PACKAGES)
    .filter(([, p]) => !p.core)
    .map(([id, p]) => [id, p.version]),
);

/** Deno, whose Jupyter kernel runs JavaScript cells when a run asks for it (~90 MB: in runbound's home). */
export const DENO_VERSION = "2.9.6";
/** ZeroMQ for Node, the sockets of runbound's own JavaScript kernel (its prebuilt binaries inside: no build). */
export const ZEROMQ_VERSION = "6.8.0";
/** The classic TypeScript server and the TypeScript whose tsserver it drives (under the alias `typescript6`). */
export const TSLS_VERSION = "5.3.0";
export const TYPESCRIPT6_VERSION = "6.0.3";
/** Vue's plugin for tsserver: `.vue` files through typescript-language-server (11 MB with its dependencies). */
export const VUE_PLUGIN_VERSION = "3.3.11";

/** tsx, which runs a TypeScript program under the debugger when the project has none (esbuild comes with it). */
export const TSX_VERSION = "4.23.15";

/**
 * npm packages into runbound's home. Their install scripts are not run (what is installed here is plain JavaScript
 * or ships its binary as a package) and would run as this user.
 * @param {string} home
 * @param {Record<string, string>} packages
 * @param {(line: string) => void} log
 * @param {string} what
 */
function npmIntoHome(home, packages, log, what) {
  const { npmPrefix } = homeLayout(home);
  const pins = Object.entries(packages).map(([name, version]) => `${name}@${version}`);
  log(`npm install ${pins.join(" ")} into ${npmPrefix}`);
  const r = spawnSync(
    "npm",
    [
      "install",
      "--prefix",
      npmPrefix,
      "--no-audit",
      "--no-fund",
      "--ignore-scripts",
      "--loglevel",
      "error",
      ...pins,
    ],
    { stdio: ["ignore", "inherit", "inherit"], env: absoluteEnv() },
  );
  return r.status === 0 ? undefined : `npm install of ${what} failed (exit ${r.status ?? r.signal})`;
}

/**
 * @typedef {{ version: string, where: string }} Present
 * @typedef {{ home: string, log: (line: string) => void, root: boolean }} InstallContext
 * @typedef {{
 *   id: string,
 *   what: string,
 *   serves: string,
 *   check: (home: string) => Present | undefined,
 *   install: (ctx: InstallContext) => string | undefined,
 * }} Component
 */

/**
 * A component of npm packages in runbound's home's npm folder: present when each is at its pinned version (an alias,
 * `npm:typescript@6.0.3`, at the version after its `@`).
 * @param {{ id: string, what: string, serves: string, packages: Record<string, string>, label: string, summary?: string }} c
 * @returns {Component}
 */
function npmComponent({ id, what, serves, packages, label, summary }) {
  return {
    id,
    what,
    serves,
    check(home) {
      const { npmPrefix } = homeLayout(home);
      const versions = Object.entries(packages).map(([name, spec]) => ({
        have: installedVersion(npmPrefix, name),
        want: spec.replace(/^npm:.*@/, ""),
      }));
      if (!versions.every((v) => v.have === v.want)) return undefined;
      const version = summary ?? [...new Set(versions.map((v) => v.have))].join(", ");
      return { version, where: path.join(npmPrefix, "node_modules") };
    },
    install: ({ home, log }) => npmIntoHome(home, packages, log, label),
  };
}

/**
 * @param {string} command
 * @param {string[]} args
 * @param {import("node:child_process").SpawnSyncOptions} [options]
 */
function output(command, args, options = {}) {
  const env = { ...(options.env ?? process.env), PATH: absolutePath(options.env?.PATH ?? process.env.PATH) };
  const r = spawnSync(command, args, { encoding: "utf8", timeout: 60_000, ...options, env });
  return r.status === 0 ? `${r.stdout ?? ""}${r.stderr ?? ""}` : undefined;
}

/**
 * Whether a file may be executed by this user.
 * @param {string} file
 */
export function executable(file) {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * A PATH with its absolute entries only: an empty entry, `.` or `node_modules/.bin` is looked up from the working
 * folder — a repository's, for whatever runbound runs there.
 * @param {string | undefined} value
 */
export function absolutePath(value) {
  return (value ?? "")
    .split(path.delimiter)
    .filter((entry) => path.isAbsolute(entry))
    .join(path.delimiter);
}

/** This process's environment with PATH's relative entries dropped, for the commands setup runs by name. */
function absoluteEnv() {
  return { ...process.env, PATH: absolutePath(process.env.PATH) };
}

/**
 * A command on PATH; with `versioned`, the newest of it and its versioned names (`clangd-22` over Debian's
 * `clangd`, which leads to llvm-14). A plain name whose version cannot be told is the user's choice and wins.
 * @param {string} name
 * @param {boolean} [versioned]
 * @returns {string | undefined}
 */
export function onPath(name, versioned = false) {
  const plain = plainOnPath(name);
  if (!versioned) return plain;
  const best = newestVersioned(name);
  if (!plain || !best) return plain ?? best?.file;
  return (llvmMajor(plain) ?? Number.POSITIVE_INFINITY) >= best.version ? plain : best.file;
}

/** @param {string} name */
function plainOnPath(name) {
  for (const dir of pathDirs()) {
    const file = path.join(dir, name);
    if (executable(file) && !isMissingRustupComponent(file)) return file;
  }
  return undefined;
}

function pathDirs() {
  return absolutePath(process.env.PATH).split(path.delimiter).filter(Boolean);
}

/**
 * The highest `<name>-NN` on PATH.
 * @param {string} name
 */
function newestVersioned(name) {
  const dirs = pathDirs();
  /** @type {{ file: string, version: number } | undefined} */
  let best;
  const pattern = new RegExp(`^${name}-(\\d+)$`);
  for (const dir of dirs) {
    /** @type {string[]} */
    let entries;
    try {
      entries = readdirSync(dir);
    } catch {
      continue;
    }
    for (const entry of entries) {
      const version = Number(pattern.exec(entry)?.[1]);
      const file = path.join(dir, entry);
      if (version && (!best || version > best.version) && executable(file)) best = { file, version };
    }
  }
  return best;
}

/**
 * rustup installs a proxy for every component, installed or not; running one whose component is missing fails.
 * @param {string} file
 */
export function isMissingRustupComponent(file) {
  let real;
  try {
    real = realpathSync(file);
  } catch {
    return false;
  }
  if (path.basename(real) !== "rustup" && path.basename(real) !== "rustup-init") return false;
  return output(file, ["--version"], { timeout: 10_000 }) === undefined;
}

/**
 * The version of an npm package installed under `prefix`, or undefined.
 * @param {string} prefix
 * @param {string} name
 */
function installedVersion(prefix, name) {
  try {
    return JSON.parse(readFileSync(path.join(prefix, "node_modules", name, "package.json"), "utf8")).version;
  } catch {
    return undefined;
  }
}

/** @param {string} text */
const firstLine = (text) => text.trim().split("\n")[0] ?? "";

/**
 * @param {string} name
 * @param {string} module
 * @param {string} version
 * @returns {Component["install"]}
 */
function goInstall(name, module, version) {
  return ({ home, log }) => {
    if (!output("go", ["version"]))
      return "no Go toolchain on PATH: install Go (https://go.dev/dl), then run again";
    log(`building ${name} ${version} from source with go install (a minute or two, once)`);
    const r = spawnSync("go", ["install", `${module}@${version}`], {
      stdio: ["ignore", "inherit", "inherit"],
      env: {
        ...process.env,
        PATH: absolutePath(process.env.PATH),
        GOBIN: homeLayout(home).goBin,
        GOTOOLCHAIN: "local",
        GOFLAGS: "-modcacherw",
      },
    });
    return r.status === 0
      ? undefined
      : `go install ${module}@${version} failed (exit ${r.status ?? r.signal})`;
  };
}

/**
 * @param {string} name
 * @param {string} version
 * @returns {Component["check"]}
 */
function goCheck(name, version) {
  return (home) => {
    const binary = path.join(homeLayout(home).goBin, name);
    const text = executable(binary) ? output(binary, ["version"]) : undefined;
    return text?.includes(version.slice(1)) ? { version, where: binary } : undefined;
  };
}

/**
 * @param {string[]} packages
 * @returns {Component["install"]}
 */
function aptInstall(packages) {
  return ({ log, root }) => {
    if (!root || !output("apt-get", ["--version"]))
      return `not root, or no apt-get: install ${packages.join(" ")} with the system's package manager`;
    log(`apt-get install ${packages.join(" ")}`);
    for (const args of [
      ["update", "-qq"],
      ["install", "-y", "-qq", ...packages],
    ]) {
      const r = spawnSync("apt-get", args, { stdio: ["ignore", "inherit", "inherit"], env: absoluteEnv() });
      if (r.status !== 0) return `apt-get ${args.join(" ")} failed (exit ${r.status ?? r.signal})`;
    }
    return undefined;
  };
}

const PYTHON_CHECK = `import importlib.metadata as m, json, sys
print(json.dumps({p: m.version(p) for p in sys.argv[1:]}))`;

/** @type {Component[]} */
export const COMPONENTS = [
  {
    id: "python",
    what: `runbound's Python environment (${Object.keys(PYTHON_PACKAGES).join(", ")})`,
    serves: "eval (Python kernels, the Jupyter server), debug (debugpy)",
    check(home) {
      const { python, venv } = homeLayout(home);
      if (!executable(python)) return undefined;
      const names = [...Object.keys(PYTHON_PACKAGES), ...PYTHON_BUILD_TOOLS];
      const text = output(python, ["-c", PYTHON_CHECK, ...names], { timeout: 30_000 });
      if (!text) return undefined;
      /** @type {Record<string, string>} */
      const found = JSON.parse(text);
      const pinned = Object.entries(PYTHON_PACKAGES).every(([name, version]) => found[name] === version);
      const python3 = firstLine(output(python, ["--version"]) ?? "");
      return pinned
        ? { version: `${python3}, jupyter_server ${found.jupyter_server}`, where: venv }
        : undefined;
    },
    install({ home, log }) {
      const { python, venv } = homeLayout(home);
      if (!executable(python)) {
        if (!output("python3", ["--version"])) return "no python3 on PATH: install Python 3.9 or newer";
        log(`python3 -m venv ${venv}`);
        const made = spawnSync("python3", ["-m", "venv", venv], {
          stdio: ["ignore", "inherit", "inherit"],
          env: absoluteEnv(),
        });
        if (made.status !== 0) return `python3 -m venv failed (exit ${made.status ?? made.signal})`;
      }
      const pins = Object.entries(PYTHON_PACKAGES).map(([name, version]) => `${name}==${version}`);
      log(`pip install ${pins.join(" ")}`);
      const r = spawnSync(python, ["-m", "pip", "install", "-q", ...pins, ...PYTHON_BUILD_TOOLS], {
        stdio: ["ignore", "inherit", "inherit"],
      });
      return r.status === 0 ? undefined : `pip install failed (exit ${r.status ?? r.signal})`;
    },
  },
  npmComponent({
    id: "language-servers",
    what: `language servers from npm (${Object.entries(NPM_SERVERS)
      .map(([name, version]) => `${name} ${version}`)
      .join(", ")})`,
    serves:
      "lsp for Bash, YAML, JSON, CSS, HTML and Dockerfiles, and basedpyright for Python when a run asks for it",
    packages: NPM_SERVERS,
    label: "the language servers",
  }),
  npmComponent({
    id: "grammars",
    what: `ast-grep's other grammars from npm (${Object.keys(HOME_GRAMMARS).join(", ")})`,
    serves: "ast_grep and ast_edit in those languages (python, json and napi's own come with runbound)",
    packages: Object.fromEntries(Object.entries(HOME_GRAMMARS).map(([id, v]) => [`@ast-grep/lang-${id}`, v])),
    label: "the grammars",
    summary: `${Object.keys(HOME_GRAMMARS).length} grammars`,
  }),
  npmComponent({
    id: "node-kernel",
    what: `ZeroMQ for Node ${ZEROMQ_VERSION} (from npm)`,
    serves: "eval (JavaScript cells: runbound's kernel on the harness's Node)",
    packages: { zeromq: ZEROMQ_VERSION },
    label: "ZeroMQ",
  }),
  // Deno's binary is in its platform package (npm's optional dependency): no install script is needed.
  npmComponent({
    id: "deno",
    what: `Deno ${DENO_VERSION} (from npm)`,
    serves: 'eval (JavaScript cells in Deno\'s kernel, when a run asks for it: kernels.javascript "deno")',
    packages: { deno: DENO_VERSION },
    label: "Deno",
  }),
  npmComponent({
    id: "typescript6",
    what: `typescript-language-server ${TSLS_VERSION} with TypeScript ${TYPESCRIPT6_VERSION} and Vue's TypeScript plugin ${VUE_PLUGIN_VERSION} (from npm)`,
    serves:
      'lsp for Vue (.vue files), and for TypeScript and JavaScript when a run asks for it (lsp.typescript: "typescript-language-server")',
    packages: {
      "typescript-language-server": TSLS_VERSION,
      typescript6: `npm:typescript@${TYPESCRIPT6_VERSION}`,
      "@vue/typescript-plugin": VUE_PLUGIN_VERSION,
    },
    label: "typescript-language-server, TypeScript 6 and Vue's plugin",
  }),
  npmComponent({
    id: "tsx",
    what: `tsx ${TSX_VERSION} (from npm)`,
    serves: "debug of TypeScript programs when the project has no tsx of its own",
    packages: { tsx: TSX_VERSION },
    label: "tsx",
  }),
  {
    id: "shellcheck",
    what: "ShellCheck (the system's)",
    serves: "lsp diagnostics for Bash (bash-language-server runs it)",
    check() {
      const where = onPath("shellcheck");
      const version = where ? /^version:\s*(\S+)/m.exec(output(where, ["--version"]) ?? "")?.[1] : undefined;
      return where && version ? { version, where } : undefined;
    },
    install: aptInstall(["shellcheck"]),
  },
  {
    id: "gopls",
    what: `gopls ${GOPLS_VERSION}`,
    serves: "lsp for Go",
    check: goCheck("gopls", GOPLS_VERSION),
    install: goInstall("gopls", "golang.org/x/tools/gopls", GOPLS_VERSION),
  },
  {
    id: "delve",
    what: `delve ${DELVE_VERSION}`,
    serves: "debug for Go",
    check: goCheck("dlv", DELVE_VERSION),
    install: goInstall("dlv", "github.com/go-delve/delve/cmd/dlv", DELVE_VERSION),
  },
  {
    id: "rust-analyzer",
    what: "rust-analyzer and the standard library's source (components of the machine's Rust toolchain)",
    serves: "lsp for Rust",
    // rust-analyzer reads std from rust-src: on a fresh machine without it, its first answers were empty, until
    // something else had installed it.
    check: () => (hasRustSource() ? versionOf("rust-analyzer")() : undefined),
    install({ log }) {
      if (!output("rustup", ["--version"]))
        return "no rustup on PATH: install Rust with rustup, then run again";
      log("rustup component add rust-analyzer rust-src");
      const r = spawnSync("rustup", ["component", "add", "rust-analyzer", "rust-src"], {
        stdio: ["ignore", "inherit", "inherit"],
        env: absoluteEnv(),
      });
      return r.status === 0
        ? undefined
        : `rustup component add rust-analyzer rust-src failed (exit ${r.status})`;
    },
  },
  {
    id: "clangd",
    what: "clangd (the system's, the newest version its package manager offers)",
    serves: "lsp for C and C++",
    check() {
      const found = versionOf("clangd", { versioned: true })();
      return found && olderThanOffered(found.where, "clangd") ? undefined : found;
    },
    install: (context) => aptInstall([newestAptPackage("clangd")?.name ?? "clangd"])(context),
  },
  {
    id: "lldb",
    what: "lldb's debug adapter (lldb-dap or lldb-vscode, the system's)",
    serves: "debug for C, C++ and Rust",
    check() {
      const where = LLDB_ADAPTERS.map((name) => onPath(name, true)).find((found) => found !== undefined);
      if (!where || olderThanOffered(where, "lldb")) return undefined;
      return { version: path.basename(where), where };
    },
    install: (context) => aptInstall([newestAptPackage("lldb")?.name ?? "lldb"])(context),
  },
  {
    id: "gdb",
    what: "gdb (the system's)",
    serves: "debug attach to a running Python by process id (debugpy injects itself through gdb)",
    check: versionOf("gdb", { prefix: /^GNU gdb\s*(\(.*?\)\s*)?/ }),
    install: aptInstall(["gdb"]),
  },
  {
    id: "bubblewrap",
    what: "bubblewrap (the system's)",
    serves: "confinement of the processes that run code (kernels, debuggees, workers)",
    check: versionOf("bwrap", { prefix: /^bubblewrap\s*/ }),
    install: aptInstall(["bubblewrap"]),
  },
];

/**
 * A component's check by its command on PATH: the first line of `--version`, without the program's own name.
 * @param {string} name
 * @param {{ versioned?: boolean, prefix?: RegExp }} [options] `versioned`: clangd-14 counts; `prefix`: what to drop
 */
function versionOf(name, options = {}) {
  return () => {
    const where = onPath(name, options.versioned);
    const text = where ? output(where, ["--version"]) : undefined;
    if (!where || !text) return undefined;
    const line = firstLine(text);
    return { version: options.prefix ? line.replace(options.prefix, "") : line, where };
  };
}

/** @param {string} id */
export function componentById(id) {
  return COMPONENTS.find((c) => c.id === id);
}

/**
 * The one command that installs a managed component, for every message that says it is missing.
 * @param {string} id
 */
export function setupCommand(id) {
  return `npx runbound setup --only ${id}`;
}
