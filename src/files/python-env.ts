/**
 * What a Python environment has installed, read from its folders. A project's interpreter is the repository's code
 * (the python in its `.venv` can be any program), so runbound never runs it to ask: on the host that ran it outside
 * the run's sandbox, before any cell or debuggee did.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { isBytes, readRegularSync } from "./regular.js";

/** Whether the environment of `python` (`<env>/bin/python`) has the top-level `module`. */
export function environmentHas(python: string, module: string): boolean {
  const env = path.dirname(path.dirname(python));
  return sitePackages(env).some(
    (dir) => existsSync(path.join(dir, module, "__init__.py")) || existsSync(path.join(dir, `${module}.py`)),
  );
}

/** The environment's own site-packages, and its base interpreter's when pyvenv.cfg includes them. */
function sitePackages(env: string): string[] {
  const dirs = versioned(path.join(env, "lib"), "site-packages");
  const config = pyvenvConfig(env);
  if (config.get("include-system-site-packages") === "true" && config.has("home")) {
    const base = path.dirname(config.get("home")!);
    dirs.push(
      ...versioned(path.join(base, "lib"), "site-packages"),
      ...versioned(path.join(base, "lib"), "dist-packages"),
      ...versioned(path.join(base, "local", "lib"), "dist-packages"),
      path.join(base, "lib", "python3", "dist-packages"),
    );
  }
  return dirs;
}

/** `<lib>/python3.X/<kind>` for each Python 3 version folder in `lib`. */
function versioned(lib: string, kind: string): string[] {
  let names: string[];
  try {
    names = readdirSync(lib);
  } catch {
    return [];
  }
  return names.filter((n) => /^python3(\.\d+)?$/.test(n)).map((n) => path.join(lib, n, kind));
}

/** A pyvenv.cfg is a few lines; the project's could be anything (a pipe, a gigabyte). */
const CONFIG_BYTES = 64 * 1024;

/** pyvenv.cfg's `key = value` lines. */
function pyvenvConfig(env: string): Map<string, string> {
  const config = new Map<string, string>();
  const file = path.join(env, "pyvenv.cfg");
  let read: Buffer | { kind: string };
  try {
    if (statSync(file).size > CONFIG_BYTES) return config;
    read = readRegularSync(file);
  } catch {
    return config;
  }
  if (!isBytes(read)) return config;
  for (const line of read.toString("utf8").split("\n")) {
    const at = line.indexOf("=");
    if (at > 0) config.set(line.slice(0, at).trim().toLowerCase(), line.slice(at + 1).trim());
  }
  return config;
}
