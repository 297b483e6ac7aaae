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
  const linked = sites.map(pthLinks);
  const dirs = [...sites, ...linked.flatMap((l) => l.folders)];
  return (
    dirs.some(
      (dir) =>
        existsSync(path.join(dir, module, "__init__.py")) || existsSync(path.join(dir, `${module}.py`)),
    ) || linked.some((l) => l.finderNames.has(module))
  );
}

/**
 * How much of a site-packages folder's `.pth` files is read (the project's own files, read on the host's thread):
 * files, bytes of each, and path lines of all together.
 */
const PTH_FILES = 200;
const PTH_BYTES = 64 * 1024;
const PTH_PATHS = 1000;

/** A small regular file's text, or undefined (too large, a pipe, a device, missing). */
export function smallText(file: string, limit: number): string | undefined {
  try {
    if (statSync(file).size > limit) return undefined;
    const read = readRegularSync(file);
    return isBytes(read) ? read.toString("utf8") : undefined;
  } catch {
    return undefined;
  }
}

/**
 * What a site-packages folder's `.pth` files add, read once each as Python's site module reads them: a path line
 * (relative to the folder) is a folder on the path when it exists; an `import` line is code and never run, but
 * setuptools' editable finder it names (`import __editable___pkg_1_0_finder; …`) has its `MAPPING` literal read.
 */
function pthLinks(site: string): { folders: string[]; finderNames: Set<string> } {
  const folders: string[] = [];
  const finderNames = new Set<string>();
  let names: string[];
  try {
    names = readdirSync(site).filter((n) => n.endsWith(".pth"));
  } catch {
    return { folders, finderNames };
  }
  let paths = 0;
  for (const name of names.slice(0, PTH_FILES)) {
    for (const raw of (smallText(path.join(site, name), PTH_BYTES) ?? "").split("\n")) {
      const line = raw.trim();
      if (!line || line.startsWith("#")) continue;
      const finder = /^import (__editable___\w+_finder)\b/.exec(line)?.[1];
      if (finder) for (const n of finderMapping(path.join(site, `${finder}.py`))) finderNames.add(n);
      if (/^import\s/.test(line) || ++paths > PTH_PATHS) continue;
      try {
        const dir = path.resolve(site, line);
        if (statSync(dir).isDirectory()) folders.push(dir);
      } catch {}
    }
  }
  return { folders, finderNames };
}

/** The top-level names of a setuptools editable finder's `MAPPING = {'pkg': '/src/pkg'}`, read, never imported. */
function finderMapping(file: string): string[] {
  const mapping = /^MAPPING[^=]*=\s*\{([^}]*)\}/m.exec(smallText(file, PTH_BYTES * 4) ?? "")?.[1];
  return [...(mapping ?? "").matchAll(/['"]([\w.]+)['"]\s*:/g)].map((m) => m[1]!);
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
  return readdirSafe(lib)
    .filter((n) => /^python3(\.\d+)?$/.test(n))
    .map((n) => path.join(lib, n, kind));
}

/** A pyvenv.cfg is a few lines; the project's could be anything (a pipe, a gigabyte). */
const CONFIG_BYTES = 64 * 1024;

/** pyvenv.cfg's `key = value` lines. */
function pyvenvConfig(env: string): Map<string, string> {
  const config = new Map<string, string>();
  for (const line of (smallText(path.join(env, "pyvenv.cfg"), CONFIG_BYTES) ?? "").split("\n")) {
    const at = line.indexOf("=");
    if (at > 0) config.set(line.slice(0, at).trim().toLowerCase(), line.slice(at + 1).trim());
  }
  return config;
}

/** What an environment layered over `python`'s needs to know of it, read from its folders (never by running it). */
export interface EnvironmentLayout {
  /** The folder of the base interpreter (pyvenv.cfg's `home`, or the interpreter's own folder when not a venv). */
  readonly home: string;
  /** `python3.X`: the name of the lib folder of that version. */
  readonly lib: string;
  /** Whether the base interpreter's site-packages are on the path (a venv's setting; true when not a venv). */
  readonly systemSite: boolean;
  /** The environment's own site-packages folder (none when it is not a venv). */
  readonly sites: readonly string[];
}

/** The layout of `python`'s environment (`<env>/bin/python`), or undefined when its version cannot be read. */
export function environmentLayout(python: string): EnvironmentLayout | undefined {
  const env = path.dirname(path.dirname(python));
  const config = pyvenvConfig(env);
  const home = config.get("home");
  const versions = readdirSafe(path.join(env, "lib")).filter((n) => /^python3\.\d+$/.test(n));
  // uv writes version_info, venv version; the lib folder says it when both are missing.
  const stated = /^(3\.\d+)/.exec(config.get("version_info") ?? config.get("version") ?? "")?.[1];
  const lib = stated ? `python${stated}` : versions.length === 1 ? versions[0] : undefined;
  if (!lib) return undefined;
  if (!home) return { home: path.dirname(python), lib, systemSite: true, sites: [] };
  const sites = [path.join(env, "lib", lib, "site-packages")];
  return { home, lib, systemSite: config.get("include-system-site-packages") === "true", sites };
}

/** A folder's names; none when it cannot be read. */
export function readdirSafe(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
