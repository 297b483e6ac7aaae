/**
 * `runbound doctor [--workdir DIR] [--home DIR]`: every component — found where (the project, runbound's npm
 * dependencies, runbound's home, PATH), its version, what it serves — or why not, with the one command that fixes
 * it. It asks the same code the tools ask (`lsp status`, `debug adapters`, the kernels' interpreter choice), so
 * the three can never disagree.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { ADAPTERS, type AdapterSpec } from "../dap/adapters.js";
import { DebugSupervisor } from "../dap/supervisor.js";
import { pythonForCells } from "../kernels/interpreters.js";
import type { ServerSpec } from "../lsp/catalog.js";
import { LspSupervisor } from "../lsp/server/supervisor.js";
import type { BinarySource, Resolved } from "../proc/binaries.js";
import { bubblewrapLine, probeBubblewrap } from "../proc/bubblewrap.js";
import { goCacheCap, goCacheRoot, goCaches } from "../proc/build-cache.js";
import { childEnvironment } from "../proc/environment.js";
import { ProcessTracker } from "../proc/tracker.js";
import { COMPONENTS, setupCommand } from "../setup/components.mjs";
import { homeLayout } from "../setup/home.mjs";
import { componentPackage, denoBinary, npmPackage } from "../setup/npm.js";

export interface DoctorRow {
  readonly name: string;
  readonly serves: string;
  /** Where it was found and which version, or why not and the fix. */
  readonly found?: { readonly where: string; readonly version: string };
  readonly missing?: { readonly why: string; readonly fix: string };
  /** The workdir has a root marker for it: a missing one is needed here. */
  readonly neededHere: boolean;
}

const SOURCE: Record<BinarySource, string> = {
  project: "the project",
  runbound: "runbound's npm dependency",
  home: "runbound's home",
  PATH: "PATH",
};

/** The npm package behind an lsp server runbound ships, for its version. */
const SERVER_PACKAGE: Record<string, string> = {
  pyright: "pyright",
  tsgo: "typescript",
  "typescript-language-server": "typescript-language-server",
};

function versionOf(command: string, args: string[] = ["--version"]): string {
  const r = spawnSync(command, args, {
    encoding: "utf8",
    timeout: 15_000,
    env: childEnvironment(process.env),
  });
  const line = `${r.stdout ?? ""}${r.stderr ?? ""}`.trim().split("\n")[0] ?? "";
  return r.status === 0 && line ? line.slice(0, 80) : "version unknown";
}

const LANGUAGE: Record<string, string> = {
  python: "Python",
  typescript: "TypeScript",
  javascript: "JavaScript",
  go: "Go",
  c: "C",
  cpp: "C++",
  rust: "Rust",
  dart: "Dart",
};

function languagesOf(spec: ServerSpec): string {
  const ids = new Set(Object.values(spec.languages).map((l) => l.replace(/react$/, "")));
  return [...ids].map((id) => LANGUAGE[id] ?? id).join(", ");
}

const DEBUGS: Record<AdapterSpec["id"], string> = {
  debugpy: "Python",
  delve: "Go",
  lldb: "C, C++ and Rust binaries",
  node: "JavaScript and TypeScript (Node)",
  dart: "Dart",
};

function serverRow(spec: ServerSpec, lsp: LspSupervisor): DoctorRow {
  const { roots, resolved } = lsp.locate(spec);
  const serves = `lsp for ${languagesOf(spec)}`;
  const neededHere = roots.length > 0;
  if (!resolved) {
    const why = `${spec.candidates.map((c) => c.name).join(" or ")} not found in the project, runbound's dependencies, runbound's home or PATH`;
    return { name: spec.name, serves, missing: { why, fix: spec.install }, neededHere };
  }
  return { name: spec.name, serves, found: foundAt(resolved, SERVER_PACKAGE[spec.id]), neededHere };
}

/** Go tools print their version with a subcommand. */
const VERSION_ARGS: Record<string, string[]> = { gopls: ["version"], dlv: ["version"] };

function foundAt(resolved: Resolved, npmName: string | undefined): { where: string; version: string } {
  const script = resolved.command === process.execPath ? resolved.args[0] : undefined;
  const program = script ?? resolved.command;
  const pkg = resolved.from === "runbound" && npmName ? npmPackage(npmName) : undefined;
  const args = VERSION_ARGS[path.basename(program)] ?? ["--version"];
  const version = pkg ? pkg.version : versionOf(resolved.command, [...(script ? [script] : []), ...args]);
  return { where: `${SOURCE[resolved.from]}: ${program}`, version };
}

function adapterRow(spec: AdapterSpec, debug: DebugSupervisor): DoctorRow {
  const { roots, resolved } = debug.locate(spec);
  const serves = `debug for ${DEBUGS[spec.id]}`;
  const neededHere = roots.length > 0;
  if ("missing" in resolved)
    return { name: spec.name, serves, missing: { why: resolved.missing, fix: spec.install }, neededHere };
  return { name: spec.name, serves, found: { where: resolved.detail, version: "" }, neededHere };
}

function kernelRows(workdir: string, home: string, neededHere: boolean): DoctorRow[] {
  const python = COMPONENTS.find((c) => c.id === "python")!;
  const present = python.check(home);
  const cells = pythonForCells(workdir, home);
  const own = cells.python === homeLayout(home).python;
  const pythonRow: DoctorRow = present
    ? {
        name: "runbound's Python environment",
        serves: `eval (the Jupyter server${own ? ", Python cells" : ""}), debug (debugpy)`,
        found: { where: `runbound's home: ${present.where}`, version: present.version },
        neededHere,
      }
    : {
        name: "runbound's Python environment",
        serves: "eval (the Jupyter server, Python cells), debug (debugpy)",
        missing: { why: `not installed in ${home}`, fix: setupCommand("python") },
        neededHere: true,
      };
  const rows = [pythonRow];
  if (!own)
    rows.push({
      name: "the project's Python",
      serves: "eval (Python cells: the project has ipykernel)",
      found: { where: `the project: ${cells.python}`, version: versionOf(cells.python) },
      neededHere,
    });
  const zeromq = componentPackage("zeromq", home);
  const kernelServes = `eval (JavaScript cells: runbound's kernel on this Node, ${process.version})`;
  rows.push(
    zeromq
      ? {
          name: "ZeroMQ for Node",
          serves: kernelServes,
          found: { where: `runbound's home: ${zeromq.dir}`, version: zeromq.version },
          neededHere: true,
        }
      : {
          name: "ZeroMQ for Node",
          serves: kernelServes,
          missing: { why: "ZeroMQ is not in runbound's home", fix: setupCommand("node-kernel") },
          neededHere: true,
        },
  );
  const deno = denoBinary(home);
  const denoServes = 'eval (JavaScript cells in Deno\'s kernel, with kernels.javascript "deno")';
  rows.push(
    deno
      ? {
          name: "Deno",
          serves: denoServes,
          found: {
            where: `${npmPackage("deno") ? "runbound's npm dependency" : "runbound's home"}: ${deno}`,
            version: componentPackage("deno", home)?.version ?? "",
          },
          neededHere: false,
        }
      : {
          name: "Deno",
          serves: denoServes,
          missing: { why: "Deno is not in runbound's home", fix: setupCommand("deno") },
          neededHere: false,
        },
  );
  return rows;
}

/** Whether the processes that run code can be confined here (the default where they can). */
function confinementRow(): DoctorRow {
  const serves = "confines kernels, debuggees and adapters, workers and servers that run the project's code";
  const probe = probeBubblewrap();
  return probe.ok
    ? {
        name: "bubblewrap",
        serves,
        found: { where: `PATH: ${probe.path}`, version: bubblewrapLine(probe).replace(/^bubblewrap /, "") },
        neededHere: false,
      }
    : {
        name: "bubblewrap",
        serves,
        missing: { why: `${probe.why}: those run on the host`, fix: probe.fix },
        neededHere: false,
      };
}

export function doctorRows(workdir: string, home: string): DoctorRow[] {
  const processes = new ProcessTracker();
  const lsp = new LspSupervisor(workdir, processes, home);
  const debug = new DebugSupervisor(workdir, "doctor", processes, home);
  const servers = lsp.specs.map((spec) => serverRow(spec, lsp));
  const python = servers.some((r) => r.name === "Pyright" && r.neededHere);
  return [
    ...servers,
    ...ADAPTERS.map((spec) => adapterRow(spec, debug)),
    ...kernelRows(workdir, home, python),
    confinementRow(),
  ];
}

export function renderDoctor(workdir: string, home: string, rows: readonly DoctorRow[]): string {
  const lines = [`runbound doctor — workdir ${workdir}, runbound's home ${home}`, ""];
  for (const row of rows) {
    if (row.found) {
      const version = row.found.version ? ` ${row.found.version}` : "";
      lines.push(`✓ ${row.name}${version} — ${row.serves} — ${row.found.where}`);
    } else if (row.missing) {
      const here = row.neededHere ? " (this workdir needs it)" : "";
      lines.push(`✗ ${row.name} — ${row.serves} — ${row.missing.why}${here}. Fix: ${row.missing.fix}`);
    }
  }
  const needed = rows.filter((r) => r.missing && r.neededHere);
  const usable = rows.filter((r) => r.found).length;
  lines.push("", `${usable} of ${rows.length} usable; ${needed.length} missing that this workdir needs.`);
  return lines.join("\n");
}

/** The Go build caches of confined gopls, go vet and delve: how many, their size, the cap. */
export async function goCacheLine(): Promise<string> {
  const caches = await goCaches(goCacheRoot());
  const mb = (bytes: number) => `${Math.round(bytes / (1024 * 1024))} MB`;
  const total = caches.reduce((sum, c) => sum + c.bytes, 0);
  return `Go build caches: ${caches.length} folder${caches.length === 1 ? "" : "s"}, ${mb(total)} of ${mb(goCacheCap())} (RUNBOUND_GO_CACHE_MB; the least recently used go first) — ${goCacheRoot()}`;
}

/** The command: prints the report; exit code 1 when something this workdir needs is missing. */
export async function runDoctor(workdir: string, home: string): Promise<number> {
  const absolute = path.resolve(workdir);
  const rows = doctorRows(absolute, home);
  console.log(`${renderDoctor(absolute, home, rows)}\n${await goCacheLine()}`);
  return rows.some((r) => r.missing && r.neededHere) ? 1 : 0;
}
