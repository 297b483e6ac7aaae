/** Which interpreter runs a run's Python cells: the project's environment when it can, else runbound's own. */
import { existsSync } from "node:fs";
import path from "node:path";
import { environmentHas } from "../files/python-env.js";
import { homeLayout } from "../setup/home.mjs";

/**
 * The interpreter Python cells run in: the project's when it has ipykernel; else runbound's, with a notice when the
 * project has an environment of its own (its packages are then not importable in cells).
 */
export function pythonForCells(workdir: string, home: string): { python: string; notice?: string } {
  const own = homeLayout(home).python;
  const envs = projectEnvironments(workdir);
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

/** The project's own environments, in the order they are preferred: VIRTUAL_ENV, then .venv, then venv. */
function projectEnvironments(workdir: string): { python: string; label: string }[] {
  const candidates = [
    { dir: process.env.VIRTUAL_ENV, label: "VIRTUAL_ENV" },
    { dir: path.join(workdir, ".venv"), label: "the project's .venv" },
    { dir: path.join(workdir, "venv"), label: "the project's venv" },
  ];
  return candidates
    .filter((c): c is { dir: string; label: string } => Boolean(c.dir))
    .map((c) => ({ python: path.join(c.dir, "bin", "python"), label: c.label }))
    .filter((c) => existsSync(c.python));
}
