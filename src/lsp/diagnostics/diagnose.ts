/** diagnostics: one file's (fresh, or said not to be), or the project-wide check of every root by its checker. */
import path from "node:path";
import type { Diagnostic } from "vscode-languageserver-protocol";
import { ToolError } from "../../errors.js";
import { confineExisting } from "../../files/paths.js";
import { plural } from "../../files/text.js";
import { shownPath } from "../../files/visible.js";
import type { ProcessTracker } from "../../proc/tracker.js";
import { capped, withCompleteness } from "../actions/completeness.js";
import { rootsOf } from "../catalog.js";
import type { DiagnosticRow, LspAnswer } from "../schema.js";
import { type LspBase, snippetReader } from "../target.js";
import {
  diagnosticRow,
  diagnosticsOf,
  type FileDiagnostics,
  groupedDiagnosticLines,
  sortDiagnostics,
} from "./diagnostics.js";
import { type CheckRun, hasChecker, runCheck } from "./project-check.js";

const MAX_DIAGNOSTICS = 50;

/** The file's server, and its fresh (or honestly not fresh) diagnostics. */
export async function diagnosticsAt(
  base: LspBase,
  confined: { real: string; rel: string },
  signal: AbortSignal,
  written = false,
) {
  const { client, languageId } = await base.supervisor.clientFor(confined.real, confined.rel);
  const found = await diagnosticsOf(
    client,
    confined.real,
    languageId,
    base.supervisor.timeouts.diagnosticsMs,
    signal,
    written,
  );
  return { client, found };
}

export async function fileDiagnostics(base: LspBase, file: string, signal: AbortSignal): Promise<LspAnswer> {
  const confined = await confineExisting(base.workdir, file, "file");
  const { client, found } = await diagnosticsAt(base, confined, signal);
  if (found.freshness === "fresh") base.journal.record(confined.real, found.items);
  const rows = sortDiagnostics(found.items).map((d) => diagnosticRow(confined.rel, d));
  const shown = rows.slice(0, MAX_DIAGNOSTICS);
  // The file was named by the call: each row by its line only.
  const grouped = groupedDiagnosticLines(
    sortDiagnostics(found.items).map((d) => ({ rel: "", d })),
    MAX_DIAGNOSTICS,
  );
  const lines = grouped.lines.map((line) => `  ${line}`);
  const more =
    rows.length > grouped.covered ? `\n  (showing ${grouped.covered} of ${rows.length} diagnostics)` : "";
  return withCompleteness(
    {
      text: `${freshnessHeader(found, client.spec.id)}: ${found.freshness !== "fresh" && found.items.length === 0 ? "none received in time" : countText(found.items)}${lines.length ? `\n${lines.join("\n")}${more}` : ""}`,
      structured: {
        action: "diagnostics",
        server: client.spec.id,
        freshness: found.freshness,
        diagnostics: shown,
        total: rows.length,
      },
    },
    [
      found.freshness !== "fresh" &&
        `the diagnostics are ${found.freshness} (${found.why ?? "not received in time"}), not a clean bill`,
      capped(grouped.covered, rows.length, "diagnostics"),
    ],
  );
}

/** The project-wide check: every root of every catalog server, its checker's findings; counts per file first. */
export async function projectDiagnostics(
  base: LspBase,
  processes: ProcessTracker,
  signal: AbortSignal,
  progress: (p: { progress: number; total?: number; message?: string }) => Promise<void>,
): Promise<LspAnswer> {
  const served = base.supervisor.specs.flatMap((spec) =>
    rootsOf(base.workdir, spec).map((root) => ({ spec, root })),
  );
  // A server of a format without projects (YAML, JSON, CSS, …) has no project-wide checker: its files are checked
  // one by one (`file`, or on write), and said so in one line rather than as a check that did not run.
  const perFileOnly = served.filter(({ spec }) => spec.rootMarkers.length === 0 && !hasChecker(spec));
  const jobs = served.filter((job) => !perFileOnly.includes(job));
  if (jobs.length === 0 && perFileOnly.length === 0)
    throw new ToolError(
      "No project root of any known language was found in the workdir, so there is nothing to check.",
    );
  const reader = snippetReader(base);
  const runs: CheckRun[] = [];
  let done = 0;
  for (const { spec, root } of jobs) {
    await progress({
      progress: done,
      total: jobs.length,
      message: `${spec.id} in ${shownPath(reader.rel(root) || ".")}`,
    });
    runs.push(
      await runCheck(
        spec,
        root,
        base.workdir,
        processes,
        signal,
        base.supervisor.home,
        base.supervisor.trusted,
      ),
    );
    done++;
  }
  const owned = ownedRows(runs);
  const notes = runs.map((run, i) => {
    const where = `${run.server} @ ${shownPath(reader.rel(run.root) || ".")}`;
    if (run.outcome !== "fresh") return `${where}: ${run.outcome}${run.note ? ` (${run.note})` : ""}`;
    return `${where}: ${relativeCommand(run.command, base.workdir)} → ${plural(owned[i]!.length, "finding")}`;
  });
  const rows = uniqueRows(owned.flat()).map((row) => ({ ...row, path: reader.rel(row.path) }));
  const order = (r: DiagnosticRow) => (r.severity === "error" ? 0 : r.severity === "warning" ? 1 : 2);
  rows.sort((a, b) => order(a) - order(b) || a.path.localeCompare(b.path) || a.line - b.line);
  const perFile = new Map<string, number>();
  for (const r of rows) perFile.set(r.path, (perFile.get(r.path) ?? 0) + 1);
  const counts = [...perFile].sort((a, b) => b[1] - a[1]).map(([f, n]) => `  ${f}: ${n}`);
  const shown = rows.slice(0, MAX_DIAGNOSTICS);
  const details = shown.map(
    (r) =>
      `  ${shownPath(r.path)}:${r.line} ${r.severity}: ${r.message.split("\n")[0]}${r.code ? ` [${r.code}]` : ""}`,
  );
  // The counts per file matter when not every finding is listed; otherwise each row names its file.
  const partial = rows.length > shown.length;
  const complete = notes.every((n) => n.includes("→"));
  const text = [
    `Project-wide check: ${plural(rows.length, "finding")} in ${plural(perFile.size, "file")}${complete ? "" : " (some checks did not run — see below; this is not a clean bill for them)"}.`,
    ...notes.map((n) => `  ${n}`),
    ...(perFileOnly.length
      ? [
          `Checked per file only (no project-wide checker; pass \`file\`, or they report on write): ${perFileOnly.map(({ spec }) => spec.id).join(", ")}.`,
        ]
      : []),
    ...(partial
      ? [
          "Per file:",
          ...counts,
          `Details (errors first; showing ${shown.length} of ${rows.length}):`,
          ...details,
        ]
      : details),
  ].join("\n");
  return withCompleteness(
    {
      text,
      structured: {
        action: "diagnostics",
        freshness: complete ? "fresh" : "stale",
        diagnostics: shown,
        total: rows.length,
      },
    },
    [!complete && "some checks did not run (named above)", capped(shown.length, rows.length, "findings")],
  );
}

function countText(items: Diagnostic[]): string {
  if (items.length === 0) return "no errors or warnings";
  const errors = items.filter((d) => (d.severity ?? 1) === 1).length;
  const warnings = items.filter((d) => d.severity === 2).length;
  const other = items.length - errors - warnings;
  return [
    errors && plural(errors, "error"),
    warnings && plural(warnings, "warning"),
    other && `${other} info`,
  ]
    .filter(Boolean)
    .join(", ");
}

function freshnessHeader(found: FileDiagnostics, server: string): string {
  if (found.freshness === "fresh") return `Diagnostics (${server}, fresh)`;
  return `Diagnostics (${server}, ${found.freshness.toUpperCase()}: ${found.why}; may be out of date — not a clean bill)`;
}

/**
 * Each run's findings in the files its root owns: a nested root of the same server (requests' docs/ beside its
 * pyproject.toml) is checked by its own run, and a checker that looks upward for its configuration (pyright) reports
 * the outer project's files again. A file stays with a run whose owner did not check (its findings are all there is).
 */
function ownedRows(runs: readonly CheckRun[]): DiagnosticRow[][] {
  return runs.map((run) => {
    const fresh = runs.filter((r) => r.server === run.server && r.outcome === "fresh").map((r) => r.root);
    return run.rows.filter((row) => {
      const owner = innermost(fresh, row.path);
      return owner === undefined || owner === run.root;
    });
  });
}

function innermost(roots: readonly string[], file: string): string | undefined {
  const holding = roots.filter((root) => file.startsWith(root.endsWith(path.sep) ? root : root + path.sep));
  return holding.sort((a, b) => b.length - a.length)[0];
}

/** Identical findings (two servers' checkers of one file, tsgo and typescript-language-server) listed once. */
function uniqueRows(rows: readonly DiagnosticRow[]): DiagnosticRow[] {
  const seen = new Set<string>();
  return rows.filter((r) => {
    const key = JSON.stringify([r.path, r.line, r.column, r.severity, r.code, r.message]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** A checker's command line with the workdir's paths relative: an answer never names the machine's folders. */
function relativeCommand(command: string, workdir: string): string {
  return command.replaceAll(`${workdir}/`, "").replaceAll(workdir, ".");
}
