/**
 * The processes one run started. Resources spawn through the tracker, so `run.dispose()` can end every one of
 * them, as trees, and nothing outlives the run.
 */
import { type ChildProcess, type SpawnOptions, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { accessSync, constants, existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { absolutePathEntries, childEnvironment, type EnvPolicy } from "./environment.js";
import { HOST_PLACE, type Place } from "./place.js";
import { killAllOf, killTree, processesMarked } from "./tree.js";

const SETPRIV =
  process.platform === "linux" && existsSync("/usr/bin/setpriv") ? "/usr/bin/setpriv" : undefined;

/** Whether `command` (a path, or a name looked up on PATH) is an executable file. */
function canExecute(command: string, env: NodeJS.ProcessEnv): boolean {
  const candidates = command.includes("/")
    ? [command]
    : absolutePathEntries(env.PATH)
        .split(path.delimiter)
        .filter(Boolean)
        .map((dir) => path.join(dir, command));
  return candidates.some((file) => {
    try {
      accessSync(file, constants.X_OK);
      return statSync(file).isFile();
    } catch {
      return false;
    }
  });
}

/** Every child of a run carries this variable, so descendants that daemonize (setsid + fork) are still found. */
export const RUN_MARKER = "RUNBOUND_RUN";

export interface TrackedProcess {
  readonly pid: number;
  readonly label: string;
  readonly child: ChildProcess;
  /** Resolves with the exit code (or signal) once the process has exited. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** How long the rest of a process's output may take after its exit (a daemonized child may hold the pipe). */
const DRAIN_MS = 2000;

/**
 * The exit status once the process has exited and its pipes are read to the end: Node's "exit" can come before the
 * last bytes of stdout are read, so a result taken at "exit" can be cut short (a worker's output was lost whole).
 */
export async function exitedAndDrained(
  proc: TrackedProcess,
): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  const { stdout, stderr } = proc.child;
  const open = [stdout, stderr].some((pipe) => pipe && !pipe.destroyed);
  const closed = open ? once(proc.child, "close") : undefined;
  const status = await proc.exited;
  if (closed) {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, DRAIN_MS);
      timer.unref();
    });
    await Promise.race([closed.catch(() => undefined), late]);
    clearTimeout(timer);
  }
  return status;
}

/**
 * The run's watchdog: a shell reading a pipe from this process. The pipe closes when this process ends however it
 * ends — SIGKILL included — and the shell then kills every process still carrying the run's marker: the
 * grandchildren a parent-death signal does not reach (a debuggee under its adapter, a daemonized descendant).
 * At dispose it is killed first, silently: dispose ends the trees itself, gracefully.
 */
const WATCHDOG = `read -r _line
for e in /proc/[0-9]*/environ; do
  [ "$e" = "/proc/$$/environ" ] && continue
  if grep -qzx "${RUN_MARKER}=$1" "$e" 2>/dev/null; then p="\${e#/proc/}"; kill -KILL "\${p%/environ}" 2>/dev/null; fi
done`;

export interface SpawnWith extends Omit<SpawnOptions, "env"> {
  /**
   * Variables runbound sets for this child, on top of the run's environment (the harness's by allow-list, `pass`
   * and `set`): never a whole environment, which would bring the harness's secrets along.
   */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Names of the harness's environment this child gets besides the allow-list (a worker backend's own). */
  readonly passEnv?: readonly string[];
  /** Run the child in the run's confined place (exec-tier processes, and servers that run the project's code). */
  readonly confined?: boolean;
  /** Host folders the child writes besides the workdir (a confined place shows them writable). */
  readonly writable?: readonly string[];
  /** Host folders the child reads although a confined place hides them (shown read-only). */
  readonly readable?: readonly string[];
}

export class ProcessTracker {
  readonly #live = new Map<number, TrackedProcess>();
  readonly #token = randomUUID();
  readonly #env: EnvPolicy;
  #closed = false;
  #watchdog: ChildProcess | undefined;

  /** Where a child that asks to be confined runs: a sandbox, or the host when the run does not confine. */
  readonly confinedPlace: Place;

  /**
   * `env`: what every child gets of the harness's environment (credentials are dropped unless passed);
   * `confined`: the place for children that ask to be confined (default: the host).
   */
  constructor(options: { readonly env?: EnvPolicy; readonly confined?: Place } = {}) {
    this.#env = options.env ?? {};
    this.confinedPlace = options.confined ?? HOST_PLACE;
  }

  /** Spawns a child in its own process group, tracked until it exits, with the run's environment policy applied. */
  spawn(label: string, command: string, args: readonly string[], options: SpawnWith = {}): TrackedProcess {
    if (this.#closed) throw new Error(`cannot start ${label}: the run has ended`);
    if (!canExecute(command, this.environment(options))) {
      throw new Error(`could not start ${label}: \`${command}\` did not start (not found or not executable)`);
    }
    this.#watch();
    const { passEnv, confined, writable, readable, env: _env, ...spawnOptions } = options;
    const planned = this.launch(label, command, args, options);
    const [cmd, ...argv] = planned.argv as [string, ...string[]];
    const child = spawn(cmd, argv, {
      ...spawnOptions,
      env: planned.env,
      detached: true,
      ...(planned.cwd ? { cwd: planned.cwd } : {}),
    });
    // A failed spawn (ENOENT, EACCES) also emits 'error' later; without a listener that would crash the process.
    child.on("error", () => undefined);
    if (child.pid === undefined) {
      const cwd = typeof options.cwd === "string" ? options.cwd : undefined;
      const why =
        cwd && !existsSync(cwd) ? `its working folder ${cwd} does not exist` : "not found or not executable";
      throw new Error(`could not start ${label}: \`${command}\` did not start (${why})`);
    }
    const pid = child.pid;
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
      child.once("exit", (code, signal) => {
        this.#live.delete(pid);
        resolve({ code, signal });
      });
    });
    const tracked: TrackedProcess = { pid, label, child, exited };
    this.#live.set(pid, tracked);
    return tracked;
  }

  /**
   * What `spawn` would run, without running it: the command line (in the place it asks for, under a parent-death
   * signal) and the environment (the run's policy and marker) — for a child another process starts on the run's
   * behalf (a shared Jupyter server's kernel), which then is the run's as much as one it spawned.
   */
  launch(
    label: string,
    command: string,
    args: readonly string[],
    options: Pick<SpawnWith, "env" | "passEnv" | "confined" | "writable" | "readable" | "cwd"> = {},
  ): { argv: string[]; env: NodeJS.ProcessEnv; cwd: string | undefined } {
    const place = options.confined ? this.confinedPlace : HOST_PLACE;
    const unavailable = place.unavailable?.();
    if (unavailable) throw new Error(`could not start ${label}: ${unavailable}`);
    const base = this.environment(options);
    const cwd = typeof options.cwd === "string" ? options.cwd : undefined;
    const planned = place.plan({
      command,
      args,
      env: { ...base, [RUN_MARKER]: this.#token },
      ...(cwd ? { cwd } : {}),
      ...(options.writable ? { writable: options.writable } : {}),
      ...(options.readable ? { readable: options.readable } : {}),
    });
    // If the parent dies without ending it (this Node process SIGKILLed), the child gets SIGTERM from the kernel:
    // setpriv arms the parent-death signal and then execs the command itself (same pid).
    const argv = SETPRIV
      ? [SETPRIV, "--pdeathsig", "SIGTERM", "--", planned.command, ...planned.args]
      : [planned.command, ...planned.args];
    return { argv, env: planned.env ?? base, cwd: planned.cwd };
  }

  /** What a child starts with: the run's environment (allow-list, pass, set) and what runbound sets for it. */
  environment(options: Pick<SpawnWith, "env" | "passEnv"> = {}): NodeJS.ProcessEnv {
    const base = childEnvironment(process.env, this.#env, options.passEnv);
    const env: NodeJS.ProcessEnv = { ...base, ...options.env };
    if (env.PATH !== undefined) env.PATH = absolutePathEntries(env.PATH);
    return env;
  }

  /** Starts the watchdog once, on the first spawn (Linux: it reads /proc). */
  #watch(): void {
    if (this.#watchdog || process.platform !== "linux" || !existsSync("/bin/sh")) return;
    // Without the marker itself, and in its own process group: a terminal's Ctrl-C to this process spares it.
    const { [RUN_MARKER]: _, ...env } = process.env;
    const watchdog = spawn("/bin/sh", ["-c", WATCHDOG, "runbound-watchdog", this.#token], {
      stdio: ["pipe", "ignore", "ignore"],
      detached: true,
      env,
    });
    watchdog.on("error", () => undefined);
    watchdog.stdin?.on("error", () => undefined);
    // Neither the process nor its pipe keeps this process alive.
    watchdog.unref();
    (watchdog.stdin as unknown as { unref?: () => void } | null)?.unref?.();
    this.#watchdog = watchdog;
  }

  /** Whether `pid` is one of this run's processes (it carries the run's marker, however it was started). */
  owns(pid: number): boolean {
    try {
      return readFileSync(`/proc/${pid}/environ`, "latin1")
        .split("\0")
        .includes(`${RUN_MARKER}=${this.#token}`);
    } catch {
      return false;
    }
  }

  running(): TrackedProcess[] {
    return [...this.#live.values()];
  }

  async kill(pid: number, graceMs?: number): Promise<void> {
    await killTree(pid, graceMs);
  }

  /** Ends every tracked process tree, and any process that escaped its tree; no new process may start afterwards. */
  async killAll(graceMs?: number): Promise<void> {
    this.#closed = true;
    this.#watchdog?.kill("SIGKILL");
    this.#watchdog = undefined;
    await Promise.all([...this.#live.keys()].map((pid) => killTree(pid, graceMs)));
    const escaped = await processesMarked(RUN_MARKER, this.#token);
    if (escaped.length) await killAllOf(escaped, graceMs);
    await this.confinedPlace.dispose();
  }
}
