// @ts-check
// runbound's home: the one folder for the components runbound manages itself (its Python environment, gopls,
// delve). Never inside node_modules (the next `npm ci` would wipe it) and never inside the user's project.
// Dependency-free on purpose: `npx runbound setup` and the checkout's scripts/setup.mjs run it before, or without,
// anything else.
import os from "node:os";
import path from "node:path";

/**
 * `$RUNBOUND_HOME`, else `$XDG_DATA_HOME/runbound`, else `~/.local/share/runbound`.
 * @param {Record<string, string | undefined>} [env]
 * @returns {string}
 */
export function defaultHome(env = process.env) {
  if (env.RUNBOUND_HOME) return path.resolve(env.RUNBOUND_HOME);
  if (env.XDG_DATA_HOME) return path.join(path.resolve(env.XDG_DATA_HOME), "runbound");
  return path.join(os.homedir(), ".local", "share", "runbound");
}

/**
 * Caches runbound's sandboxes write (delve's Go build cache per workdir): never in runbound's home, which no sandbox
 * may write. `$XDG_CACHE_HOME/runbound`, else `~/.cache/runbound`.
 * @param {Record<string, string | undefined>} [env]
 * @returns {string}
 */
export function cacheFolder(env = process.env) {
  if (env.XDG_CACHE_HOME) return path.join(path.resolve(env.XDG_CACHE_HOME), "runbound");
  return path.join(os.homedir(), ".cache", "runbound");
}

/**
 * Where each managed component lives inside a home.
 * @param {string} home
 */
export function homeLayout(home) {
  const venv = path.join(home, "python");
  return {
    home,
    /** runbound's Python environment: jupyter_server, ipykernel, debugpy, pandas, matplotlib. */
    venv,
    python: path.join(venv, "bin", "python"),
    /** gopls and dlv, built with `go install`. */
    goBin: path.join(home, "go", "bin"),
    /** The language servers published on npm that runbound does not depend on (`npm install --prefix`). */
    npmPrefix: path.join(home, "npm"),
    npmBin: path.join(home, "npm", "node_modules", ".bin"),
  };
}
