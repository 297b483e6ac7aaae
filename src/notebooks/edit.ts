/** notebook_edit's change, planned on a notebook's text without writing: the new text and what to say of it. */
import { randomBytes } from "node:crypto";
import { ToolError } from "../errors.js";
import { oneLine, plural, splitLines } from "../files/text.js";
import { type CellKind, type CellView, type NotebookCell, NotebookDocument, sourceText } from "./document.js";
import type { NotebookEditArgs } from "./schema.js";
import { keepsSourceAsList, sourceInForm } from "./serialize.js";
import {
  applyEdits,
  cellText,
  deleteCell,
  insertCellText,
  replaceCell,
  setCellField,
  textOfCell,
} from "./splice.js";

export interface EditPlan {
  readonly text: string;
  readonly summary: string;
  /** The cell's place after the change (delete: the place it had). */
  readonly index: number;
  readonly id?: string;
}

/** Arguments each action takes; any other given is refused, so a model's misunderstanding is said, not ignored. */
const TAKES: Record<NotebookEditArgs["action"], readonly (keyof NotebookEditArgs)[]> = {
  insert: ["index", "source", "kind"],
  replace: ["index", "id", "source", "kind"],
  delete: ["index", "id"],
  move: ["index", "id", "to"],
};

export function planEdit(doc: NotebookDocument, args: NotebookEditArgs): EditPlan {
  const extra = (Object.keys(args) as (keyof NotebookEditArgs)[]).filter(
    (k) => k !== "path" && k !== "action" && args[k] !== undefined && !TAKES[args.action].includes(k),
  );
  if (extra.length)
    throw new ToolError(
      `${extra.map((k) => `\`${k}\``).join(" and ")} ${extra.length > 1 ? "are" : "is"} not used by ${args.action}; ${args.action} takes ${TAKES[args.action].map((k) => `\`${k}\``).join(", ")}.`,
    );
  if (args.action !== "insert" && args.index !== undefined && args.id !== undefined)
    throw new ToolError("Give the cell by `index` or by `id`, not both.");
  if (args.action !== "insert" && args.index === undefined && args.id === undefined)
    throw new ToolError(
      `${args.action} needs the cell: give \`index\` (from 1, as notebook lists them) or \`id\`.`,
    );
  switch (args.action) {
    case "insert":
      return insert(doc, args);
    case "replace":
      return replace(doc, args, doc.cell(args));
    case "delete":
      return remove(doc, doc.cell(args));
    case "move":
      return move(doc, args, doc.cell(args));
  }
}

function insert(doc: NotebookDocument, args: NotebookEditArgs): EditPlan {
  if (args.source === undefined) throw new ToolError("insert needs `source`: the new cell's whole source.");
  const count = doc.cells.length;
  const index = args.index ?? count + 1;
  if (index < 1 || index > count + 1)
    throw new ToolError(
      `\`index\` ${index} is not a place for a new cell in ${doc.shown}, which has ${plural(count, "cell")}: give 1 to ${count + 1} (${count + 1} appends).`,
    );
  const kind = args.kind ?? "code";
  const id = doc.hasIds ? newId(doc) : undefined;
  const cell = newCell(kind, sourceInForm(args.source, keepsSourceAsList(doc.json.cells)), id, {});
  const text = applyEdits(doc.text, [insertCellText(doc, index - 1, cellText(doc, cell))]);
  const ran = kind === "code" ? ` It has not run; run it with notebook_run cells "${index}".` : "";
  return {
    text,
    index,
    ...(id ? { id } : {}),
    summary: `Inserted ${kind} cell ${index}${id ? ` (id ${id})` : ""} into ${doc.shown}: ${plural(splitLines(args.source).length, "line")}; it now has ${plural(count + 1, "cell")}.${ran}`,
  };
}

function replace(doc: NotebookDocument, args: NotebookEditArgs, view: CellView): EditPlan {
  const { cell } = view;
  if (args.source === undefined && args.kind === undefined)
    throw new ToolError("replace needs `source` (the cell's whole new source), `kind`, or both.");
  const kind = args.kind ?? cell.cell_type;
  const source = args.source ?? sourceText(cell);
  if (kind === cell.cell_type && source === sourceText(cell))
    throw new ToolError(
      `Cell ${view.index} already has this source${args.kind ? " and kind" : ""}; nothing to change.`,
    );
  const asList = Array.isArray(cell.source) || (cell.source === "" && keepsSourceAsList(doc.json.cells));
  const inForm = sourceInForm(source, asList);
  const edit =
    kind === cell.cell_type
      ? setCellField(doc, view, "source", inForm)
      : replaceCell(doc, view, newCell(kind, inForm, cell.id, cell.metadata ?? {}, cell.attachments));
  const before = splitLines(sourceText(cell)).length;
  const after = splitLines(source).length;
  const stale =
    kind === "code" && cell.cell_type === "code" && (cell.outputs?.length ?? 0) > 0
      ? ` Its stored outputs are the old source's until notebook_run runs it (cells "${view.index}").`
      : "";
  const what =
    kind === cell.cell_type ? "the source of" : `the kind (${cell.cell_type} → ${kind}) and source of`;
  return {
    text: applyEdits(doc.text, [edit]),
    index: view.index,
    ...(cell.id ? { id: cell.id } : {}),
    summary: `Replaced ${what} cell ${view.index}${cell.id ? ` (id ${cell.id})` : ""} in ${doc.shown}: ${before} → ${plural(after, "line")}.${stale}`,
  };
}

function remove(doc: NotebookDocument, view: CellView): EditPlan {
  const text = applyEdits(doc.text, [deleteCell(doc, view.index - 1)]);
  const first = oneLine(splitLines(sourceText(view.cell))[0] ?? "", 80);
  const left = doc.cells.length - 1;
  return {
    text,
    index: view.index,
    ...(view.cell.id ? { id: view.cell.id } : {}),
    summary: `Deleted ${view.cell.cell_type} cell ${view.index}${view.cell.id ? ` (id ${view.cell.id})` : ""}${first ? ` ("${first}")` : ""} from ${doc.shown}; ${plural(left, "cell")} left${view.index <= left ? `, the ones after it moved up by one` : ""}.`,
  };
}

function move(doc: NotebookDocument, args: NotebookEditArgs, view: CellView): EditPlan {
  const count = doc.cells.length;
  if (args.to === undefined) throw new ToolError("move needs `to`: the place the cell takes, from 1.");
  if (args.to < 1 || args.to > count)
    throw new ToolError(
      `\`to\` ${args.to} is not a place in ${doc.shown}, which has ${plural(count, "cell")}: give 1 to ${count}.`,
    );
  if (args.to === view.index)
    throw new ToolError(`Cell ${view.index} is already at ${args.to}; nothing to change.`);
  const own = textOfCell(doc, view);
  const without = new NotebookDocument(applyEdits(doc.text, [deleteCell(doc, view.index - 1)]), doc.shown);
  const text = applyEdits(without.text, [insertCellText(without, args.to - 1, own)]);
  return {
    text,
    index: args.to,
    ...(view.cell.id ? { id: view.cell.id } : {}),
    summary: `Moved ${view.cell.cell_type} cell ${view.index}${view.cell.id ? ` (id ${view.cell.id})` : ""} to ${args.to} in ${doc.shown}.`,
  };
}

/** A new cell as nbformat makes one: code cells with no outputs and no execution count. */
function newCell(
  kind: CellKind,
  source: string | string[],
  id: string | undefined,
  metadata: Record<string, unknown>,
  attachments?: Record<string, unknown>,
): NotebookCell {
  const base = { cell_type: kind, ...(id ? { id } : {}), metadata, source };
  if (kind === "code") return { ...base, execution_count: null, outputs: [] };
  return attachments && kind === "markdown" ? { ...base, attachments } : base;
}

/** A cell id as nbformat makes them (8 hex digits), unique in the notebook. */
function newId(doc: NotebookDocument): string {
  const taken = new Set(doc.cells.map((c) => c.cell.id));
  for (;;) {
    const id = randomBytes(4).toString("hex");
    if (!taken.has(id)) return id;
  }
}
