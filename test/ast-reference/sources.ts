/**
 * Real code for the differential test, found where a fresh machine has it after `npm install` and `runbound setup`:
 * the project's dependencies (zod's TypeScript, the MCP SDK's JavaScript, the C scanners of the
 * grammar packages), runbound's Python environment (jupyter_server, matplotlib's HTML, nbconvert's CSS, nbformat's
 * JSON schemas, event schemas in YAML), the Go and Rust toolchains' standard libraries (and the Rust library's Cargo
 * manifests), the system's shell scripts and PostgreSQL's SQL, runbound's home (intelephense's PHP stubs, typeshed's
 * TOML metadata), Markdown documentation of the dependencies. Where the machine has none of a language (Java, Kotlin,
 * Dart, Ruby, TSX, C#, Swift, Scala, Haskell, Elixir, Lua, Angular here), the fixture in ./fixtures, which no case was
 * chosen from by hand either: the cases are generated from its nodes.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { HOME } from "../helpers.js";

const require = createRequire(import.meta.url);

/** A package runbound depends on, else one `runbound setup` put in its home (grammars, language servers). */
function packageDir(name: string): string | undefined {
  for (const from of [require, createRequire(path.join(HOME.npmPrefix, "package.json"))]) {
    try {
      return path.dirname(from.resolve(`${name}/package.json`));
    } catch {}
  }
  return undefined;
}

function output(command: string, args: string[]): string | undefined {
  try {
    return execFileSync(command, args, { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return undefined;
  }
}

/** Files under `dir` (not following links) whose name passes `keep`, sorted, at most `limit` looked at. */
function filesUnder(dir: string | undefined, keep: (name: string) => boolean, limit = 2000): string[] {
  if (!dir || !existsSync(dir)) return [];
  const found: string[] = [];
  const queue = [dir];
  while (queue.length && found.length < limit) {
    const current = queue.shift()!;
    let names: string[];
    try {
      names = readdirSync(current).sort();
    } catch {
      continue;
    }
    for (const name of names) {
      const file = path.join(current, name);
      const info = statSync(file, { throwIfNoEntry: false });
      if (!info) continue;
      if (info.isDirectory() && name !== "node_modules" && !name.startsWith(".")) queue.push(file);
      else if (info.isFile() && keep(name)) found.push(file);
    }
  }
  return found;
}

const ext =
  (...wanted: string[]) =>
  (name: string) =>
    wanted.some((e) => name.endsWith(e)) && !name.endsWith(".d.ts");

function sitePackages(): string | undefined {
  const lib = path.join(path.dirname(path.dirname(HOME.python)), "lib");
  const version = existsSync(lib) ? readdirSync(lib).find((n) => n.startsWith("python3")) : undefined;
  return version ? path.join(lib, version, "site-packages") : undefined;
}

/** Shell scripts of the system (`#!/bin/sh` or bash), as the bash grammar reads both. */
function shellScripts(): string[] {
  return filesUnder("/usr/bin", () => true, 5000).filter((file) => {
    try {
      const head = readFileSync(file, { encoding: "latin1" }).slice(0, 40);
      return /^#!\s*\/(usr\/)?bin\/(ba)?sh\b/.test(head);
    } catch {
      return false;
    }
  });
}

const FIXTURES = path.join(import.meta.dirname, "fixtures");

/** Candidate files per grammar id, before sampling. */
export function candidates(id: string): string[] {
  const site = sitePackages();
  const goroot = output("go", ["env", "GOROOT"]);
  const sysroot = output("rustc", ["--print", "sysroot"]);
  const fixture = filesUnder(FIXTURES, (name) => name.startsWith(`${id}.`));
  const found: Record<string, () => string[]> = {
    typescript: () => filesUnder(packageDir("zod"), ext(".ts")),
    javascript: () => filesUnder(packageDir("@modelcontextprotocol/sdk"), ext(".js")),
    json: () => filesUnder(site && path.join(site, "nbformat"), ext(".json")),
    python: () => filesUnder(site && path.join(site, "jupyter_server"), ext(".py")),
    html: () => filesUnder(site && path.join(site, "matplotlib"), ext(".html")),
    css: () =>
      filesUnder(site && path.join(path.dirname(path.dirname(path.dirname(site))), "share"), ext(".css")),
    yaml: () => filesUnder(site && path.join(site, "jupyter_server"), ext(".yaml", ".yml")),
    go: () => filesUnder(goroot && path.join(goroot, "src", "strings"), ext(".go")),
    rust: () =>
      filesUnder(sysroot && path.join(sysroot, "lib/rustlib/src/rust/library/core/src/str"), ext(".rs")),
    c: () =>
      ["c", "cpp", "python", "rust", "kotlin", "yaml", "bash", "ruby"].flatMap((lang) =>
        filesUnder(packageDir(`@ast-grep/lang-${lang}`), (name) => name === "scanner.c"),
      ),
    cpp: () => filesUnder(site && path.join(site, "numpy"), ext(".cpp")),
    bash: shellScripts,
    // PHP's standard library as intelephense describes it (the language-servers component).
    php: () =>
      filesUnder(
        packageDir("intelephense") && path.join(packageDir("intelephense")!, "lib", "stub"),
        ext(".php"),
      ),
    // Cargo manifests of the Rust toolchain's library, and typeshed's stub metadata (basedpyright's).
    toml: () => [
      ...filesUnder(sysroot && path.join(sysroot, "lib/rustlib/src/rust/library"), (n) => n === "Cargo.toml"),
      ...filesUnder(packageDir("basedpyright"), (n) => n === "METADATA.toml"),
    ],
    // The READMEs of runbound's dependencies.
    markdown: () => filesUnder(path.dirname(packageDir("ws")!), (n) => n === "README.md", 20_000),
    // PostgreSQL's extension scripts, where the system has PostgreSQL.
    sql: () => filesUnder("/usr/share/postgresql", ext(".sql")),
  };
  const real = (found[id]?.() ?? []).filter(usable);
  return real.length ? real : fixture;
}

/** ASCII (so the CLI's columns and runbound's count the same), 300 bytes to 30 KB. */
function usable(file: string): boolean {
  const size = statSync(file).size;
  if (size < 300 || size > 30_000) return false;
  const bytes = readFileSync(file);
  return bytes.every((b) => b === 9 || b === 10 || b === 13 || (b >= 32 && b < 127));
}
