/**
 * The environment Jupyter's own executor (nbclient) runs in for the reference tests: a layer over runbound's
 * Python environment (its site-packages by a .pth, as a run's kernel has one), with pip in it, started as from its
 * activated environment (its bin first on PATH).
 */
import { spawn } from "node:child_process";
import { readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { childEnvironment } from "../../src/proc/environment.js";
import { HOME } from "../helpers.js";

/** A run's processes get the harness's environment by allow-list; both sides turn pip's version check off. */
export const PIP_QUIET = { PIP_DISABLE_PIP_VERSION_CHECK: "1" };

/** Makes the layer in `dir`/env; resolves to its python and the environment to start it with. */
export function referenceEnvironment(dir: string): Promise<{ python: string; env: NodeJS.ProcessEnv }> {
  const env = path.join(dir, "env");
  const venv = spawn(HOME.python, ["-m", "venv", "--without-pip", env]);
  return new Promise((resolve, reject) => {
    venv.on("exit", (code) => {
      if (code !== 0) return reject(new Error(`python -m venv exited ${code}`));
      const lib = readdirSync(path.join(HOME.venv, "lib")).find((n) => n.startsWith("python3")) as string;
      const site = path.join(HOME.venv, "lib", lib, "site-packages");
      writeFileSync(
        path.join(env, "lib", lib, "site-packages", "_runbound.pth"),
        `import site; site.addsitedir(${JSON.stringify(site)})\n`,
      );
      writeFileSync(path.join(env, "bin", "pip"), '#!/bin/sh\nexec "$(dirname "$0")/python" -m pip "$@"\n', {
        mode: 0o755,
      });
      resolve({
        python: path.join(env, "bin", "python"),
        env: {
          ...childEnvironment(process.env, { set: PIP_QUIET }),
          PATH: `${path.join(env, "bin")}:${process.env.PATH}`,
        },
      });
    });
  });
}
