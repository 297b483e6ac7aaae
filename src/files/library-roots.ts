/**
 * Where an answer may quote from — a language server's, a debug stop's: the workdir, and the run's library roots — runbound's home and
 * npm components (bundled stubs, TypeScript's libs), the system's prefixes, and the toolchains' sources (Go's root
 * and module cache, rustup's toolchains, cargo's registry, the Python base prefix). Anything else a server points
 * at (a committed symlink to a folder outside, a `../../outside` import, pyright's extraPaths, a debug server's frame
 * naming /etc/shadow) is named without its content: `read` refuses it, and an answer must not be the way around
 * that — runbound reads as the harness's user, on the host.
 */
import { spawnSync } from "node:child_process";
import { realpathSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { childEnvironment } from "../proc/environment.js";
import { homeLayout } from "../setup/home.mjs";
import { componentPackage, tsgoBinary } from "../setup/npm.js";

const cached = new Map<string, readonly string[]>();

function real(dir: string): string {
  try {
    return realpathSync.native(dir);
  } catch {
    return dir;
  }
}

function ask(command: string, args: string[]): string[] {
  const r = spawnSync(command, args, { encoding: "utf8", timeout: 5000, env: childEnvironment(process.env) });
  return r.status === 0
    ? r.stdout
        .split("\n")
        .map((l) => l.trim())
        .filter(Boolean)
    : [];
}

/** The library roots of runbound's home (asked once per process and home: it spawns go and python). */
export function libraryRoots(home: string): readonly string[] {
  const known = cached.get(home);
  if (known) return known;
  const user = os.homedir();
  const tsgo = tsgoBinary();
  const roots = [
    home,
    ...["pyright", "typescript", "typescript6", "typescript-language-server"].map(
      (n) => componentPackage(n, home)?.dir,
    ),
    // TypeScript 7's lib.*.d.ts ship in its platform package, beside the binary.
    tsgo && path.dirname(path.dirname(tsgo)),
    "/usr",
    "/lib",
    "/lib64",
    ...ask("go", ["env", "GOROOT", "GOMODCACHE"]),
    process.env.RUSTUP_HOME ?? path.join(user, ".rustup"),
    ...["registry", "git"].map((d) => path.join(process.env.CARGO_HOME ?? path.join(user, ".cargo"), d)),
    ...ask(homeLayout(home).python, ["-c", "import sys; print(sys.base_prefix)"]),
  ]
    .filter((d): d is string => Boolean(d))
    .map(real);
  cached.set(home, roots);
  return roots;
}

/** Whether `file` (by its real path) lies in one of `roots`. */
export function within(file: string, roots: readonly string[]): boolean {
  const target = real(file);
  return roots.some((root) => target === root || target.startsWith(`${root}${path.sep}`));
}
