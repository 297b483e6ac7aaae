/**
 * A notebook as its file holds it: the text, the parsed JSON, and where each cell and each of a cell's fields sit in
 * the text, so a change rewrites only what it changes (the rest of the file stays byte-identical).
 */
import { createHash } from "node:crypto";
import { type Node, type ParseError, parseTree, printParseErrorCode } from "jsonc-parser";
import { ToolError } from "../errors.js";
import { lineOfOffset } from "../files/text.js";

export type CellKind = "code" | "markdown" | "raw";

export interface NotebookOutput {
  output_type: string;
  name?: string;
  text?: string | string[];
  data?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
  execution_count?: number | null;
  ename?: string;
  evalue?: string;
  traceback?: string[];
}

export interface NotebookCell {
  cell_type: CellKind;
  id?: string;
  source: string | string[];
  metadata?: Record<string, unknown>;
  outputs?: NotebookOutput[];
  execution_count?: number | null;
  attachments?: Record<string, unknown>;
}

export interface NotebookJson {
  nbformat: number;
  nbformat_minor: number;
  metadata: {
    kernelspec?: { name?: string; language?: string; display_name?: string };
    language_info?: { name?: string };
  } & Record<string, unknown>;
  cells: NotebookCell[];
}

/** One cell as a view: its place (1-based), its JSON, and its node in the file's text. */
export interface CellView {
  readonly index: number;
  readonly cell: NotebookCell;
  readonly node: Node;
}

export class NotebookDocument {
  readonly json: NotebookJson;
  readonly cells: readonly CellView[];
  /** The `cells` array's node. */
  readonly cellsNode: Node;
  /** A short fingerprint of the bytes: what "changed on disk since it was read" compares. */
  readonly digest: string;

  /** `shown`: the path as answers name it. Throws a ToolError naming what is wrong with the file. */
  constructor(
    readonly text: string,
    readonly shown: string,
  ) {
    this.digest = digestOf(text);
    const errors: ParseError[] = [];
    const root = parseTree(text, errors, { disallowComments: true, allowTrailingComma: false });
    const first = errors[0];
    if (first || !root) {
      const at = first
        ? ` at line ${lineOfOffset(text, first.offset)} (${printParseErrorCode(first.error)})`
        : "";
      throw new ToolError(
        `${shown} is not valid JSON${at}, so it is not a notebook the tools can read or change.`,
      );
    }
    const json = JSON.parse(text.replace(/^\uFEFF/, "")) as NotebookJson;
    if (typeof json !== "object" || json === null || Array.isArray(json))
      throw new ToolError(`${shown} is not a notebook: its JSON is not an object.`);
    if (json.nbformat !== 4)
      throw new ToolError(
        `${shown} is nbformat ${String(json.nbformat)}; the notebook tools read and write nbformat 4. Convert it first: jupyter nbconvert --to notebook --nbformat 4 ${shown}`,
      );
    const cellsNode = root.children?.find((p) => p.children?.[0]?.value === "cells")?.children?.[1];
    if (!cellsNode || cellsNode.type !== "array" || !Array.isArray(json.cells))
      throw new ToolError(`${shown} has no \`cells\` array, so it is not a notebook.`);
    json.cells.forEach((cell, i) => {
      const kind = (cell as { cell_type?: unknown })?.cell_type;
      if (kind !== "code" && kind !== "markdown" && kind !== "raw")
        throw new ToolError(
          `${shown}: cell ${i + 1} has cell_type ${JSON.stringify(kind)?.slice(0, 80)}; nbformat 4 has code, markdown and raw.`,
        );
      // Ids are printed in every answer: one that is not nbformat's (a newline in it could pass for another cell's
      // row) is refused, as Jupyter's own validator refuses it.
      const id = (cell as { id?: unknown }).id;
      if (id !== undefined && (typeof id !== "string" || !/^[a-zA-Z0-9_-]{1,64}$/.test(id)))
        throw new ToolError(
          `${shown}: cell ${i + 1} has the id ${JSON.stringify(id)?.slice(0, 80)}, which nbformat does not allow (1-64 letters, digits, - and _); Jupyter refuses the file too. Fix the id in the file (write or edit), then call again.`,
        );
    });
    this.json = json;
    this.cellsNode = cellsNode;
    const nodes = cellsNode.children ?? [];
    this.cells = json.cells.map((cell, i) => ({ index: i + 1, cell, node: nodes[i] as Node }));
  }

  /** The kernel language the notebook is for: its kernelspec's, else its language_info's; Python when neither. */
  get language(): string {
    const meta = this.json.metadata ?? {};
    return String(meta.kernelspec?.language ?? meta.language_info?.name ?? "python").toLowerCase();
  }

  /** Whether its cells carry ids (nbformat 4.5 and later require them). */
  get hasIds(): boolean {
    return this.json.nbformat_minor >= 5;
  }

  /** The cell by 1-based index or by id; a ToolError that lists what there is when it is not there. */
  cell(by: { index?: number | undefined; id?: string | undefined }, argument = "index"): CellView {
    if (by.id !== undefined) {
      const found = this.cells.find((c) => c.cell.id === by.id);
      if (found) return found;
      const ids = this.cells.flatMap((c) => (c.cell.id ? [c.cell.id] : [])).slice(0, 8);
      throw new ToolError(
        `\`id\` ${JSON.stringify(by.id)} is not a cell of ${this.shown}${ids.length ? ` (its ids include ${ids.join(", ")})` : " (its cells have no ids: give `index`)"}. Call notebook to list the cells.`,
      );
    }
    const index = by.index ?? 0;
    const found = this.cells[index - 1];
    if (found && index >= 1) return found;
    throw new ToolError(
      `\`${argument}\` ${index} is not a cell of ${this.shown}, which has ${this.cells.length} cell${this.cells.length === 1 ? "" : "s"}${this.cells.length ? ` (1 to ${this.cells.length})` : ""}. Cells are numbered from 1, as notebook lists them.`,
    );
  }
}

export function digestOf(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 16);
}

/** A cell's source as one string, whichever form the file keeps it in. */
export function sourceText(cell: Pick<NotebookCell, "source">): string {
  return Array.isArray(cell.source) ? cell.source.join("") : (cell.source ?? "");
}

/** A stream's or a bundle's text, whichever form the file keeps it in. */
export function joined(value: unknown): string {
  if (Array.isArray(value)) return value.filter((v) => typeof v === "string").join("");
  return typeof value === "string" ? value : "";
}
