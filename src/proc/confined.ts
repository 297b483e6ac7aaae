/**
 * The confined place: an OS sandbox on this host (bubblewrap). A confined process sees the system's programs,
 * libraries and configuration read-only (/etc's secrets masked), the workdir and the run's scratch folder writable
 * (every .git, node_modules and environment of the workdir read-only), the toolchains and runbound's home
 * read-only, a private home, /tmp and /run, and nothing else of the host — no other workdir or run; it has no
 * capabilities (and is not uid 0), its own process, IPC and UTS namespaces, the run's network namespace — a
 * loopback no other run shares, whose way out is runbound's proxy — and the run's limits.
 */
import { existsSync, mkdtempSync, readdirSync, realpathSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import { homedir, tmpdir, totalmem } from "node:os";
import path from "node:path";
import { onPath } from "../setup/components.mjs";
import { baseArgs, bubblewrapLine, type Mounts, mountArgs, probeBubblewrap, within } from "./bubblewrap.js";
import { type ContainerOptions, ContainerPlace } from "./container.js";
import { frozenFolders } from "./frozen.js";
import { type Enforcement, enforceLimits, type Limits } from "./limits.js";
import { startAllowListProxy } from "./network-proxy.js";
import { HOST_PLACE, type Place, type SpawnPlan, type SpawnRequest } from "./place.js";
import { PROXY_PORT, RunNetwork } from "./run-network.js";
import { readableToolchains } from "./toolchains.js";
import { ownerGone } from "./tree.js";

export interface ConfinePolicy {
  /**
   * The run has a network namespace of its own, which its sandboxes share (its loopback is never the host's or a
   * neighbour's);
   * what it reaches outside goes through runbound's proxy (HTTP_PROXY): `on` (default): HTTP and HTTPS to any
   * public address; a list of hosts (`pypi.org`, `files.pythonhosted.org:443`, `*.github.com`, `10.0.0.5`): to
   * those only; `off`: nothing. A name resolving to loopback or a private address is refused unless the address
   * itself is listed (`["*", "10.0.0.5"]`: any public address and that one). Loopback requests stay on the
   * run's own loopback unless a loopback address is listed (`127.0.0.1:8080`: the host's, through the proxy).
   * Programs that ignore HTTP_PROXY reach nothing outside.
   */
  readonly network?: "on" | "off" | readonly string[];
  /** Host folders shown read-only although hidden by the rules (a folder of the user's home). */
  readonly readable?: readonly string[];
  /** Host folders writable besides the workdir and the scratch folder (wins over the read-only rules). */
  readonly writable?: readonly string[];
  /** The memory of all the run's confined processes together, in MB. Default: half the machine's. */
  readonly memoryMB?: number;
  /** Processes and threads at once, all the run's confined ones together. Default 1024. */
  readonly processes?: number;
}

/** The shell step that joins the run's control groups, then runs the rest of its arguments. */
const JOIN_GROUPS = `n=$1; shift
while [ "$n" -gt 0 ]; do echo $$ > "$1/cgroup.procs" || exit 126; shift; n=$((n-1)); done
exec "$@"`;

export class ConfinedPlace implements Place {
  readonly kind = "confined";
  readonly hostLoopback = false;
  readonly #bwrap: { path: string; version: string; linkFix: boolean };
  readonly #workdir: string;
  readonly #home: string;
  readonly #policy: ConfinePolicy;
  readonly #limits: Limits;
  readonly #prlimit: string | undefined;
  /** What runbound's proxy lets through (`*`: any public address), unless the network is off. */
  readonly #allow: readonly string[] | undefined;
  /** Made on the first spawn: a run that starts nothing confined leaves nothing behind. */
  #ready:
    | { scratch: string; mounts: Mounts; enforcement: Enforcement; network: RunNetwork; proxy?: Server }
    | undefined;

  constructor(
    bwrap: { path: string; version: string; linkFix: boolean },
    workdir: string,
    home: string,
    policy: ConfinePolicy,
  ) {
    this.#bwrap = bwrap;
    this.#workdir = workdir;
    this.#home = home;
    this.#policy = policy;
    this.#allow = allowedBy(policy.network);
    this.#limits = resolveLimits(policy);
    this.#prlimit = onPath("prlimit");
    refuseWritableHome(policy.writable ?? [], home);
  }

  get scratch(): string {
    return this.#prepare().scratch;
  }

  get description(): string {
    const { memoryMB, processes } = this.#limits;
    const by = this.#ready?.enforcement.by;
    const limits = this.#prlimit
      ? `${memoryMB.toLocaleString("en-US")} MB and ${processes} processes${by ? ` by ${by}` : ""}`
      : "memory and processes not limited (prlimit is missing)";
    return `confined (${bubblewrapLine(this.#bwrap)}): the workdir writable but its .git, node_modules and environments, the system, toolchains and runbound's home read-only, nothing else of the host, a loopback of its own, ${networkText(this.#allow)}; ${limits}`;
  }

  #prepare(): { scratch: string; mounts: Mounts; enforcement: Enforcement; network: RunNetwork } {
    if (this.#ready) return this.#ready;
    sweepStaleScratch();
    const scratch = realpathSync(mkdtempSync(path.join(tmpdir(), `${SCRATCH_PREFIX}${process.pid}-`)));
    const mounts: Mounts = {
      tmpfs: privateFolders(),
      readable: [...readableToolchains(this.#home), ...(this.#policy.readable ?? [])],
      writable: [this.#workdir, scratch],
      frozen: [],
      granted: this.#policy.writable ?? [],
      sealed: sealedFolders(this.#home),
    };
    const proxySocket = this.#allow ? path.join(scratch, PROXY_SOCKET) : undefined;
    const proxy = proxySocket ? startAllowListProxy(proxySocket, this.#allow!) : undefined;
    const network = new RunNetwork({ scratch, proxySocket, home: this.#home });
    this.#ready = {
      scratch,
      mounts,
      enforcement: enforceLimits(this.#limits),
      network,
      ...(proxy ? { proxy } : {}),
    };
    return this.#ready;
  }

  plan(request: SpawnRequest): SpawnPlan {
    const { scratch, mounts: base, enforcement, network } = this.#prepare();
    const cwd = request.cwd ?? this.#workdir;
    for (const dir of [...(request.writable ?? []), ...(request.readable ?? [])]) unlinkedFolder(dir);
    const mounts: Mounts = {
      ...base,
      readable: [...base.readable, ...(request.readable ?? [])],
      writable: [...base.writable, ...(request.writable ?? [])],
      // Walked at every start, just before the mount: a folder checked earlier may be a link by now (a reuse of the
      // walk for seconds mounted a `.venv` that had become a link), and what appeared since is frozen too.
      frozen: frozenFolders(this.#workdir).paths,
    };
    const sandbox = [
      this.#bwrap.path,
      ...baseArgs(),
      ...mountArgs(mounts),
      "--chdir",
      cwd,
      "--setenv",
      "TMPDIR",
      scratch,
      ...(this.#allow ? proxyEnvironment(this.#allow) : []),
      "--",
      request.command,
      ...request.args,
    ];
    // In the run's network namespace, joined before bubblewrap (which cannot join one).
    const joined = [...network.joinArgs(), ...sandbox];
    const limited = this.#prlimit ? [this.#prlimit, ...enforcement.rlimits, "--", ...joined] : joined;
    const groups = enforcement.groups;
    const [command, ...args] = groups.length
      ? ["/bin/sh", "-c", JOIN_GROUPS, "runbound-limits", String(groups.length), ...groups, ...limited]
      : limited;
    return { command: command!, args, cwd, env: request.env };
  }

  relays(): readonly string[] {
    return this.#ready ? [this.#ready.network.relay] : [];
  }

  toPlace(hostPath: string): string {
    return hostPath;
  }

  toHost(placePath: string): string {
    return placePath;
  }

  async dispose(): Promise<void> {
    const ready = this.#ready;
    this.#ready = undefined;
    if (!ready) return;
    ready.proxy?.close();
    await ready.network.dispose();
    await ready.enforcement.release();
    rmSync(ready.scratch, { recursive: true, force: true });
  }
}

/** The name of a run's host folders (scratch, kernel layers) before the owner's pid: a dead owner's are swept. */
export const SCRATCH_PREFIX = "runbound-place-";
const PROXY_SOCKET = "proxy.sock";

/**
 * The proxy for whatever leaves the sandbox. Its own loopback is reached directly (a server a cell started) —
 * unless the harness listed a loopback address: then loopback requests mean the host's, through the proxy.
 */
function proxyEnvironment(allow: readonly string[]): string[] {
  const url = `http://127.0.0.1:${PROXY_PORT}`;
  const proxied = ["HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY"];
  const hostLoopback = allow.some((entry) => /^(localhost|127\.[\d.]+|\[?::1\]?)(:\d+)?$/i.test(entry));
  const direct = hostLoopback ? [] : ["NO_PROXY", "no_proxy"];
  return [
    ...proxied.flatMap((name) => ["--setenv", name, url]),
    ...direct.flatMap((name) => ["--setenv", name, "localhost,127.0.0.1,::1"]),
  ];
}

/** What the proxy lets through for a network policy: `on` is any public address; `off` runs no proxy at all. */
function allowedBy(network: ConfinePolicy["network"]): readonly string[] | undefined {
  if (network === "off") return undefined;
  if (network === undefined || network === "on") return ["*"];
  return network;
}

function networkText(allow: readonly string[] | undefined): string {
  if (!allow) return "network off";
  const to = allow.includes("*")
    ? `any public address${allow.length > 1 ? ` and ${allow.filter((a) => a !== "*").join(", ")}` : ""}`
    : allow.join(", ");
  return `network: HTTP and HTTPS to ${to} through runbound's proxy`;
}

/** Scratch folders of runs whose host process is gone (killed before it could remove them). */
function sweepStaleScratch(): void {
  let names: string[];
  try {
    names = readdirSync(tmpdir()).filter((name) => name.startsWith(SCRATCH_PREFIX));
  } catch {
    return;
  }
  for (const name of names) {
    const owner = Number(name.slice(SCRATCH_PREFIX.length).split("-")[0]);
    if (ownerGone(owner)) rmSync(path.join(tmpdir(), name), { recursive: true, force: true });
  }
}

/** Private, empty and thrown away: the user's home (programs write their caches there), /tmp, /var/tmp, /run. */
function privateFolders(): string[] {
  const folders = [homedir(), "/tmp", "/var/tmp", "/run", tmpdir()]
    .filter((dir) => path.isAbsolute(dir) && dir !== "/")
    .flatMap((dir) => [dir, realOrSelf(dir)]);
  const unique = [...new Set(folders)];
  return unique.filter((dir) => !unique.some((other) => other !== dir && within(dir, other)));
}

/** runbound's home and its Python environment: read-only in every sandbox, whatever a writable folder covers. */
function sealedFolders(home: string): string[] {
  return [...new Set([home, path.join(home, "python")].filter(existsSync).map(realOrSelf))];
}

function realOrSelf(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return dir;
  }
}

/**
 * A folder runbound mounts for a process (a server's state, a connection folder) must be itself, not a link or
 * under one: bubblewrap would mount where the link leads, and a confined process may have put it there.
 */
function unlinkedFolder(dir: string): void {
  if (realOrSelf(dir) !== path.resolve(dir))
    throw new Error(
      `${dir} is or passes through a link, which a sandbox is never given; nothing was started`,
    );
}

/** runbound's home holds the Python environment the host's Jupyter server runs: no sandbox may write it. */
function refuseWritableHome(writable: readonly string[], home: string): void {
  const sealed = sealedFolders(home);
  for (const dir of writable) {
    const real = realOrSelf(path.resolve(dir));
    if (sealed.some((s) => within(s, real) || within(real, s)))
      throw new TypeError(
        `createRun: sandbox.writable names ${dir}, which is or holds runbound's home (${home}): its Python environment runs on the host, so no sandbox may write it. Name a folder outside it.`,
      );
  }
}

function resolveLimits(policy: ConfinePolicy): Limits {
  for (const key of ["memoryMB", "processes"] as const) {
    const value = policy[key];
    if (value !== undefined && !(Number.isInteger(value) && value > 0))
      throw new TypeError(
        `createRun: sandbox.${key} must be a whole number > 0, got ${value}; leave it out for the default`,
      );
  }
  const total = Math.floor(totalmem() / (1024 * 1024));
  return { memoryMB: policy.memoryMB ?? Math.floor(total / 2), processes: policy.processes ?? 1024 };
}

/** `required`: confine or fail; `preferred`: confine where this host can, else run on the host and say so; `off`. */
export type ConfineMode = "required" | "preferred" | "off";

export interface PlaceChoice {
  readonly place: Place;
  /** Why a `preferred` run is not confined, said once in the first answer of each tool that runs code. */
  readonly unconfined?: string;
}

/** The place for a run's exec-tier processes. Throws when `required` cannot be met, saying why and what to do. */
export function choosePlace(
  mode: ConfineMode,
  workdir: string,
  home: string,
  policy: ConfinePolicy = {},
  container?: ContainerOptions,
): PlaceChoice {
  if (container) return { place: new ContainerPlace(container, workdir) };
  if (mode === "off") return { place: HOST_PLACE };
  const bwrap = probeBubblewrap();
  if (bwrap.ok) return { place: new ConfinedPlace(bwrap, workdir, home, policy) };
  if (mode === "required")
    throw new Error(`createRun: confine is "required", but ${bwrap.why}. To fix: ${bwrap.fix}.`);
  return {
    place: HOST_PLACE,
    unconfined: `Not confined: ${bwrap.why}, so this runs on the host as the harness's user (confine: "preferred"). To confine: ${bwrap.fix}.`,
  };
}
