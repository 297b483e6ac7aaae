/**
 * A run's own network namespace, shared by all its sandboxes: its loopback is the run's (a server a cell started is
 * reached by the run's worker and debuggee, never by a neighbour run or the host's processes), and its way out is
 * runbound's proxy. A holder process keeps the namespace: `unshare` makes it (with a user namespace when the harness
 * is not root, so no privilege is needed), a few lines of Python bring its loopback up (`unshare` leaves it down;
 * bubblewrap raises it only in a namespace it makes itself), and net-bridge.mjs then serves the proxy port and the
 * relay socket in it. Each sandbox joins it with `nsenter` before bubblewrap starts (bubblewrap cannot join one).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readlinkSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { onPath } from "../setup/components.mjs";
import { homeLayout } from "../setup/home.mjs";

const NET_BRIDGE = fileURLToPath(new URL("./net-bridge.mjs", import.meta.url));

/** Where HTTP_PROXY points inside: the run's loopback is its own, so the port is free. */
export const PROXY_PORT = 3128;

/** SIOCSIFFLAGS on `lo` with IFF_UP, then the bridge in its place. */
const LOOPBACK_UP = `import fcntl, os, socket, struct, sys
fcntl.ioctl(socket.socket(socket.AF_INET, socket.SOCK_DGRAM), 0x8914, struct.pack("16sH14s", b"lo", 0x1 | 0x8, b""))
os.execv(sys.argv[1], sys.argv[1:])`;

/**
 * Before bubblewrap: wait until the holder serves its relay (it is then in its namespace), check it still is (not
 * the host's namespace: a holder gone and its pid taken), then join.
 */
const JOIN = `relay=$1 pid=$2 host=$3; shift 3
i=0
while [ ! -S "$relay" ]; do
  i=$((i+1)); [ "$i" -gt 500 ] && { echo "runbound: the run's network did not start" >&2; exit 126; }
  sleep 0.02
done
ns=$(readlink "/proc/$pid/ns/net") || { echo "runbound: the run's network is gone" >&2; exit 126; }
[ "$ns" != "$host" ] || { echo "runbound: the run's network is gone" >&2; exit 126; }
exec "$@"`;

export interface RunNetworkOptions {
  /** The run's scratch folder: the relay socket goes there. */
  readonly scratch: string;
  /** runbound's proxy socket, or undefined when the network is off (no way out at all). */
  readonly proxySocket: string | undefined;
  readonly home: string;
}

export class RunNetwork {
  readonly relay: string;
  readonly #holder: ChildProcess;
  readonly #pid: number;
  /** nsenter and its arguments, naming the holder's namespaces. */
  readonly #join: string[];
  #exited: string | undefined;

  constructor(options: RunNetworkOptions) {
    const tools = requiredTools(options.home);
    this.relay = path.join(options.scratch, "relay.sock");
    const root = process.getuid?.() === 0;
    const unshare = [tools.unshare, ...(root ? [] : ["--user", "--map-root-user"]), "--net", "--"];
    const bridge = [
      process.execPath,
      NET_BRIDGE,
      options.proxySocket ?? "-",
      String(PROXY_PORT),
      this.relay,
      "--",
    ];
    const setpriv = onPath("setpriv");
    const command = [
      ...(setpriv ? [setpriv, "--pdeathsig", "SIGKILL", "--"] : []),
      ...unshare,
      tools.python,
      "-c",
      LOOPBACK_UP,
      ...bridge,
    ];
    const holder = spawn(command[0]!, command.slice(1), {
      stdio: ["ignore", "ignore", "pipe"],
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    });
    let said = "";
    holder.stderr?.on("data", (d: Buffer) => {
      said = (said + d.toString()).slice(-1000);
    });
    holder.on("error", (error) => {
      this.#exited = error.message;
    });
    holder.on("exit", (code, signal) => {
      this.#exited = `${signal ?? `code ${code}`}${said.trim() ? `: ${said.trim().split("\n").pop()}` : ""}`;
    });
    if (holder.pid === undefined)
      throw new Error(`the run's network could not start: ${command[0]} did not start`);
    this.#holder = holder;
    this.#pid = holder.pid;
    this.#join = root
      ? [tools.nsenter, `--net=/proc/${this.#pid}/ns/net`, "--"]
      : [
          tools.nsenter,
          `--user=/proc/${this.#pid}/ns/user`,
          `--net=/proc/${this.#pid}/ns/net`,
          "--preserve-credentials",
          "--",
        ];
  }

  /** The command prefix that runs the rest in the run's namespace; throws when the holder is gone. */
  joinArgs(): string[] {
    if (this.#exited !== undefined)
      throw new Error(
        `the run's network namespace is gone (its holder exited: ${this.#exited}); start a new run`,
      );
    return [
      "/bin/sh",
      "-c",
      JOIN,
      "runbound-network",
      this.relay,
      String(this.#pid),
      hostNamespace(),
      ...this.#join,
    ];
  }

  async dispose(): Promise<void> {
    if (this.#exited !== undefined) return;
    const gone = new Promise<void>((resolve) => this.#holder.once("exit", () => resolve()));
    this.#holder.kill("SIGTERM");
    const timer = setTimeout(() => this.#holder.kill("SIGKILL"), 2000);
    await gone;
    clearTimeout(timer);
  }
}

function hostNamespace(): string {
  try {
    return readlinkSync("/proc/self/ns/net");
  } catch {
    return "";
  }
}

/** unshare and nsenter (util-linux) and a Python for the loopback: runbound's own, else the system's. */
function requiredTools(home: string): { unshare: string; nsenter: string; python: string } {
  const unshare = onPath("unshare");
  const nsenter = onPath("nsenter");
  const own = homeLayout(home).python;
  const python = existsSync(own) ? own : onPath("python3");
  if (!unshare || !nsenter)
    throw new Error(
      "a confined run's network needs unshare and nsenter (util-linux), which are not on PATH: install util-linux",
    );
  if (!python)
    throw new Error(
      "a confined run's network needs a Python to bring its loopback up, and there is none (runbound's own or python3 on PATH): run `npx runbound setup`",
    );
  return { unshare, nsenter, python };
}
