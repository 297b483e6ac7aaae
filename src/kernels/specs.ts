/**
 * The kernelspecs of one run's kernels. On a server of the run's own (in a container, or confined in the run's
 * sandbox) they are `runbound-python` and `runbound-javascript`, run by the server where it runs. On the shared
 * server each run has its own names, and a spec carries everything that makes the kernel the run's: the command
 * line through the run's place (its sandbox, limits and parent-death signal), the run's environment and marker, and
 * the folder of its connection files.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { packageRoot } from "../home.js";
import { SCRATCH_PREFIX } from "../proc/confined.js";
import type { ProcessTracker } from "../proc/tracker.js";
import { denoBinary, zeromqFolder } from "../setup/npm.js";
import { nodeKernelCommand } from "./node-kernel.js";
import { layeredPython } from "./overlay.js";
import type { JavaScriptKernel, KernelLanguage, Sandbox } from "./schema.js";
import type { KernelSpecFile } from "./server.js";

export interface SpecsOptions {
  readonly workdir: string;
  readonly processes: ProcessTracker;
  readonly sandbox?: Sandbox;
  /** The interpreter of runbound's own Python environment. */
  readonly runboundPython: string;
  /** runbound's home, where `runbound setup` puts ZeroMQ for the Node kernel, and Deno. */
  readonly home?: string;
  readonly javascript: JavaScriptKernel;
}

export class KernelSpecs {
  /** Set once the run's kernels are on the shared server: its names' prefix and its connection files' folder. */
  #shared: { readonly prefix: string; readonly folder: string } | undefined;
  /** The host folder of this run's layers over runbound's environment, once a kernel needed one. */
  #hostLayers: string | undefined;

  constructor(readonly options: SpecsOptions) {}

  /** The run's kernels go to the shared server, under `prefix`, with connection files in `folder`. */
  share(prefix: string, folder: string): void {
    this.#shared = { prefix, folder };
  }

  name(language: KernelLanguage): string {
    return this.#shared ? `${this.#shared.prefix}-${language}` : `runbound-${language}`;
  }

  python(python: string): KernelSpecFile {
    // On the shared server the connection file is in a folder the kernel sees read-only: runbound's launcher starts
    // ipykernel without its needless rewrite of that file (python/kernel-launch.py says why it wrote it).
    const launcher = this.#shared ? [path.join(packageRoot(), "python", "kernel-launch.py")] : undefined;
    const args = [...(launcher ?? ["-m", "ipykernel_launcher"]), "-f", "{connection_file}"];
    const place = this.options.processes.confinedPlace;
    const folder = this.#layerFolder(python);
    const layered = folder === undefined ? undefined : layeredPython(python, args, place, folder);
    const spec = layered
      ? this.#spec("python", "Python (runbound)", layered.program, layered.args)
      : this.#spec("python", "Python (runbound)", python, args);
    // runbound's own ipykernel takes CurveZMQ keys; a project's may be too old to.
    return python === this.options.runboundPython ? { ...spec, curve: true } : spec;
  }

  /**
   * Where `python`'s kernels install (overlay.ts): in a sandbox or a container, where the environment is read-only,
   * the place's scratch folder; on the host, a folder of the run's for runbound's own environment (which every run
   * of the host uses) and none for a project's (installing there is what Jupyter does).
   */
  #layerFolder(python: string): string | undefined {
    const place = this.options.processes.confinedPlace;
    if (place.scratch) return place.scratch;
    if (python !== this.options.runboundPython) return undefined;
    this.#hostLayers ??= mkdtempSync(path.join(tmpdir(), `${SCRATCH_PREFIX}${process.pid}-`));
    return this.#hostLayers;
  }

  /** Removes the run's host folder of layers (its kernels are gone). */
  dispose(): void {
    if (this.#hostLayers) rmSync(this.#hostLayers, { recursive: true, force: true });
    this.#hostLayers = undefined;
  }

  javascript(): KernelSpecFile {
    // A missing component is said when a JavaScript kernel starts, not when Python needs a server.
    if (this.options.javascript === "node") {
      // The folder as the kernel's place sees it (a container shows runbound's home elsewhere).
      const zeromq = this.options.processes.confinedPlace.toPlace(
        zeromqFolder(this.options.home) ?? "zeromq",
      );
      const { program, args } = nodeKernelCommand(zeromq);
      return { ...this.#spec("javascript", "JavaScript (Node)", program, args), curve: true };
    }
    const deno = denoBinary(this.options.home) ?? "deno";
    return this.#spec("javascript", "JavaScript (Deno)", deno, [
      "jupyter",
      "--kernel",
      "--conn",
      "{connection_file}",
    ]);
  }

  #spec(language: KernelLanguage, displayName: string, program: string, args: string[]): KernelSpecFile {
    const { processes, workdir } = this.options;
    const prefix = this.options.sandbox?.isUp() ? [...this.options.sandbox.commandPrefix()] : [];
    const shared = this.#shared;
    if (!shared) {
      // The run's own server reads the spec where it runs: the program as that place sees it.
      const argv = [...prefix, processes.confinedPlace.toPlace(program), ...args];
      return { name: this.name(language), displayName, language, argv };
    }
    const place = processes.confinedPlace;
    // In its sandbox's PID namespace a kernel's parent is pid 1, which ipykernel reads as "the server is gone" and
    // exits; 1 as the parent's pid turns that watch off (the parent-death signal ends it with the server instead).
    const unwatched = place.kind === "confined" ? ["/usr/bin/env", "JPY_PARENT_PID=1"] : [];
    const [command, ...rest] = [...prefix, ...unwatched, program, ...args] as [string, ...string[]];
    const launch = processes.launch(`${language} kernel`, command, rest, {
      confined: true,
      cwd: workdir,
      readable: [shared.folder],
    });
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(launch.env)) if (value !== undefined) env[key] = value;
    env.RUNBOUND_KERNEL_DIR = shared.folder;
    if (place.kind === "confined") env.RUNBOUND_KERNEL_CONFINED = "1";
    return { name: this.name(language), displayName, language, argv: launch.argv, env };
  }
}
