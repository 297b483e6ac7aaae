/** Which cells a `cells` argument names: "all", "3", "2-5", "4-" (to the end), or a cell's id. */
import { ToolError } from "../errors.js";
import type { CellView, NotebookDocument } from "./document.js";

export function selectCells(doc: NotebookDocument, spec: string | undefined, argument = "cells"): CellView[] {
  const wanted = (spec ?? "all").trim();
  const count = doc.cells.length;
  if (wanted === "all") return [...doc.cells];
  const range = /^(\d+)\s*(?:(-)\s*(\d+)?)?$/.exec(wanted);
  if (!range) {
    if (/^[A-Za-z0-9_-]{1,64}$/.test(wanted) && !/^\d/.test(wanted)) return [doc.cell({ id: wanted })];
    throw new ToolError(
      `\`${argument}\` ${JSON.stringify(spec)} is not a selection of cells; give "all", one cell ("3"), a range ("2-5"), from a cell to the end ("4-"), or a cell id.`,
    );
  }
  const from = Number(range[1]);
  const to = range[2] ? (range[3] ? Number(range[3]) : count) : from;
  const outside = [from, to].find((n) => n < 1 || n > count);
  if (outside !== undefined)
    throw new ToolError(
      `\`${argument}\` ${JSON.stringify(spec)}: cell ${outside} is not a cell of ${doc.shown}, which has ${count} cell${count === 1 ? "" : "s"}${count ? ` (1 to ${count})` : ""}.`,
    );
  if (to < from)
    throw new ToolError(
      `\`${argument}\` ${JSON.stringify(spec)} ends before it starts; write the lower number first.`,
    );
  return doc.cells.slice(from - 1, to);
}
