/**
 * runbound's npm components, found by module resolution: those it depends on (pyright, TypeScript 7) from runbound's
 * own module — so hoisted (npm, yarn) and symlinked (pnpm) installs both work — and those `runbound setup` puts in
 * its home's npm folder (Deno, typescript-language-server with TypeScript 6: they would weigh ~120 MB in every
 * install), then each package's bin entry or platform binary. Never `<runbound>/node_modules/.bin`.
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { homeLayout } from "./home.mjs";

export interface NpmPackage {
  readonly dir: string;
  readonly version: string;
  readonly bin: Readonly<Record<string, string>>;
}

interface Manifest {
  name?: string;
  version?: string;
  bin?: string | Record<string, string>;
}

const own = createRequire(import.meta.url);

/** A package as `from` (a require rooted at a module) resolves it: its folder, version and bin entries. */
export function npmPackage(name: string, from: NodeJS.Require = own): NpmPackage | undefined {
  const manifestPath = resolveManifest(name, from);
  if (!manifestPath) return undefined;
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as Manifest;
  const shortName = name.split("/").pop() ?? name;
  const bin = typeof manifest.bin === "string" ? { [shortName]: manifest.bin } : (manifest.bin ?? {});
  return { dir: path.dirname(manifestPath), version: manifest.version ?? "unknown", bin };
}

function resolveManifest(name: string, from: NodeJS.Require): string | undefined {
  try {
    return from.resolve(`${name}/package.json`);
  } catch {
    // A package whose `exports` hides package.json: resolve its entry, then walk up to its manifest.
    try {
      for (let dir = path.dirname(from.resolve(name)); path.dirname(dir) !== dir; dir = path.dirname(dir)) {
        const manifest = path.join(dir, "package.json");
        if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, "utf8")) as Manifest).name === name)
          return manifest;
      }
    } catch {}
    return undefined;
  }
}

/** A package from runbound's dependencies, else from the npm folder of runbound's home (`home`). */
export function componentPackage(name: string, home?: string): NpmPackage | undefined {
  return (
    npmPackage(name) ??
    (home
      ? npmPackage(name, createRequire(path.join(homeLayout(home).npmPrefix, "package.json")))
      : undefined)
  );
}

/** The file behind one of a package's bin entries (a script run with Node, or a native binary). */
export function npmBin(name: string, bin: string, home?: string): string | undefined {
  const pkg = componentPackage(name, home);
  const entry = pkg?.bin[bin];
  if (!pkg || !entry) return undefined;
  const file = path.join(pkg.dir, entry);
  return existsSync(file) ? file : undefined;
}

/** TypeScript 7's native compiler (`tsc --lsp`): the `typescript` package's platform package, resolved from it. */
export function tsgoBinary(): string | undefined {
  const typescript = npmPackage("typescript");
  if (!typescript?.version.startsWith("7.")) return undefined;
  const platform = npmPackage(
    `@typescript/typescript-${process.platform}-${process.arch}`,
    createRequire(path.join(typescript.dir, "package.json")),
  );
  const file = platform && path.join(platform.dir, "lib", process.platform === "win32" ? "tsc.exe" : "tsc");
  return file && existsSync(file) ? file : undefined;
}

/** TypeScript 6's tsserver, for typescript-language-server (installed under the alias `typescript6`). */
export function tsserverPath(home?: string): string | undefined {
  const pkg = componentPackage("typescript6", home);
  const file = pkg && path.join(pkg.dir, "lib", "tsserver.js");
  return file && existsSync(file) ? file : undefined;
}

/** Deno (its Jupyter kernel runs JavaScript cells): the binary its postinstall places, else its platform package's. */
export function denoBinary(home?: string): string | undefined {
  const deno = componentPackage("deno", home);
  if (!deno) return undefined;
  const exe = process.platform === "win32" ? "deno.exe" : "deno";
  if (existsSync(path.join(deno.dir, exe))) return path.join(deno.dir, exe);
  const libc = process.platform === "linux" ? "-glibc" : "";
  const platform = npmPackage(
    `@deno/${process.platform}-${process.arch}${libc}`,
    createRequire(path.join(deno.dir, "package.json")),
  );
  const file = platform && path.join(platform.dir, exe);
  return file && existsSync(file) ? file : undefined;
}

/** The folder of ZeroMQ's package (runbound's JavaScript kernel loads it from there), when installed. */
export function zeromqFolder(home?: string): string | undefined {
  return componentPackage("zeromq", home)?.dir;
}

/** Whether a file is a script to run with Node rather than an executable of its own. */
export function isNodeScript(file: string): boolean {
  return /\.(c|m)?js$/.test(file);
}
