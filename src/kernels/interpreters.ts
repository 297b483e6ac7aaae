/** Which interpreter runs a run's Python cells: the project's environment when it can, else runbound's own. */
import path from "node:path";
import { environmentHas } from "../files/python-env.js";
import { pythonEnvironments } from "../files/python-environments.js";
import { within } from "../proc/bubblewrap.js";
import { homeLayout } from "../setup/home.mjs";

/**
 * The interpreter Python cells run in: the project's when it has ipykernel; else runbound's, with a notice when the
 * project has an environment of its own (its packages are then not importable in cells).
 */
export function pythonForCells(workdir: string, home: string): { python: string; notice?: string } {
  const own = homeLayout(home).python;
  const envs = pythonEnvironments(workdir, workdir);
  // Looked up in its folders, never asked of the interpreter: that is the project's code, and would run on the host.
  const withKernel = envs.find((env) => environmentHas(env.python, "ipykernel"));
  if (withKernel) return { python: withKernel.python };
  const first = envs[0];
  if (!first) return { python: own };
  return {
    python: own,
    notice: `this kernel runs in runbound's Python environment, not in ${first.label}: it has no ipykernel, so the project's packages are not importable here. To run cells in the project's environment: ${first.python} -m pip install ipykernel, then eval with reset: true`,
  };
}

/**
 * The environment cells run in when it is the project's and outside the workdir (poetry's cache, pipenv's home): a
 * sandbox must show it, and only it (another environment found there is none of the cells' business).
 */
export function environmentsOutside(workdir: string, home: string): string[] {
  const { python } = pythonForCells(workdir, home);
  if (python === homeLayout(home).python) return [];
  const env = path.dirname(path.dirname(python));
  return within(env, workdir) ? [] : [env];
}
