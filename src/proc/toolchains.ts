/**
 * What a confined process must still read although the user's home is hidden: the toolchains wherever they live
 * (pyenv, cargo and rustup, Go, nvm — often under the home), runbound's home, runbound's own package and the Node
 * that runs it.
 */
import { existsSync, realpathSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir } from "node:os";
import path from "node:path";
import { within } from "./bubblewrap.js";
import { absolutePathEntries } from "./environment.js";

/** Variables that name a toolchain's folder. */
const TOOLCHAIN_VARIABLES = [
  "PYENV_ROOT",
  "CARGO_HOME",
  "RUSTUP_HOME",
  "GOROOT",
  "GOPATH",
  "GOMODCACHE",
  "NVM_DIR",
  "VOLTA_HOME",
  "SDKMAN_DIR",
  "JAVA_HOME",
  "DENO_INSTALL",
  "BUN_INSTALL",
];

/** Home folders whose PATH entry is shown alone, not the whole folder (they hold more than a toolchain). */
const SHARED_FOLDERS = new Set([".local", ".config", ".cache", ".share"]);

export function readableToolchains(runboundHome: string): string[] {
  const home = homedir();
  const found = new Set<string>([runboundHome, packageRoot(), path.dirname(path.dirname(process.execPath))]);
  for (const entry of absolutePathEntries(process.env.PATH).split(path.delimiter)) {
    if (entry) found.add(toolchainFolder(entry, home));
  }
  for (const name of TOOLCHAIN_VARIABLES) {
    const value = process.env[name];
    if (value && path.isAbsolute(value)) found.add(value);
  }
  // rustup's proxies in ~/.cargo/bin need its toolchains; Go's default GOPATH holds the module cache.
  for (const dir of [".rustup", "go"]) found.add(path.join(home, dir));
  const real = [...found].filter((dir) => existsSync(dir)).map((dir) => realpathSync(dir));
  // The system's folders are shown whole already.
  return [...new Set(real)].filter((dir) => dir !== "/" && !SYSTEM_PREFIXES.some((sys) => within(dir, sys)));
}

const SYSTEM_PREFIXES = ["/usr", "/bin", "/sbin", "/lib", "/lib64", "/etc"].map((dir) => {
  try {
    return realpathSync(dir);
  } catch {
    return dir;
  }
});

/**
 * A PATH entry under the home stands for its top folder there (~/.pyenv/shims → ~/.pyenv); elsewhere a `bin`
 * folder stands for the installation holding it (/opt/toolcache/node/22/bin → …/22: its lib and share too) — but
 * never a top-level folder (/opt/bin is itself: all of /opt would show every checkout kept there).
 */
function toolchainFolder(entry: string, home: string): string {
  if (!within(entry, home) || entry === home) {
    const base = path.basename(entry);
    const parent = path.dirname(entry);
    return (base === "bin" || base === "sbin") &&
      path.dirname(parent) !== parent &&
      path.dirname(parent) !== "/"
      ? parent
      : entry;
  }
  const [top] = path.relative(home, entry).split(path.sep);
  return top && !SHARED_FOLDERS.has(top) ? path.join(home, top) : entry;
}

/** runbound's package folder, or the node_modules holding it (and, with pnpm, its dependencies' real folders). */
function packageRoot(): string {
  const root = path.dirname(createRequire(import.meta.url).resolve("runbound/package.json"));
  const parts = root.split(path.sep);
  const modules = parts.indexOf("node_modules");
  return modules > 0 ? parts.slice(0, modules + 1).join(path.sep) : root;
}
