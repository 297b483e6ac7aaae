/**
 * The project-wide check behind `lsp diagnostics "*"`: each language's own checker, run in each root found in the
 * workdir, parsed into one shape. (No server here answers workspace/diagnostic for a whole project: TypeScript 7
 * advertises workspaceDiagnostics: false, pyright has no pull at all; the checkers are what CI would run.)
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { visibleLine } from "../../files/visible.js";
import { type Resolved, resolveBinary } from "../../proc/binaries.js";
import { exitedAndDrained, type ProcessTracker } from "../../proc/tracker.js";
import { npmBin, tsgoBinary } from "../../setup/npm.js";
import type { ServerSpec } from "../catalog.js";
import type { DiagnosticRow } from "../schema.js";
import { spawnEnvironment } from "../server/server-process.js";

export interface CheckRun {
  readonly server: string;
  readonly root: string;
  readonly command: string;
  readonly rows: DiagnosticRow[];
  /** "fresh" when the checker finished; otherwise why not. */
  readonly outcome: "fresh" | "timed out" | "failed" | "no checker" | "not run";
  readonly note?: string;
}

interface Checker {
  readonly binary: string;
  /** It builds and runs the project's own code (cargo check: build.rs, proc macros): only in a trusted workspace. */
  readonly runsProjectCode?: boolean;
  /** The checker runbound ships (an npm dependency), used when the project has none of its own. */
  readonly embedded?: () => string | undefined;
  args(root: string): string[] | undefined;
  /** Why it cannot run in this root, when args() says so. */
  readonly needs?: string;
  parse(out: string, root: string): DiagnosticRow[];
}

const sev = (s: string) => (/err/i.test(s) ? "error" : /warn/i.test(s) ? "warning" : "info");

/**
 * The findings of a checker that prints one a line, `pattern`'s first group the file. A file name with a newline
 * (a hostile repository's) spans lines: a finding whose file is not there is joined to the lines above it until it
 * names one that is, and what was read as findings on those lines is dropped (they were the name).
 */
function lineFindings(
  out: string,
  root: string,
  pattern: RegExp,
  row: (m: RegExpExecArray, file: string) => DiagnosticRow,
): DiagnosticRow[] {
  const lines = out.split("\n");
  const found: { at: number; row: DiagnosticRow }[] = [];
  lines.forEach((line, i) => {
    const m = pattern.exec(line);
    if (!m) return;
    let file = path.resolve(root, m[1]!);
    let from = i;
    for (let k = 1; k <= MAX_NAME_LINES && i - k >= 0 && !existsSync(file); k++) {
      const joined = path.resolve(root, [...lines.slice(i - k, i), m[1]!].join("\n"));
      if (existsSync(joined)) [file, from] = [joined, i - k];
    }
    while (from < i && (found.at(-1)?.at ?? -1) >= from) found.pop();
    found.push({ at: i, row: row(m, file) });
  });
  return found.map((f) => f.row);
}
const MAX_NAME_LINES = 8;

/** pyright and its fork basedpyright: the same command line and JSON report. */
function pyrightCheck(binary: "pyright" | "basedpyright", embedded?: () => string | undefined): Checker {
  return {
    binary,
    ...(embedded ? { embedded } : {}),
    args: () => ["--outputjson"],
    parse: (out) => {
      const json = JSON.parse(out.slice(out.indexOf("{"))) as {
        generalDiagnostics?: {
          file: string;
          severity: string;
          message: string;
          rule?: string;
          range?: { start: { line: number; character: number } };
        }[];
      };
      return (json.generalDiagnostics ?? []).map((d) => ({
        path: d.file,
        line: (d.range?.start.line ?? 0) + 1,
        column: (d.range?.start.character ?? 0) + 1,
        severity: sev(d.severity),
        ...(d.rule ? { code: d.rule } : {}),
        source: binary,
        message: d.message,
      }));
    },
  };
}

const CHECKERS: Record<string, Checker> = {
  tsgo: {
    binary: "tsgo",
    embedded: tsgoBinary,
    // A read-tier check writes nothing: a tsconfig's incremental or composite wrote its build info (to any path it
    // names: a source file was overwritten), and its generateTrace a folder of traces; `null` unsets an option.
    args: (root) =>
      existsSync(path.join(root, "tsconfig.json"))
        ? [
            "--noEmit",
            ...["--incremental", "false", "--composite", "false"],
            ...["--tsBuildInfoFile", "null", "--generateTrace", "null"],
            ...["--pretty", "false", "-p", root],
          ]
        : undefined,
    needs: "a tsconfig.json",
    parse: (out, root) =>
      lineFindings(out, root, /^(.+?)\((\d+),(\d+)\): (error|warning|message) (TS\d+): (.*)$/, (m, file) => ({
        path: file,
        line: Number(m[2]),
        column: Number(m[3]),
        severity: sev(m[4]!),
        code: m[5]!,
        source: "tsc",
        message: m[6]!,
      })),
  },
  pyright: pyrightCheck("pyright", () => npmBin("pyright", "pyright")),
  basedpyright: pyrightCheck("basedpyright"),
  gopls: {
    binary: "go",
    args: () => ["vet", "./..."],
    parse: (out, root) =>
      lineFindings(out, root, /^(?:vet: )?(\.?[^\s:#][^:]*\.go):(\d+):(\d+): (.*)$/, (m, file) => ({
        path: file,
        line: Number(m[2]),
        column: Number(m[3]),
        severity: "error",
        source: "go vet",
        message: m[4]!,
      })),
  },
  "rust-analyzer": {
    binary: "cargo",
    runsProjectCode: true,
    args: () => ["check", "--quiet", "--message-format=json"],
    parse: (out, root) =>
      out
        .split("\n")
        .filter((l) => l.startsWith("{"))
        .flatMap((l) => {
          const m = JSON.parse(l) as {
            reason?: string;
            message?: {
              level: string;
              message: string;
              code?: { code: string } | null;
              spans: { file_name: string; line_start: number; column_start: number; is_primary: boolean }[];
            };
          };
          const span = m.message?.spans.find((s) => s.is_primary);
          if (m.reason !== "compiler-message" || !m.message || !span) return [];
          return [
            {
              path: path.resolve(root, span.file_name),
              line: span.line_start,
              column: span.column_start,
              severity: sev(m.message.level),
              ...(m.message.code ? { code: m.message.code.code } : {}),
              source: "rustc",
              message: m.message.message,
            },
          ];
        }),
  },
  dart: {
    binary: "dart",
    args: () => ["analyze", "--format=machine"],
    parse: (out) =>
      out
        .split("\n")
        .map((l) => l.split("|"))
        .filter((f) => f.length >= 8)
        .map((f) => ({
          path: f[3]!,
          line: Number(f[4]),
          column: Number(f[5]),
          severity: sev(f[0]!),
          code: f[2]!,
          source: "dart",
          message: f.slice(7).join("|"),
        })),
  },
};

const CHECK_TIMEOUT_MS = 180_000;
const MAX_OUTPUT = 20 * 1024 * 1024;

/** Whether `spec` has a project-wide checker. */
export function hasChecker(spec: ServerSpec): boolean {
  return CHECKERS[checkerId(spec)] !== undefined;
}

function checkerId(spec: ServerSpec): string {
  return spec.id === "typescript-language-server" ? "tsgo" : spec.id;
}

export async function runCheck(
  spec: ServerSpec,
  root: string,
  workdir: string,
  processes: ProcessTracker,
  signal: AbortSignal,
  home: string,
  trusted: boolean,
): Promise<CheckRun> {
  const checker = CHECKERS[checkerId(spec)];
  const noChecker = (note: string): CheckRun => ({
    server: spec.id,
    root,
    command: "",
    rows: [],
    outcome: "no checker",
    note,
  });
  if (!checker) return noChecker(`${spec.name} has no project-wide checker; ask for diagnostics per file`);
  const args = checker.args(root);
  if (!args) return noChecker(`the checker needs ${checker.needs}`);
  if (checker.runsProjectCode && !trusted)
    return {
      ...noChecker(
        `${checker.binary} ${args[0]} builds and runs the project's build scripts and proc macros, and the workspace is not trusted (createRun({ trust: "workspace" }) runs it)`,
      ),
      outcome: "not run",
    };
  const resolved = resolveBinary(
    { name: checker.binary, args, ...(checker.embedded ? { embedded: checker.embedded } : {}) },
    root,
    workdir,
    home,
    { project: trusted },
  );
  if (!resolved)
    return {
      server: spec.id,
      root,
      command: checker.binary,
      rows: [],
      outcome: "failed",
      note: `${checker.binary} is not installed`,
    };
  // A checker runbound runs as a Node script is named by its package's command, not by Node.
  const program = resolved.command === process.execPath ? checker.binary : path.basename(resolved.command);
  const command = `${program} ${args.join(" ")}`;
  return execute(spec, root, checker, resolved, command, processes, signal);
}

/** Runs the checker and reads its findings: timed out, failed without a finding, or fresh. */
async function execute(
  spec: ServerSpec,
  root: string,
  checker: Checker,
  resolved: Resolved,
  command: string,
  processes: ProcessTracker,
  signal: AbortSignal,
): Promise<CheckRun> {
  const proc = processes.spawn(`${spec.id} check`, resolved.command, resolved.args, {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
    // Where the run confines, whether it runs the project's code or only reads it (which a check on the host could
    // do of any file the project points at).
    confined: true,
    ...spawnEnvironment(spec, root, processes.confinedPlace),
  });
  let out = "";
  const take = (chunk: Buffer) => {
    if (out.length < MAX_OUTPUT) out += chunk.toString();
  };
  proc.child.stdout?.on("data", take);
  proc.child.stderr?.on("data", take);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    void processes.kill(proc.pid, 500);
  }, CHECK_TIMEOUT_MS);
  const onAbort = () => void processes.kill(proc.pid, 500);
  signal.addEventListener("abort", onAbort, { once: true });
  let status: Awaited<ReturnType<typeof exitedAndDrained>>;
  try {
    status = await exitedAndDrained(proc);
  } finally {
    clearTimeout(timer);
    signal.removeEventListener("abort", onAbort);
  }
  if (signal.aborted) throw signal.reason;
  if (timedOut)
    return {
      server: spec.id,
      root,
      command,
      rows: [],
      outcome: "timed out",
      note: `${command} did not finish within ${CHECK_TIMEOUT_MS / 1000} s`,
    };
  try {
    const rows = checker.parse(out, root);
    // A checker that failed without a finding did not check (go vet under a go.mod it cannot serve): not "0 findings".
    if (rows.length === 0 && status.code !== 0)
      return {
        server: spec.id,
        root,
        command,
        rows,
        outcome: "failed",
        note: `it exited with ${status.code === null ? status.signal : `code ${status.code}`} and no finding: ${visibleLine(out.trim().slice(0, 300)) || "no output"}`,
      };
    return { server: spec.id, root, command, rows, outcome: "fresh" };
  } catch (error) {
    return {
      server: spec.id,
      root,
      command,
      rows: [],
      outcome: "failed",
      note: `could not read ${command}'s output (${(error as Error).message}): ${out.slice(0, 300)}`,
    };
  }
}
