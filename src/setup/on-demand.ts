/**
 * `createRun({ install: "on-demand" })`: a component a call needs and runbound's home lacks is installed then and
 * there, never silently — the call's answer begins with what was installed and how long it took. The install is
 * `runbound setup --only <component>` in a child process (setup's steps block; the host's event loop must not), one
 * at a time per component in this process, shared by the calls that wait for it.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { spawn } from "node:child_process";
import path from "node:path";
import { ToolError } from "../errors.js";
import { packageRoot } from "../home.js";
import { setupCommand } from "./components.mjs";

export type InstallPolicy = "never" | "on-demand";

/** Setup's slowest steps (gopls and delve build with Go, apt-get) take minutes: past this it is given up. */
const INSTALL_TIMEOUT_MS = 15 * 60_000;
const TAIL_CHARS = 1_500;

const notes = new AsyncLocalStorage<string[]>();
/** The installs in progress in this process, by home and component. */
const running = new Map<string, Promise<{ seconds: number }>>();

/** Runs a tool call with `collected` as the place for its install notes (its answer, or its error, says them). */
export function withInstallNotes<T>(collected: string[], work: () => Promise<T>): Promise<T> {
  return notes.run(collected, work);
}

export class OnDemandInstaller {
  constructor(
    readonly home: string,
    readonly policy: InstallPolicy,
  ) {
    if (policy !== "never" && policy !== "on-demand")
      throw new TypeError(
        `createRun: install is "never" (the default) or "on-demand", not ${JSON.stringify(policy)}`,
      );
  }

  /**
   * Whether `present()` holds, after installing `component` when it did not and the run allows it. Never throws for
   * a run that does not allow installs: the caller then says the command, as before.
   */
  async ensure(component: string, present: () => boolean | Promise<boolean>): Promise<boolean> {
    if ((await present()) || this.policy !== "on-demand") return present();
    const key = `${this.home}\0${component}`;
    const started = Date.now();
    let install = running.get(key);
    const mine = !install;
    if (!install) {
      install = runSetup(component, this.home).finally(() => running.delete(key));
      running.set(key, install);
    }
    const { seconds } = await install;
    const waited = ((Date.now() - started) / 1000).toFixed(1);
    notes
      .getStore()
      ?.push(
        mine
          ? `(runbound installed ${component} into its home, ${this.home}, in ${seconds.toFixed(1)} s: this run allows installs on demand)`
          : `(waited ${waited} s while runbound installed ${component} into its home, ${this.home}, for another call: this run allows installs on demand)`,
      );
    if (!(await present()))
      throw new ToolError(
        `runbound installed ${component} on demand, yet what this call needs is still missing. See why: ${setupCommand(component)} --home ${this.home}`,
      );
    return true;
  }
}

function runSetup(component: string, home: string): Promise<{ seconds: number }> {
  const started = Date.now();
  const cli = path.join(packageRoot(), "bin", "runbound.mjs");
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, "setup", "--only", component, "--home", home], {
      stdio: ["ignore", "pipe", "pipe"],
      timeout: INSTALL_TIMEOUT_MS,
    });
    let output = "";
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-TAIL_CHARS);
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    child.on("error", (error) => reject(failed(component, started, error.message)));
    child.on("close", (code, signal) => {
      if (code === 0) resolve({ seconds: (Date.now() - started) / 1000 });
      else reject(failed(component, started, `${signal ?? `exit ${code}`}; it printed:\n${output.trim()}`));
    });
  });
}

function failed(component: string, started: number, why: string): ToolError {
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  return new ToolError(
    `runbound tried to install ${component} on demand and it failed after ${seconds} s (${why}). Install it yourself to see why: ${setupCommand(component)}; then call again.`,
  );
}
