/**
 * A project's Python environments where the tools that make them put them, found by reading folders and names — a
 * project's interpreter is never run to ask. In the order they are preferred: the harness's activated environment
 * (VIRTUAL_ENV, CONDA_PREFIX), then, walking up from the program's folder to the workdir, the folder's own `.venv`
 * or `venv` (venv, virtualenv, uv, poetry and pipenv in-project), poetry's environment in its cache, pipenv's in
 * its home, and the pyenv version `.python-version` names.
 */
import { createHash } from "node:crypto";
import { existsSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { readdirSafe, smallText } from "./python-env.js";

export interface PythonEnvironment {
  /** `<env>/bin/python`. */
  readonly python: string;
  /** How an answer names it: "the project's .venv", "poetry's environment", "VIRTUAL_ENV". */
  readonly label: string;
  /** The environment's folder. */
  readonly env: string;
  /**
   * Whether it holds what the project installed (its packages' .pth lines run when it starts): never run on the
   * host. The harness's own activated environment is the harness's.
   */
  readonly project: boolean;
}

type Environment = Readonly<Record<string, string | undefined>>;

/** Every environment found for a program in `root` (a folder inside `workdir`), preferred first. */
export function pythonEnvironments(
  root: string,
  workdir: string,
  vars: Environment = process.env,
): PythonEnvironment[] {
  const found: PythonEnvironment[] = [];
  const add = (env: string | undefined, label: string, project: boolean) => {
    if (!env) return;
    const python = path.join(env, "bin", "python");
    if (existsSync(python) && !found.some((f) => f.env === env)) found.push({ python, label, env, project });
  };
  add(absolute(vars.VIRTUAL_ENV), "VIRTUAL_ENV", false);
  add(absolute(vars.CONDA_PREFIX), "CONDA_PREFIX", false);
  for (let dir = root; ; dir = path.dirname(dir)) {
    add(path.join(dir, ".venv"), "the project's .venv", true);
    add(path.join(dir, "venv"), "the project's venv", true);
    add(poetryEnvironment(dir, vars), "poetry's environment", true);
    add(pipenvEnvironment(dir, vars), "pipenv's environment", true);
    const pyenv = pyenvVersion(dir, vars);
    if (pyenv) add(pyenv.env, `pyenv's ${pyenv.version} (.python-version)`, true);
    if (dir === workdir || !dir.startsWith(workdir) || path.dirname(dir) === dir) break;
  }
  return found;
}

function absolute(value: string | undefined): string | undefined {
  return value && path.isAbsolute(value) ? value : undefined;
}

/** What poetry's `virtualenvs.path` is by default: its cache folder's `virtualenvs`. */
function poetryEnvironments(vars: Environment): string {
  const cache =
    absolute(vars.POETRY_CACHE_DIR) ??
    path.join(absolute(vars.XDG_CACHE_HOME) ?? path.join(homedir(), ".cache"), "pypoetry");
  return absolute(vars.POETRY_VIRTUALENVS_PATH) ?? path.join(cache, "virtualenvs");
}

/**
 * Poetry's environment of the project in `dir`: `<name>-<hash>-py<X.Y>`, its name canonical and cleaned, the hash
 * the first 8 characters of the URL-safe base64 of the SHA-256 of the folder's real path (as poetry names it).
 */
function poetryEnvironment(dir: string, vars: Environment): string | undefined {
  if (!existsSync(path.join(dir, "poetry.lock")) && !existsSync(path.join(dir, "pyproject.toml")))
    return undefined;
  const name = projectName(path.join(dir, "pyproject.toml"));
  if (!name) return undefined;
  const clean = name
    .toLowerCase()
    .replace(/[-_.]+/g, "-")
    .replace(/[ $`!*@"\\\r\n\t]/g, "_")
    .slice(0, 42);
  let real: string;
  try {
    real = realpathSync(dir);
  } catch {
    return undefined;
  }
  const prefix = `${clean}-${createHash("sha256").update(real).digest("base64url").slice(0, 8)}-py`;
  const folder = poetryEnvironments(vars);
  // The newest Python first, as poetry's `env use` would have made the last.
  const names = readdirSafe(folder)
    .filter((n) => n.startsWith(prefix) && /^\d+\.\d+$/.test(n.slice(prefix.length)))
    .sort((a, b) => minor(b.slice(prefix.length)) - minor(a.slice(prefix.length)));
  return names[0] ? path.join(folder, names[0]) : undefined;
}

function minor(version: string): number {
  const [major, rest] = version.split(".").map(Number);
  return (major ?? 0) * 1000 + (rest ?? 0);
}

/** `[project]`'s or `[tool.poetry]`'s `name` in a pyproject.toml (read bounded, never run). */
function projectName(file: string): string | undefined {
  const text = smallText(file, 256 * 1024);
  if (!text) return undefined;
  let section = "";
  for (const line of text.split("\n")) {
    const header = /^\s*\[([^\]]+)\]\s*(#.*)?$/.exec(line);
    if (header) section = header[1]!.trim();
    else if (section === "project" || section === "tool.poetry") {
      const name = /^\s*name\s*=\s*["']([^"']+)["']/.exec(line)?.[1];
      if (name) return name;
    }
  }
  return undefined;
}

/**
 * pipenv's environment of the Pipfile in `dir`: `<folder name>-<hash>` in WORKON_HOME (or ~/.local/share/
 * virtualenvs), the hash the first 8 characters of the URL-safe base64 of the SHA-256's first 6 bytes of the
 * Pipfile's path (as pipenv names it).
 */
function pipenvEnvironment(dir: string, vars: Environment): string | undefined {
  const pipfile = path.join(dir, "Pipfile");
  if (!existsSync(pipfile)) return undefined;
  const home = absolute(vars.WORKON_HOME) ?? path.join(homedir(), ".local", "share", "virtualenvs");
  const clean = path
    .basename(dir)
    .replace(/[ &$`!*@"()[\]\\\r\n\t]/g, "_")
    .slice(0, 42);
  for (const location of new Set([pipfile, realOrSelf(pipfile)])) {
    const hash = createHash("sha256")
      .update(location)
      .digest()
      .subarray(0, 6)
      .toString("base64url")
      .slice(0, 8);
    const env = path.join(home, `${clean}-${hash}`);
    if (existsSync(env)) return env;
  }
  return undefined;
}

/** The pyenv version a `.python-version` in `dir` names (the first installed one), never a path out of pyenv's. */
function pyenvVersion(dir: string, vars: Environment): { env: string; version: string } | undefined {
  const text = smallText(path.join(dir, ".python-version"), 4096);
  if (!text) return undefined;
  const versions = path.join(absolute(vars.PYENV_ROOT) ?? path.join(homedir(), ".pyenv"), "versions");
  for (const line of text.split("\n")) {
    const version = line.trim();
    if (!/^[A-Za-z0-9][\w.+-]*$/.test(version) || version.includes("..")) continue;
    // A prefix (`3.11`) is its newest installed release, as pyenv reads it.
    const name = readdirSafe(versions).includes(version)
      ? version
      : readdirSafe(versions)
          .filter((n) => n.startsWith(`${version}.`) && /^\d+$/.test(n.slice(version.length + 1)))
          .sort((a, b) => Number(b.slice(version.length + 1)) - Number(a.slice(version.length + 1)))[0];
    const env = name ? path.join(versions, name) : undefined;
    if (env && existsSync(path.join(env, "bin", "python"))) return { env, version: name! };
  }
  return undefined;
}

function realOrSelf(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return file;
  }
}
