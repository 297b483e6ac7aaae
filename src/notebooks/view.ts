/**
 * A notebook as the model reads it: each cell's place, kind, id, execution count, source (its first lines, or whole
 * when asked for) and a digest of its outputs. Read only: nothing of the notebook runs.
 */
import { plural, sizeText, splitLines } from "../files/text.js";
import { shownPath, visibleLine, visibleText, withoutTerminalEscapes } from "../files/visible.js";
import { type CellView, joined, type NotebookDocument, type NotebookOutput, sourceText } from "./document.js";
import type { CellSummary, NotebookView, OutputSummary } from "./schema.js";

/** Source lines of a cell in the overview. */
const OVERVIEW_LINES = 3;
/** Outputs shown per cell in the overview; the rest are counted. */
const OVERVIEW_OUTPUTS = 4;
/** A shown line is cut here. */
const LINE_CHARS = 200;
/** An output's text when a cell is shown whole. */
const OUTPUT_CHARS = 4000;
/** The answer's text stops growing here; the cells past it are named. */
export const VIEW_BUDGET = 60_000;

export function viewNotebook(
  doc: NotebookDocument,
  rel: string,
  picked: readonly CellView[],
  whole: boolean,
): {
  text: string;
  structured: NotebookView;
} {
  const counts = new Map<string, number>();
  for (const { cell } of doc.cells) counts.set(cell.cell_type, (counts.get(cell.cell_type) ?? 0) + 1);
  const kinds = [...counts].map(([kind, n]) => `${n} ${kind}`).join(", ");
  const named = doc.json.metadata?.kernelspec?.name;
  // What the file's metadata says is shown on one line, whatever it holds.
  const kernel = named !== undefined ? visibleLine(String(named)) : undefined;
  const lines = [
    `${shownPath(rel)}: ${visibleLine(doc.language)} notebook${kernel ? ` (kernel ${kernel})` : ""}, nbformat ${doc.json.nbformat}.${doc.json.nbformat_minor}, ${doc.cells.length} cell${doc.cells.length === 1 ? "" : "s"}${kinds ? ` (${kinds})` : ""}`,
  ];
  const summaries: CellSummary[] = [];
  let used = lines[0]?.length ?? 0;
  for (const view of picked) {
    const { text, summary } = describeCell(view, whole);
    if (used + text.length > VIEW_BUDGET && summaries.length > 0) break;
    lines.push(text);
    summaries.push(summary);
    used += text.length + 1;
  }
  const complete = summaries.length === picked.length;
  if (!complete) {
    const next = picked[summaries.length]?.index ?? 0;
    lines.push(
      `(showing ${summaries.length} of ${picked.length} cells: the answer's budget; call notebook with cells "${next}-" for the rest)`,
    );
  }
  return {
    text: lines.join("\n"),
    structured: {
      path: rel,
      language: doc.language,
      ...(kernel ? { kernel } : {}),
      nbformat: `${doc.json.nbformat}.${doc.json.nbformat_minor}`,
      digest: doc.digest,
      total_cells: doc.cells.length,
      cells: summaries,
      complete,
    },
  };
}

function describeCell(view: CellView, whole: boolean): { text: string; summary: CellSummary } {
  const { cell } = view;
  const source = sourceText(cell);
  const sourceLines = splitLines(source);
  const shown = whole ? sourceLines : sourceLines.slice(0, OVERVIEW_LINES);
  const count = cell.cell_type === "code" ? (cell.execution_count ?? null) : undefined;
  const head = [
    `[${view.index}] ${cell.cell_type}`,
    cell.id ? `id ${cell.id}` : "",
    count !== undefined ? (count === null ? "not run" : `In [${count}]`) : "",
  ].filter(Boolean);
  const out = [head.join("  ")];
  for (const line of shown) out.push(`  | ${clip(visibleText(line))}`);
  if (shown.length < sourceLines.length)
    out.push(`  | … ${plural(sourceLines.length - shown.length, "more line")}`);
  if (sourceLines.length === 0) out.push("  | (empty)");
  const outputs = cell.cell_type === "code" ? (cell.outputs ?? []) : [];
  const summaries = outputs.map((o) => summarize(o, whole));
  const listed = whole ? summaries : summaries.slice(0, OVERVIEW_OUTPUTS);
  for (const s of listed) out.push(...outputLines(s));
  if (listed.length < summaries.length) out.push(`  → … ${summaries.length - listed.length} more outputs`);
  return {
    text: out.join("\n"),
    summary: {
      index: view.index,
      ...(cell.id ? { id: cell.id } : {}),
      kind: cell.cell_type,
      source: shown.join("\n"),
      source_lines: sourceLines.length,
      ...(count !== undefined ? { execution_count: count } : {}),
      outputs: listed,
    },
  };
}

function outputLines(s: OutputSummary): string[] {
  const label =
    s.type === "stream"
      ? (s.name ?? "stream")
      : s.type === "error"
        ? "error"
        : `${s.type === "execute_result" ? "result" : "display"}${s.mimes?.length ? ` [${s.mimes.map(visibleLine).join(", ")}]` : ""}`;
  const [first = "", ...rest] = splitLines(s.text);
  return [`  → ${label}: ${first}`, ...rest.map((line) => `    ${line}`)];
}

/** What an output shows as text: its first line, or (whole) up to OUTPUT_CHARS of it. */
function summarize(output: NotebookOutput, whole: boolean): OutputSummary {
  const shorten = (text: string) => {
    const clean = visibleText(withoutTerminalEscapes(text)).replace(/\r\n?/g, "\n");
    if (!whole) {
      const lines = splitLines(clean);
      const more = lines.length > 1 ? ` (+${lines.length - 1} lines)` : "";
      return `${clip(lines[0] ?? "")}${more}`;
    }
    return clean.length > OUTPUT_CHARS
      ? `${clean.slice(0, OUTPUT_CHARS)}… (${clean.length.toLocaleString("en-US")} characters)`
      : clean.replace(/\n$/, "");
  };
  if (output.output_type === "stream")
    return {
      type: "stream",
      name: visibleLine(String(output.name ?? "stdout")),
      text: shorten(joined(output.text)),
    };
  if (output.output_type === "error")
    return {
      type: "error",
      text: whole
        ? shorten((output.traceback ?? []).join("\n") || `${output.ename}: ${output.evalue}`)
        : `${output.ename ?? ""}: ${clip(output.evalue ?? "")}`,
    };
  const data = output.data ?? {};
  const mimes = Object.keys(data);
  const plain = joined(data["text/plain"]);
  const binary = mimes.find((m) => m.startsWith("image/") && m !== "image/svg+xml");
  const text = plain
    ? shorten(plain)
    : binary
      ? `(${binary}, ${sizeText(Math.floor((joined(data[binary]).length * 3) / 4))})`
      : "(no text representation)";
  const type = output.output_type === "execute_result" ? "execute_result" : "display_data";
  return { type, mimes, text };
}

function clip(line: string): string {
  return line.length > LINE_CHARS
    ? `${line.slice(0, LINE_CHARS)}… (+${line.length - LINE_CHARS} characters)`
    : line;
}
