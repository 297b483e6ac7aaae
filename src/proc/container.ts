/**
 * The container place: the conversation's own container, reached through an exec prefix (`podman exec -i NAME`,
 * `docker exec -i NAME`, `kubectl exec -i POD -c C --`) with a path map between the host and the container. runbound
 * never starts or stops the container; a container that is down is said to be down.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import path from "node:path";
import { within } from "./bubblewrap.js";
import { absolutePathEntries } from "./environment.js";
import type { Place, SpawnPlan, SpawnRequest } from "./place.js";

export interface ContainerOptions {
  /** The command prefix that runs a command inside the container, e.g. `["podman", "exec", "-i", "box"]`. */
  readonly exec: readonly string[];
  /** Host folders and where the container sees them (`{ "/home/me/proj": "/workspace" }`); the workdir is one. */
  readonly paths: Readonly<Record<string, string>>;
  /** A mapped host folder for the run's scratch folders (the Jupyter server's, TMPDIR); it must be in `paths`. */
  readonly scratch: string;
  /**
   * Whether the container shares the host's loopback (`--network host`). Default true. false: runbound reaches
   * its servers inside through Unix sockets in the scratch folder (a container with `--network none`).
   */
  readonly loopback?: boolean;
}

/** Every process of the run inside carries the marker; this ends them (the container has its own /proc). */
const KILL_MARKED = `for e in /proc/[0-9]*/environ; do
  [ "$e" = "/proc/$$/environ" ] && continue
  if grep -qzx "$1" "$e" 2>/dev/null; then p="\${e#/proc/}"; kill -KILL "\${p%/environ}" 2>/dev/null; fi
done`;

/** `cd` into the folder, then run the rest: exec prefixes differ in how (and whether) they set a working folder. */
const IN_FOLDER = 'cd "$1" && shift && exec "$@"';

export class ContainerPlace implements Place {
  readonly kind = "container";
  /** false: runbound cannot reach a loopback inside, so its servers there listen on sockets in the scratch folder. */
  readonly hostLoopback: boolean;
  readonly #exec: readonly string[];
  readonly #map: readonly { host: string; inside: string }[];
  readonly #scratchRoot: string;
  readonly #workdir: string;
  #scratch: string | undefined;
  #marker: string | undefined;

  constructor(options: ContainerOptions, workdir: string) {
    if (options.exec.length === 0)
      throw new Error("container.exec is empty: give the command prefix, e.g. podman exec -i NAME");
    this.#exec = options.exec;
    this.hostLoopback = options.loopback !== false;
    // Longest host prefix first, so a nested mapping wins.
    this.#map = Object.entries(options.paths)
      .map(([host, inside]) => ({ host: path.resolve(host), inside }))
      .sort((a, b) => b.host.length - a.host.length);
    this.#workdir = workdir;
    this.#scratchRoot = path.resolve(options.scratch);
    for (const [name, folder] of [
      ["the workdir", workdir],
      ["container.scratch", this.#scratchRoot],
    ] as const) {
      if (!this.#map.some((m) => within(folder, m.host)))
        throw new Error(
          `createRun: ${name} (${folder}) is not in container.paths; map it to where the container sees it`,
        );
    }
  }

  get description(): string {
    return `in the container (${this.#exec.join(" ")}), ${this.#map.map((m) => `${m.host} as ${m.inside}`).join(", ")}`;
  }

  get scratch(): string {
    this.#scratch ??= mkdtempSync(path.join(this.#scratchRoot, "runbound-place-"));
    return this.#scratch;
  }

  /** Asked before each start: runbound never starts the container, so a container that is down is said to be. */
  unavailable(): string | undefined {
    const [command, ...args] = this.#exec;
    const probe = spawnSync(command!, [...args, "true"], {
      timeout: 10_000,
      encoding: "utf8",
      env: { ...process.env, PATH: absolutePathEntries(process.env.PATH) },
    });
    if (probe.status === 0) return undefined;
    const said =
      `${probe.stderr ?? ""}`.trim().split("\n").pop() || (probe.error?.message ?? `exit ${probe.status}`);
    return `the conversation's container does not answer \`${this.#exec.join(" ")} true\` (${said}); runbound never starts it: start it, then call again`;
  }

  plan(request: SpawnRequest): SpawnPlan {
    this.#marker ??= Object.entries(request.env)
      .find(([name]) => name === "RUNBOUND_RUN")
      ?.join("=");
    // Only what runbound set for this process crosses; the container keeps its own PATH, HOME and the rest.
    const set = Object.entries(request.env)
      .filter(([name, value]) => value !== undefined && process.env[name] !== value)
      .map(([name, value]) => `${name}=${this.#mapText(value!)}`);
    const cwd = this.toPlace(request.cwd ?? this.#workdir);
    const [command, ...prefix] = this.#exec;
    return {
      command: command!,
      args: [
        ...prefix,
        "env",
        ...set,
        "sh",
        "-c",
        IN_FOLDER,
        "sh",
        cwd,
        this.toPlace(request.command),
        ...request.args.map((arg) => this.#mapText(arg)),
      ],
      env: process.env,
    };
  }

  toPlace(hostPath: string): string {
    const m = this.#map.find((entry) => within(hostPath, entry.host));
    return m ? path.posix.join(m.inside, path.relative(m.host, hostPath)) : hostPath;
  }

  toHost(placePath: string): string {
    const m = [...this.#map]
      .sort((a, b) => b.inside.length - a.inside.length)
      .find((entry) => within(placePath, entry.inside));
    return m ? path.join(m.host, path.posix.relative(m.inside, placePath)) : placePath;
  }

  /** Host paths inside a text (an argument `--config=/host/x`, a variable's value) as the container sees them. */
  #mapText(text: string): string {
    let out = text;
    for (const m of this.#map) out = out.split(m.host).join(m.inside);
    return out;
  }

  async dispose(): Promise<void> {
    if (this.#marker) {
      const [command, ...args] = this.#exec;
      spawnSync(command!, [...args, "sh", "-c", KILL_MARKED, "runbound-kill", this.#marker], {
        timeout: 15_000,
        stdio: "ignore",
        env: { ...process.env, PATH: absolutePathEntries(process.env.PATH) },
      });
    }
    if (this.#scratch) rmSync(this.#scratch, { recursive: true, force: true });
    this.#scratch = undefined;
  }
}
