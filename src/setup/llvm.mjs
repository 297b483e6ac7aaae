// clangd and lldb come versioned from the system's packages (clangd-14, lldb-dap-22): which version a binary is, and
// the newest the package manager offers, so that setup installs that one and runbound runs the newest it finds.
import { spawnSync } from "node:child_process";
import { realpathSync } from "node:fs";
import path from "node:path";

/**
 * The LLVM major version of a clangd or lldb binary: from its name (`clangd-22`) or from where its link leads
 * (Debian's `/usr/bin/clangd` → `/usr/lib/llvm-14/bin/clangd`); undefined when neither says.
 * @param {string} file
 * @returns {number | undefined}
 */
export function llvmMajor(file) {
  const named = /-(\d+)$/.exec(path.basename(file));
  if (named) return Number(named[1]);
  try {
    const linked = /\/llvm-(\d+)\//.exec(realpathSync(file));
    return linked ? Number(linked[1]) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The newest `<prefix>-NN` package apt knows (`clangd-22`), or undefined without apt.
 * @param {string} prefix
 * @returns {{ name: string, major: number } | undefined}
 */
export function newestAptPackage(prefix) {
  const r = spawnSync("apt-cache", ["pkgnames", `${prefix}-`], { encoding: "utf8", timeout: 30_000 });
  if (r.status !== 0) return undefined;
  const pattern = new RegExp(`^${prefix}-(\\d+)$`);
  /** @type {{ name: string, major: number } | undefined} */
  let newest;
  for (const line of r.stdout.split("\n")) {
    const major = Number(pattern.exec(line.trim())?.[1]);
    if (major && (!newest || major > newest.major)) newest = { name: line.trim(), major };
  }
  return newest;
}

/**
 * Whether setup should install the newest `<prefix>-NN` over `found`: only where it can (as root, apt asked only
 * then), and only when apt offers a newer major than `found` is.
 * @param {string | undefined} found
 * @param {string} prefix
 */
export function olderThanOffered(found, prefix) {
  const major = found === undefined ? undefined : llvmMajor(found);
  if (major === undefined || process.getuid?.() !== 0) return false;
  const newest = newestAptPackage(prefix);
  return newest !== undefined && major < newest.major;
}
