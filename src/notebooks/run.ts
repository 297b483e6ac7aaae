/**
 * notebook_run: a notebook's cells run in the run's kernel for its language, in the notebook's folder (as Jupyter
 * runs them), one after another; their outputs and execution counts are stored back into the file the way Jupyter
 * stores them, unless the file changed on disk meanwhile.
 */
import path from "node:path";
import { ToolError } from "../errors.js";
import { visibleLine } from "../files/visible.js";
import { evalAnswer } from "../kernels/answers.js";
import type { CellOutcome } from "../kernels/cell.js";
import type { Bridge, KernelPool } from "../kernels/pool.js";
import type { KernelLanguage } from "../kernels/schema.js";
import type { ContentBlock } from "../tool-result.js";
import type { NotebookBook, OpenNotebook } from "./book.js";
import { type CellView, NotebookDocument, sourceText } from "./document.js";
import { DisplayIds, OutputRecorder } from "./outputs.js";
import type { NotebookRunArgs, NotebookRunResult } from "./schema.js";
import { selectCells } from "./select.js";
import { outputForFile } from "./serialize.js";
import { applyEdits, setCellField } from "./splice.js";

/** The answer's text past which a cell's output is named, not shown. */
const RUN_TEXT_BUDGET = 100_000;
/** Images an answer carries, over all its cells. */
const RUN_IMAGES = 8;
/** A cell's output in structuredContent. */
const STRUCTURED_OUTPUT_CHARS = 16_000;

/** The kernel language a notebook's language runs in. */
export function kernelLanguageOf(open: OpenNotebook): KernelLanguage {
  const language = open.doc.language;
  if (language === "python" || language.startsWith("python")) return "python";
  if (language === "javascript" || language === "typescript") return "javascript";
  const spec = open.doc.json.metadata?.kernelspec;
  const named = visibleLine(
    String(spec?.language ?? open.doc.json.metadata?.language_info?.name ?? language),
  );
  const kernel = spec?.name !== undefined ? ` (kernel ${visibleLine(String(spec.name))})` : "";
  throw new ToolError(
    `${open.target.shown} is a notebook in ${named}${kernel}; notebook_run runs Python, JavaScript and TypeScript notebooks in the run's kernels. Read and edit it with notebook and notebook_edit.`,
  );
}

/** What notebook_run will run, checked without running: the file, its language, the cells. */
export async function planRun(
  book: NotebookBook,
  args: NotebookRunArgs,
): Promise<{ open: OpenNotebook; language: KernelLanguage; cells: CellView[] }> {
  const open = await book.open(args.path, "notebook_run");
  book.checkUnchanged(open, "notebook_run", false);
  const language = kernelLanguageOf(open);
  const cells = selectCells(open.doc, args.cells).filter(runnable);
  if (cells.length === 0)
    throw new ToolError(
      `${args.cells ? `\`cells\` ${JSON.stringify(args.cells)} names` : `${open.target.shown} has`} no code cell with code in it; nothing to run.`,
    );
  return { open, language, cells };
}

/** A cell Jupyter runs: code, not blank (nbclient skips blank ones and keeps their outputs). */
function runnable(view: CellView): boolean {
  return view.cell.cell_type === "code" && sourceText(view.cell).trim() !== "";
}

interface Ran {
  readonly view: CellView;
  readonly outcome?: CellOutcome;
  readonly recorder?: OutputRecorder;
}

export async function runNotebook(
  book: NotebookBook,
  args: NotebookRunArgs,
  kernels: KernelPool,
  bridge: Bridge,
  signal: AbortSignal,
): Promise<{ text: string; structured: NotebookRunResult; content: ContentBlock[]; written: string[] }> {
  const { open, language, cells } = await planRun(book, args);
  if (args.reset) await kernels.discard(language);
  await kernels.chdir(language, path.dirname(open.target.real));
  const displays = new DisplayIds();
  const ran: Ran[] = [];
  let stop: string | undefined;
  try {
    for (const view of cells) {
      if (stop) {
        ran.push({ view });
        continue;
      }
      const recorder = new OutputRecorder(displays);
      const outcome = await kernels.run(sourceText(view.cell), language, false, bridge, signal, (m) =>
        recorder.take(m),
      );
      ran.push({ view, outcome, recorder });
      if (signal.aborted) stop = "the call was cancelled";
      else if (outcome.status === "error" && !args.continue_on_error) stop = `cell ${view.index} failed`;
      else if (outcome.status === "interrupted" || outcome.status === "died")
        stop = `cell ${view.index} was ${outcome.status === "died" ? "lost with its kernel" : "interrupted"}`;
    }
  } finally {
    // The kernel is eval's too: it goes back to the workdir, where eval's cells run.
    await kernels.chdir(language, book.workdir).catch(() => undefined);
  }
  const stored = await store(book, open, ran);
  return answer(open, language, ran, stop, stored, kernels.maxCellSeconds);
}

/** Writes the outputs of the cells that ran, unless the file changed since it was read (then says so). */
async function store(
  book: NotebookBook,
  open: OpenNotebook,
  ran: readonly Ran[],
): Promise<{ digest: string; why?: string }> {
  const edits = ran.flatMap(({ view, recorder }) =>
    recorder
      ? [
          setCellField(open.doc, view, "outputs", recorder.outputs.map(outputForFile)),
          setCellField(open.doc, view, "execution_count", recorder.executionCount),
        ]
      : [],
  );
  if (edits.length === 0) return { digest: open.doc.digest };
  const text = applyEdits(open.doc.text, edits);
  try {
    await book.writeIfUnchanged(open, text, "notebook_run");
  } catch (error) {
    if (!(error instanceof ToolError)) throw error;
    return {
      digest: open.doc.digest,
      why: `${open.target.shown} changed on disk while its cells ran, so their outputs were not stored (shown here only); call notebook to read it again`,
    };
  }
  const digest = new NotebookDocument(text, open.target.shown).digest;
  book.remember(open.target.rel, digest);
  return { digest };
}

function answer(
  open: OpenNotebook,
  language: KernelLanguage,
  ran: readonly Ran[],
  stop: string | undefined,
  stored: { digest: string; why?: string },
  maxCellSeconds: number,
): { text: string; structured: NotebookRunResult; content: ContentBlock[]; written: string[] } {
  const lines: string[] = [];
  const content: ContentBlock[] = [];
  const cells: NotebookRunResult["cells"] = [];
  let used = 0;
  for (const { view, outcome, recorder } of ran) {
    const label = `── cell ${view.index}${view.cell.id ? ` (id ${view.cell.id})` : ""}`;
    if (!outcome) {
      lines.push(`${label}: not run (${stop})`);
      cells.push({
        index: view.index,
        ...(view.cell.id ? { id: view.cell.id } : {}),
        status: "not run",
        execution_count: view.cell.execution_count ?? null,
        output: "",
      });
      continue;
    }
    const eval_ = evalAnswer(outcome, language, maxCellSeconds);
    const count = recorder?.executionCount ?? null;
    const head = `${label}${count !== null ? ` In [${count}]` : ""}: ${outcome.status}`;
    if (used + eval_.text.length > RUN_TEXT_BUDGET)
      lines.push(
        `${head}\n(output not shown: the answer's budget; read it with notebook cells "${view.index}")`,
      );
    else lines.push(`${head}\n${eval_.text}`);
    used += eval_.text.length;
    for (const image of eval_.content) if (content.length < RUN_IMAGES) content.push(image);
    cells.push({
      index: view.index,
      ...(view.cell.id ? { id: view.cell.id } : {}),
      status: outcome.status,
      execution_count: count,
      output: eval_.structured.output.slice(0, STRUCTURED_OUTPUT_CHARS),
      ...(eval_.structured.error ? { error: eval_.structured.error } : {}),
    });
  }
  const ranCount = ran.filter((r) => r.outcome).length;
  if (stop && ran.some((r) => !r.outcome)) lines.push(`Stopped: ${stop}; the cells after it did not run.`);
  lines.push(
    stored.why
      ? `Not stored: ${stored.why}.`
      : `Stored the outputs of ${ranCount} cell${ranCount === 1 ? "" : "s"} in ${open.target.shown}.`,
  );
  return {
    text: lines.join("\n"),
    content,
    written: stored.why ? [] : [open.target.rel],
    structured: {
      path: open.target.rel,
      language,
      cells,
      stored: !stored.why,
      ...(stored.why ? { not_stored_because: stored.why } : {}),
      digest: stored.digest,
    },
  };
}
