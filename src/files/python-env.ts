/**
 * What a Python environment has installed, read from its folders. A project's interpreter is the repository's code
 * (the python in its `.venv` can be any program), so runbound never runs it to ask: on the host that ran it outside
 * the run's sandbox, before any cell or debuggee did.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { isBytes, readRegularSync } from "./regular.js";

/**
 * Whether the environment of `python` (`<env>/bin/python`) has the top-level `module`: in a site-packages folder,
 * or where one of its `.pth` files leads (an editable install: pip's, uv's, hatch's, poetry's).
 */
export function environmentHas(python: string, module: string): boolean {
  const env = path.dirname(path.dirname(python));
  const sites = sitePackages(env);
  const dirs = [...sites, ...sites.flatMap(pthFolders)];
  return (
    dirs.some(
      (dir) =>
        existsSync(path.join(dir, module, "__init__.py")) || existsSync(path.join(dir, `${module}.py`)),
    ) || sites.some((site) => editableFinders(site).has(module))
  );
}

/** The most `.pth` files read in one site-packages folder, and the most bytes of each: the project's own files. */
const PTH_FILES = 200;
const PTH_BYTES = 64 * 1024;

/** A small regular file's text, or undefined (too large, a pipe, a device, missing). */
function smallText(file: string, limit: number): string | undefined {
  try {
    if (statSync(file).size > limit) return undefined;
    const read = readRegularSync(file);
    return isBytes(read) ? read.toString("utf8") : undefined;
  } catch {
    return undefined;
  }
}

function pthFiles(site: string): string[] {
  try {
    return readdirSync(site)
      .filter((n) => n.endsWith(".pth"))
      .slice(0, PTH_FILES)
      .map((n) => path.join(site, n));
  } catch {
    return [];
  }
}

/**
 * The folders a site-packages folder's `.pth` files add to the path, as Python's site module reads them: a line
 * that is a path (relative to the folder) is added when it exists; an `import` line is code, and never run.
 */
function pthFolders(site: string): string[] {
  const found: string[] = [];
  for (const file of pthFiles(site)) {
    for (const raw of (smallText(file, PTH_BYTES) ?? "").split("\n")) {
      const line = raw.trim();
      if (!line || line.startsWith("#") || /^import[\s\t]/.test(line)) continue;
      const dir = path.resolve(site, line);
      try {
        if (statSync(dir).isDirectory()) found.push(dir);
      } catch {}
    }
  }
  return found;
}

/**
 * The top-level names of setuptools' editable finders (`import __editable___pkg_1_0_finder; …` in a `.pth`): the
 * finder module's `MAPPING` literal is read, never imported.
 */
function editableFinders(site: string): Set<string> {
  const names = new Set<string>();
  for (const file of pthFiles(site)) {
    const finder = /^import (__editable___[\w]+_finder)\b/m.exec(smallText(file, PTH_BYTES) ?? "")?.[1];
    const source = finder ? smallText(path.join(site, `${finder}.py`), PTH_BYTES * 4) : undefined;
    const mapping = source && /^MAPPING[^=]*=\s*\{([^}]*)\}/m.exec(source)?.[1];
    for (const entry of (mapping ?? "").matchAll(/['"]([\w.]+)['"]\s*:/g)) names.add(entry[1]!);
  }
  return names;
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
