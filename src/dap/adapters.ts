/**
 * The debug adapters runbound drives. Usable = a root marker found (walking up from the program, not above the
 * workdir) AND the adapter resolved; `adapters` says for each why or why not. debugpy's program runs in its own
 * environment (files/python-environments.ts: the harness's activated one, the project's .venv, venv, poetry's,
 * pipenv's, .python-version's), else runbound's environment in its home (which has debugpy), else PATH — attaching
 * from the wrong interpreter fails in a way that reads as broken code.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { environmentHas } from "../files/python-env.js";
import { pythonEnvironments } from "../files/python-environments.js";
import { packageRoot } from "../home.js";
import { resolveBinary } from "../proc/binaries.js";
import { within } from "../proc/bubblewrap.js";
import { childEnvironment } from "../proc/environment.js";
import { LLDB_ADAPTERS, setupCommand } from "../setup/components.mjs";
import { homeLayout } from "../setup/home.mjs";
import { NODE_EXTENSIONS, nodeAdapter, nodeLaunchArguments } from "./node/catalog.js";

export type BuiltInAdapter = "debugpy" | "delve" | "lldb" | "node" | "dart";
/** A built-in adapter, or one of the harness's own (`debug.adapters`), by its id. */
export type AdapterId = BuiltInAdapter | (string & {});

export interface ResolvedAdapter {
  readonly id: AdapterId;
  readonly command: string;
  readonly args: readonly string[];
  /** delve speaks DAP over TCP: it prints the address it listens on. */
  readonly transport: "stdio" | "tcp";
  /** One line for `adapters`: which binary or interpreter, and from where. */
  readonly detail: string;
  /**
   * The adapter joins a program already running on the host (lldb-server): it runs there too, since lldb cannot
   * attach from another PID namespace, and the program is not runbound's to confine.
   */
  readonly onHost?: boolean;
  /** A build cache of the workdir's own for when it runs confined (proc/build-cache.ts says why). */
  readonly buildCache?: "go";
  /**
   * The interpreter the program runs under when it is not the adapter's (debugpy's adapter from runbound's
   * environment, the program under the project's interpreter, as VS Code launches it: nothing installed there).
   */
  readonly interpreter?: string;
  /** Host folders the adapter must read although a sandbox hides them (an environment in poetry's cache). */
  readonly readable?: readonly string[];
  /** A module Node imports before a TypeScript program (tsx's loader), as a file URL. */
  readonly loader?: string;
}

export interface AdapterSpec {
  readonly id: AdapterId;
  readonly name: string;
  readonly rootMarkers: readonly string[];
  /** Program file extensions this adapter debugs (an executable without extension goes to lldb). */
  readonly extensions: readonly string[];
  readonly install: string;
  /** The setup component that brings it (`npx runbound setup --only <component>`), when one does. */
  readonly component?: string;
  /**
   * `home`: runbound's home, where `runbound setup` put its Python environment, delve. `project: false` leaves the
   * project's own binaries and environments out: for a debugger that runs on the host (an attach), where they
   * would run outside the run's sandbox.
   */
  resolve(
    root: string,
    workdir: string,
    home: string,
    options?: { readonly project?: boolean },
  ): ResolvedAdapter | { missing: string };
  launchArguments(
    program: string,
    args: readonly string[],
    cwd: string,
    adapter?: ResolvedAdapter,
  ): Record<string, unknown>;
}

/**
 * The folder runbound puts on PYTHONPATH of a program it debugs with debugpy: its sitecustomize sets TCP_NODELAY on
 * pydevd's socket (a step's round trips waited on Nagle's algorithm) and gives the environment back as it was.
 */
const DEBUGPY_NODELAY_DIR = path.join(packageRoot(), "python", "debugpy-nodelay");

/** PYTHONPATH for the debuggee with the nodelay folder first; the original travels along to be restored. */
function debuggeeEnvironment(): Record<string, string> {
  const original = process.env.PYTHONPATH;
  return {
    PYTHONPATH: original ? `${DEBUGPY_NODELAY_DIR}${path.delimiter}${original}` : DEBUGPY_NODELAY_DIR,
    // Absent: the program had no PYTHONPATH.
    ...(original !== undefined ? { RUNBOUND_ORIGINAL_PYTHONPATH: original } : {}),
  };
}

export const ADAPTERS: readonly AdapterSpec[] = [
  {
    id: "debugpy",
    name: "debugpy",
    rootMarkers: ["pyproject.toml", "setup.py", "setup.cfg", "requirements.txt"],
    extensions: [".py"],
    component: "python",
    install: `${setupCommand("python")} (runbound's Python environment has debugpy)`,
    resolve(root, workdir, home, options) {
      const python = choosePython(root, workdir, home, options?.project ?? true);
      if (!python)
        return {
          missing: `no Python interpreter found (VIRTUAL_ENV, CONDA_PREFIX, .venv, venv, poetry's or pipenv's environment, .python-version, runbound's home, PATH): create the project's environment, or install runbound's: ${setupCommand("python")}`,
        };
      // An environment outside the workdir (poetry's cache, pipenv's home, a harness's) is shown to the sandbox.
      const readable = python.env && !within(python.env, workdir) ? { readable: [python.env] } : {};
      if (!hasDebugpy(python)) {
        // The program's interpreter needs nothing: debugpy's launcher, run under it, brings debugpy along.
        const adapter = homeLayout(home).python;
        if (python.path !== adapter && existsSync(adapter) && interpreterImportsDebugpy(adapter))
          return {
            id: "debugpy",
            command: adapter,
            args: ["-m", "debugpy.adapter"],
            transport: "stdio",
            interpreter: python.path,
            detail: `${python.from} interpreter ${python.path} (debugpy from runbound's environment)`,
            ...readable,
          };
        return {
          missing: `${python.from} interpreter ${python.path} has no debugpy, and runbound's home has no Python environment with it: ${setupCommand("python")}, or ${python.path} -m pip install debugpy`,
        };
      }
      return {
        id: "debugpy",
        command: python.path,
        args: ["-m", "debugpy.adapter"],
        transport: "stdio",
        detail: `${python.from} interpreter ${python.path}`,
        ...readable,
      };
    },
    launchArguments: (program, args, cwd, adapter) => ({
      type: "python",
      request: "launch",
      program,
      args,
      cwd,
      ...(adapter?.interpreter ? { python: [adapter.interpreter] } : {}),
      console: "internalConsole",
      justMyCode: true,
      showReturnValue: false,
      env: debuggeeEnvironment(),
    }),
  },
  {
    id: "delve",
    name: "delve",
    rootMarkers: ["go.mod"],
    extensions: [".go"],
    component: "delve",
    install: `${setupCommand("delve")} (builds it with the machine's Go into runbound's home)`,
    resolve(root, workdir, home, options) {
      const found = resolveBinary(
        { name: "dlv", args: ["dap", "--listen=127.0.0.1:0"] },
        root,
        workdir,
        home,
        options,
      );
      if (!found) return { missing: "dlv was not found in the project, runbound's home or PATH" };
      return {
        id: "delve",
        command: found.command,
        args: found.args,
        transport: "tcp",
        detail: `dlv at ${found.command}`,
        buildCache: "go",
      };
    },
    // delve builds the package of `program` (a file or folder) itself.
    launchArguments: (program, args, cwd) => ({ request: "launch", mode: "debug", program, args, cwd }),
  },
  {
    id: "lldb",
    name: "lldb",
    rootMarkers: ["Cargo.toml", "CMakeLists.txt", "compile_commands.json", "Makefile"],
    extensions: ["", ".out", ".bin"],
    component: "lldb",
    install: `${setupCommand("lldb")} (apt-get as root; otherwise the system's lldb package: its adapter is lldb-dap, or lldb-vscode-NN on older distributions)`,
    resolve(root, workdir, home, options) {
      for (const name of LLDB_ADAPTERS) {
        const found = resolveBinary({ name, args: [], versioned: true }, root, workdir, home, options);
        if (found)
          return {
            id: "lldb",
            command: found.command,
            args: [],
            transport: "stdio",
            detail: `${path.basename(found.command)} at ${found.command}`,
          };
      }
      return { missing: "neither lldb-dap nor lldb-vscode(-NN) was found on PATH" };
    },
    launchArguments: (program, args, cwd) => ({ request: "launch", program, args, cwd, stopOnEntry: false }),
  },
  {
    id: "node",
    name: "node",
    rootMarkers: ["package.json", "tsconfig.json", "jsconfig.json"],
    extensions: NODE_EXTENSIONS,
    install: `nothing for JavaScript (the harness's own Node runs it); TypeScript needs tsx: the project's (npm install -D tsx) or ${setupCommand("tsx")}`,
    resolve(root, workdir, home, options) {
      const node = nodeAdapter(root, workdir, home, options?.project ?? true);
      return {
        id: "node",
        command: node.command,
        args: node.args,
        transport: "stdio",
        detail: node.detail,
        ...(node.loader ? { loader: node.loader } : {}),
      };
    },
    launchArguments: (program, args, cwd, adapter) =>
      nodeLaunchArguments(program, args, cwd, adapter?.loader),
  },
  {
    id: "dart",
    name: "Dart debug adapter",
    rootMarkers: ["pubspec.yaml"],
    extensions: [".dart"],
    install: "install the Dart SDK so that `dart` is on PATH",
    resolve(root, workdir, home) {
      const found = resolveBinary({ name: "dart", args: ["debug_adapter"] }, root, workdir, home);
      if (!found) return { missing: "dart was not found on PATH" };
      return {
        id: "dart",
        command: found.command,
        args: found.args,
        transport: "stdio",
        detail: `dart at ${found.command}`,
      };
    },
    // Dart keeps the VM's own arguments (toolArgs) apart from the program's (args).
    launchArguments: (program, args, cwd) => ({ request: "launch", program, args, toolArgs: [], cwd }),
  },
];

/** Interpreters known to have debugpy (asking costs ~150 ms; a "no" is asked again, it may have been installed). */
const WITH_DEBUGPY = new Set<string>();

/**
 * Whether the interpreter has debugpy. A project's own (.venv, venv) is the repository's code: its folders are
 * looked at, the program is never run (on the host it would run outside the run's sandbox).
 */
function hasDebugpy(python: ChosenPython): boolean {
  return python.project ? environmentHas(python.path, "debugpy") : interpreterImportsDebugpy(python.path);
}

function interpreterImportsDebugpy(python: string): boolean {
  if (WITH_DEBUGPY.has(python)) return true;
  const check = spawnSync(python, ["-c", "import debugpy"], {
    encoding: "utf8",
    timeout: 15_000,
    env: childEnvironment(process.env),
  });
  if (check.status === 0) WITH_DEBUGPY.add(python);
  return check.status === 0;
}

/** An interpreter for debugpy, where it was found, and whether it is the project's own (the repository's code). */
interface ChosenPython {
  readonly path: string;
  readonly from: string;
  readonly project: boolean;
  /** The environment's folder, when it is one of the project's or the harness's. */
  readonly env?: string;
}

function choosePython(
  root: string,
  workdir: string,
  home: string,
  project: boolean,
): ChosenPython | undefined {
  const env = pythonEnvironments(root, workdir).find((e) => project || !e.project);
  if (env) return { path: env.python, from: env.label, project: env.project, env: env.env };
  const own = homeLayout(home).python;
  if (existsSync(own)) return { path: own, from: "runbound's", project: false };
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    const python = path.join(dir, "python3");
    if (dir && existsSync(python)) return { path: python, from: "PATH", project: false };
  }
  return undefined;
}

export function adapterForProgram(program: string, adapters: readonly AdapterSpec[] = ADAPTERS): AdapterSpec {
  // A folder is a package: delve builds a folder of .go files, debugpy runs a folder with __main__.py.
  if (statSync(program).isDirectory()) {
    const names = readdirSync(program);
    if (names.some((n) => n.endsWith(".go"))) return ADAPTERS.find((a) => a.id === "delve")!;
    if (names.includes("__main__.py")) return ADAPTERS.find((a) => a.id === "debugpy")!;
  }
  const ext = path.extname(program).toLowerCase();
  // The harness's own adapters come first in `adapters`: one that claims binaries without an extension wins too.
  const custom = adapters.find((a) => !ADAPTERS.includes(a) && a.extensions.includes(ext));
  return (
    custom ??
    adapters.find((a) => a.extensions.includes(ext) && ext !== "") ??
    ADAPTERS.find((a) => a.id === "lldb")!
  );
}

/** A program already running under a debug server, on a loopback port. */
export type AttachTarget =
  | { readonly kind: "debugpy" | "delve"; readonly host: string; readonly port: number }
  | { readonly kind: "gdb-remote"; readonly host: string; readonly port: number; readonly program?: string }
  | {
      readonly kind: "node";
      readonly host: string;
      readonly port: number;
      /** runbound opened the inspector (SIGUSR1): the adapter closes it when the session ends. */
      readonly closeInspector: boolean;
    }
  | {
      readonly kind: "pid";
      readonly adapter: Exclude<BuiltInAdapter, "dart" | "node">;
      readonly pid: number;
    };

/**
 * How to join a program already running under a debug server. debugpy (`python -m debugpy --listen`) and delve
 * (`dlv --headless`, "remote attach") speak DAP on their port, so the client talks to it directly (`remote`);
 * lldb-server speaks gdb-remote, so runbound's lldb adapter connects to it (`gdb-remote HOST:PORT`). By process id,
 * each adapter attaches itself (debugpy injects itself through gdb).
 */
export function attachRequest(target: AttachTarget): {
  remote: { host: string; port: number } | undefined;
  args: Record<string, unknown>;
} {
  if (target.kind === "pid") {
    const args = {
      debugpy: { processId: target.pid, justMyCode: true },
      delve: { mode: "local", processId: target.pid },
      lldb: { pid: target.pid },
    }[target.adapter];
    return { remote: undefined, args: { request: "attach", ...args } };
  }
  if (target.kind === "node")
    return {
      remote: undefined,
      args: {
        request: "attach",
        host: target.host,
        port: target.port,
        closeInspector: target.closeInspector,
      },
    };
  if (target.kind === "gdb-remote")
    return {
      remote: undefined,
      args: {
        request: "attach",
        attachCommands: [`gdb-remote ${target.host}:${target.port}`],
        ...(target.program ? { program: target.program } : {}),
      },
    };
  return {
    remote: { host: target.host, port: target.port },
    args:
      target.kind === "delve"
        ? { request: "attach", mode: "remote" }
        : { request: "attach", justMyCode: true },
  };
}
