/**
 * The `notebooks` resource of a run: Jupyter notebooks in the workdir, read, edited and run in place. It keeps what
 * each notebook looked like when the run last read or wrote it, so a notebook changed on disk since (by a person in
 * Jupyter, by another tool) is refused rather than overwritten.
 */
import { stat } from "node:fs/promises";
import { ToolError } from "../errors.js";
import { writeAtomic } from "../files/atomic.js";
import { type ConfinedPath, confine } from "../files/paths.js";
import { MAX_TEXT_BYTES, tooLargeToChange } from "../files/text.js";
import { readUtf8 } from "../files/utf8.js";
import { NotebookDocument } from "./document.js";
import { planEdit } from "./edit.js";
import type { NotebookArgs, NotebookEditArgs, NotebookEditResult, NotebookView } from "./schema.js";
import { selectCells } from "./select.js";
import { viewNotebook } from "./view.js";

export interface OpenNotebook {
  readonly target: ConfinedPath;
  readonly doc: NotebookDocument;
}

export class NotebookBook {
  /** Workdir-relative path → the digest of the notebook as this run last read or wrote it. */
  readonly #seen = new Map<string, string>();

  constructor(readonly workdir: string) {}

  async open(file: string, tool: string): Promise<OpenNotebook> {
    const target = await confine(this.workdir, file);
    if (!target.rel.toLowerCase().endsWith(".ipynb"))
      throw new ToolError(
        `\`path\` ${target.shown} is not a notebook (.ipynb); use read, edit and write for other files.`,
      );
    let size: number;
    try {
      const info = await stat(target.real);
      if (info.isDirectory())
        throw new ToolError(`\`path\` ${target.shown} is a directory; give a notebook's path.`);
      size = info.size;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT")
        throw new ToolError(`${target.shown} does not exist. Check the path (read a directory to list it).`);
      throw error;
    }
    if (size > MAX_TEXT_BYTES) throw new ToolError(tooLargeToChange(target.shown, size, tool));
    const text = await readUtf8(target.real, target.shown, tool);
    return { target, doc: new NotebookDocument(text, target.shown) };
  }

  async read(args: NotebookArgs): Promise<{ text: string; structured: NotebookView }> {
    const { target, doc } = await this.open(args.path, "notebook");
    const picked = selectCells(doc, args.cells);
    this.#seen.set(target.rel, doc.digest);
    return viewNotebook(doc, target.rel, picked, args.cells !== undefined);
  }

  /**
   * Refuses a notebook that changed since this run last read or wrote it. `mustHaveRead`: a change by index or id
   * means nothing to a model that has not seen the cells, so edit asks for a read first.
   */
  checkUnchanged(open: OpenNotebook, tool: string, mustHaveRead: boolean): void {
    const seen = this.#seen.get(open.target.rel);
    if (seen === undefined) {
      if (!mustHaveRead) return;
      throw new ToolError(
        `${open.target.shown} has not been read in this run; call notebook on it first (cells are named by the places and ids it lists), then ${tool}.`,
      );
    }
    if (seen !== open.doc.digest)
      throw new ToolError(
        `${open.target.shown} changed on disk since this run last read it (someone or something else wrote it); nothing was changed. Call notebook to read it again, then ${tool}.`,
      );
  }

  /** Records a notebook as this run now knows it (after a write of its own). */
  remember(rel: string, digest: string): void {
    this.#seen.set(rel, digest);
  }

  async checkEdit(args: NotebookEditArgs): Promise<void> {
    const open = await this.open(args.path, "notebook_edit");
    this.checkUnchanged(open, "notebook_edit", true);
    planEdit(open.doc, args);
  }

  async edit(
    args: NotebookEditArgs,
  ): Promise<{ text: string; structured: NotebookEditResult; written: string[] }> {
    const open = await this.open(args.path, "notebook_edit");
    this.checkUnchanged(open, "notebook_edit", true);
    const plan = planEdit(open.doc, args);
    await this.writeIfUnchanged(open, plan.text, "notebook_edit");
    const after = new NotebookDocument(plan.text, open.target.shown);
    this.#seen.set(open.target.rel, after.digest);
    return {
      text: plan.summary,
      structured: {
        path: open.target.rel,
        action: args.action,
        index: plan.index,
        ...(plan.id ? { id: plan.id } : {}),
        total_cells: after.cells.length,
        digest: after.digest,
      },
      written: [open.target.rel],
    };
  }

  /** Writes `text` over the notebook unless its bytes changed since `open` read them (then a ToolError). */
  async writeIfUnchanged(open: OpenNotebook, text: string, tool: string): Promise<void> {
    const now = await readUtf8(open.target.real, open.target.shown, tool).catch(() => undefined);
    if (now !== open.doc.text)
      throw new ToolError(
        `${open.target.shown} changed on disk while ${tool} worked on it; nothing was written. Call notebook to read it again.`,
      );
    await writeAtomic(open.target.real, text);
  }
}
