/**
 * A Jupyter server, started on demand: a run's own (in its container, or confined in its sandbox, with its
 * kernels), or the host's shared one (shared-server.ts). Loopback only (or a Unix socket), a random token in a
 * private 0700 folder, runbound's kernelspecs on JUPYTER_PATH, and python/jupyter-server-config.py.
 */
import { randomBytes } from "node:crypto";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { ServerConnection } from "@jupyterlab/services";
import WebSocket from "ws";
import { packageRoot } from "../home.js";
import type { ProcessTracker, TrackedProcess } from "../proc/tracker.js";
import { ownerGone } from "../proc/tree.js";
import { socketAccepts, unixFetch, unixWebSocket } from "./unix-socket.js";

/** The servers' configuration (python/jupyter-server-config.py says what it does and why). */
const CONFIG = () => readFileSync(path.join(packageRoot(), "python", "jupyter-server-config.py"), "utf8");

const FOLDER_PREFIX = "runbound-jupyter-";
const OWNER_FILE = "owner";
/**
 * The one part of the server's private folder the server itself writes (its runtime files, its socket, the kernels'
 * stderr). A confined server and its kernels may change anything in it, so runbound only reads there, without
 * following links; what runbound writes (the configuration, the kernelspecs, the runs' connection folders) is in
 * the rest of the folder, which a confined server sees read-only.
 */
const STATE_FOLDER = "state";
/** The folder of the kernels' stderr files, in the server's state folder. */
const STDERR_FOLDER = "kernel-stderr";

/** A folder without an owner file (made before there was one) is stale only when this old. */
const UNOWNED_STALE_MS = 60 * 60 * 1000;

/**
 * Removes the private folders of servers whose host process is gone (killed before it could clean up): each names
 * its owner's pid. Only this user's folders; a live owner's, or a pid that is alive again, is left alone.
 */
export function sweepStaleFolders(): void {
  let names: string[];
  try {
    names = readdirSync(tmpdir()).filter((n) => n.startsWith(FOLDER_PREFIX));
  } catch {
    return;
  }
  for (const name of names) {
    const dir = path.join(tmpdir(), name);
    try {
      const info = statSync(dir);
      if (!info.isDirectory() || info.uid !== process.getuid?.()) continue;
      const owner = Number(readFileSync(path.join(dir, OWNER_FILE), "utf8").trim());
      if (ownerGone(owner)) remove(dir);
    } catch (error) {
      // No owner file: a folder from before owners were written, stale once it is old.
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") continue;
      const info = statSync(dir, { throwIfNoEntry: false });
      if (info && Date.now() - info.mtimeMs > UNOWNED_STALE_MS) remove(dir);
    }
  }
}

function remove(dir: string): void {
  try {
    rmSync(dir, { recursive: true, force: true });
  } catch {
    // Another process's to clean, then.
  }
}

export interface KernelSpecFile {
  readonly name: string;
  readonly displayName: string;
  readonly language: string;
  readonly argv: readonly string[];
  /**
   * Set for the kernel on top of the server's environment. A shared server's kernels carry their run's here, with
   * RUNBOUND_KERNEL_DIR (the run's folder for their connection files, which only its sandbox sees) and
   * RUNBOUND_KERNEL_CONFINED (an interrupt goes to the processes inside the sandbox: bubblewrap does not pass signals on).
   */
  readonly env?: Readonly<Record<string, string>>;
  /** The kernel takes CurveZMQ keys from its connection file (runbound's ipykernel): its sockets are encrypted. */
  readonly curve?: boolean;
}

export class JupyterServer {
  readonly #home: string;
  readonly #state: string;
  #process: TrackedProcess | undefined;
  #settings: ServerConnection.ISettings | undefined;

  /** `parent`: where its private folder goes (default the system's temporary folder). */
  constructor(parent: string = tmpdir()) {
    sweepStaleFolders();
    this.#home = realpathSync(mkdtempSync(path.join(parent, FOLDER_PREFIX)));
    writeFileSync(path.join(this.#home, OWNER_FILE), `${process.pid}\n`, { mode: 0o600 });
    this.#state = path.join(this.#home, STATE_FOLDER);
    mkdirSync(path.join(this.#state, STDERR_FOLDER), { recursive: true, mode: 0o700 });
  }

  /** Where the kernel of this id writes its stderr (the server's config puts it there; no kernel can write here). */
  kernelStderr(kernelId: string): string {
    return path.join(this.#state, STDERR_FOLDER, `kernel-${path.basename(kernelId)}.stderr`);
  }

  get settings(): ServerConnection.ISettings | undefined {
    return this.#settings;
  }

  get pid(): number | undefined {
    return this.#process?.pid;
  }

  /** Settles when the server process exits (after start). */
  get exited(): Promise<unknown> | undefined {
    return this.#process?.exited;
  }

  /** Writes (or rewrites) a kernelspec; the server reads it again at each kernel start. */
  writeSpec(spec: KernelSpecFile): void {
    const dir = path.join(this.#home, "share", "jupyter", "kernels", spec.name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      path.join(dir, "kernel.json"),
      JSON.stringify({
        argv: spec.argv,
        display_name: spec.displayName,
        language: spec.language,
        interrupt_mode: "signal",
        ...(spec.env ? { env: spec.env } : {}),
        ...(spec.curve ? { metadata: { supported_encryption: "curve" } } : {}),
      }),
      { mode: 0o600 },
    );
  }

  /** Removes a kernelspec (a run that shared this server is gone). */
  removeSpec(name: string): void {
    rmSync(path.join(this.#home, "share", "jupyter", "kernels", name), { recursive: true, force: true });
  }

  /**
   * A folder of one run's own in the server's private folder, made if need be: its kernels' connection files, which
   * the server writes and only that run's sandboxes see (read-only). No confined process can replace it with a link.
   */
  runFolder(name: string): string {
    const dir = path.join(this.#home, "runs", name);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    return dir;
  }

  /** Removes a run's folder (its kernels are gone). */
  removeRunFolder(name: string): void {
    rmSync(path.join(this.#home, "runs", name), { recursive: true, force: true });
  }

  /** Host folders its sandbox shows besides its own (environments of the project's outside the workdir). */
  #readable: readonly string[] = [];

  async start(
    python: string,
    workdir: string,
    specs: readonly KernelSpecFile[],
    processes: ProcessTracker,
    timeoutMs: number,
    readable: readonly string[] = [],
  ): Promise<ServerConnection.ISettings> {
    // Its kernels may run in an environment outside the workdir (poetry's cache): the sandbox shows it.
    this.#readable = readable;
    const share = path.join(this.#home, "share", "jupyter");
    for (const spec of specs) this.writeSpec(spec);
    // The token lives in the config file, in this 0700 folder, never in argv: /proc/<pid>/cmdline is readable by
    // every user of the host, and with the token /api/kernels runs code as the run's user.
    const token = randomBytes(24).toString("hex");
    const config = path.join(this.#home, "jupyter_server_config.py");
    writeFileSync(config, `${CONFIG()}\nc.IdentityProvider.token = ${JSON.stringify(token)}\n`, {
      mode: 0o600,
    });
    const deadline = Date.now() + timeoutMs;
    if (!processes.confinedPlace.hostLoopback) {
      this.#settings = await this.#startOnSocket(processes, python, workdir, config, share, token, deadline);
      return this.#settings;
    }
    let url: string | undefined;
    // jupyter_server picks its port by binding, closing, and binding again later, so another process can take the
    // port in between (the server then exits), and it prints its URL before it listens. Start again when the port
    // was lost; answer only once a connection is accepted.
    for (let attempt = 1; !url; attempt++) {
      const proc = this.#spawn(processes, python, workdir, config, share);
      this.#process = proc;
      try {
        url = await listeningUrl(proc, deadline, timeoutMs);
      } catch (error) {
        await processes.kill(proc.pid, 2000);
        this.#process = undefined;
        if (!(error instanceof PortLost) || attempt >= 3 || Date.now() >= deadline) throw error;
      }
    }
    this.#settings = ServerConnection.makeSettings({
      baseUrl: url,
      wsUrl: url.replace(/^http/, "ws"),
      token,
      appendToken: true,
      WebSocket: WebSocket as unknown as typeof globalThis.WebSocket,
      fetch: globalThis.fetch,
    });
    return this.#settings;
  }

  /** A server in a place with its own loopback listens on a Unix socket in its private folder, which the host reaches. */
  async #startOnSocket(
    processes: ProcessTracker,
    python: string,
    workdir: string,
    config: string,
    share: string,
    token: string,
    deadline: number,
  ): Promise<ServerConnection.ISettings> {
    const socket = path.join(this.#state, "server.sock");
    const proc = this.#spawn(processes, python, workdir, config, share, [`--ServerApp.sock=${socket}`]);
    this.#process = proc;
    let seen = "";
    proc.child.stderr?.on("data", (d: Buffer) => {
      seen = (seen + d.toString()).slice(-4000);
    });
    let exited: number | null | undefined;
    void proc.exited.then(({ code }) => {
      exited = code;
    });
    while (!(await socketAccepts(socket))) {
      if (exited !== undefined)
        throw new Error(`the Jupyter server exited (code ${exited}): ${seen.slice(-400)}`);
      if (Date.now() >= deadline) {
        await processes.kill(proc.pid, 2000);
        throw new Error(`the Jupyter server did not start in time: ${seen.slice(-400)}`);
      }
      await delay(25);
    }
    return ServerConnection.makeSettings({
      baseUrl: "http://localhost/",
      wsUrl: "ws://localhost/",
      token,
      appendToken: true,
      WebSocket: unixWebSocket(socket),
      fetch: unixFetch(socket),
    });
  }

  #spawn(
    processes: ProcessTracker,
    python: string,
    workdir: string,
    config: string,
    share: string,
    listen: readonly string[] = [
      "--ServerApp.ip=127.0.0.1",
      "--ServerApp.port=0",
      "--ServerApp.port_retries=0",
    ],
  ): TrackedProcess {
    return processes.spawn(
      "jupyter server",
      python,
      [
        "-m",
        "jupyter_server",
        "--no-browser",
        "--allow-root",
        `--config=${config}`,
        ...listen,
        `--ServerApp.root_dir=${workdir}`,
      ],
      {
        env: {
          JUPYTER_RUNTIME_DIR: path.join(this.#state, "runtime"),
          JUPYTER_DATA_DIR: share,
          JUPYTER_PATH: share,
          JUPYTER_CONFIG_DIR: path.join(this.#home, "config"),
          RUNBOUND_KERNEL_STDERR_DIR: path.join(this.#state, STDERR_FOLDER),
        },
        // Kernels start in the server's folder: the workdir, so relative paths in cells mean what the agent means.
        cwd: workdir,
        stdio: ["ignore", "pipe", "pipe"],
        // The server is confined with its kernels: a cell's code and `!cmd` run in the kernel, under the server.
        confined: true,
        readable: [this.#home, ...this.#readable],
        writable: [this.#state],
      },
    );
  }

  async stop(processes: ProcessTracker): Promise<void> {
    if (this.#process) await processes.kill(this.#process.pid, 2000);
    this.#process = undefined;
    rmSync(this.#home, { recursive: true, force: true });
  }
}

class PortLost extends Error {}

/** The server's URL once it accepts a connection; PortLost when it exited or never listened on the port it named. */
async function listeningUrl(proc: TrackedProcess, deadline: number, timeoutMs: number): Promise<string> {
  let seen = "";
  let exited: number | null | undefined;
  proc.child.stderr?.on("data", (d: Buffer) => {
    seen = (seen + d.toString()).slice(-4000);
  });
  proc.exited.then(({ code }) => {
    exited = code;
  });
  let url: string | undefined;
  while (Date.now() < deadline) {
    if (exited !== undefined) {
      const lost = /already in use|could not be started/.test(seen);
      const message = `the Jupyter server exited (code ${exited}): ${seen.slice(-400)}`;
      throw lost ? new PortLost(message) : new Error(message);
    }
    url ??= /(http:\/\/127\.0\.0\.1:\d+\/)/.exec(seen)?.[1];
    if (url && (await accepts(new URL(url)))) return url;
    await delay(url ? 10 : 25);
  }
  if (url)
    throw new PortLost(`the Jupyter server named ${url} but did not listen on it within ${timeoutMs} ms`);
  throw new Error(`the Jupyter server did not start within ${timeoutMs} ms: ${seen.slice(-400)}`);
}

function accepts(url: URL): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), url.hostname);
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/** Whether a harness's server answers its API at all (a kernel lost with its server is said as such). */
export async function serverAnswers(server: {
  readonly url: string;
  readonly token: string;
}): Promise<boolean> {
  try {
    const response = await fetch(new URL("api/kernelspecs", server.url), {
      headers: { Authorization: `token ${server.token}` },
      signal: AbortSignal.timeout(2000),
    });
    return response.ok;
  } catch {
    return false;
  }
}
