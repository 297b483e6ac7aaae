/** The zod shapes of the notebook tools' inputs and answers: the tools list them, the resource's types come from them. */
import { z } from "zod";

const path = z.string().describe("The .ipynb file, relative to the workdir.");
const cells = z
  .string()
  .describe(
    'Which cells: "3", "2-5", "4-" (from cell 4 to the end), "all", or a cell id. Cells are numbered from 1, as notebook lists them.',
  );

export const notebookInput = {
  path,
  cells: cells
    .optional()
    .describe(
      'Cells to show in full (source and outputs): "3", "2-5", "4-", or a cell id. Default: every cell, its first lines.',
    ),
};
export type NotebookArgs = z.infer<z.ZodObject<typeof notebookInput>>;

const outputSummary = z.object({
  type: z.enum(["stream", "execute_result", "display_data", "error"]),
  name: z.string().optional().describe("stdout or stderr, for a stream."),
  mimes: z.array(z.string()).optional().describe("The representations a result or display carries."),
  text: z.string().describe("What it shows as text (its first line in the overview)."),
});

const cellSummary = z.object({
  index: z.number().int().describe("1-based."),
  id: z.string().optional(),
  kind: z.enum(["code", "markdown", "raw"]),
  source: z.string().describe("The shown source: its first lines in the overview, whole when asked for."),
  source_lines: z.number().int(),
  execution_count: z.number().int().nullable().optional(),
  outputs: z.array(outputSummary),
});

export const notebookOutput = {
  path: z.string(),
  language: z.string(),
  kernel: z.string().optional().describe("The kernelspec's name in the notebook's metadata."),
  nbformat: z.string(),
  digest: z
    .string()
    .describe(
      "A fingerprint of the file as read: the notebook tools refuse to change a notebook that has changed since.",
    ),
  total_cells: z.number().int(),
  cells: z.array(cellSummary),
  complete: z.boolean().describe("false when not every asked-for cell is shown (the answer's budget)."),
};
export type NotebookView = z.infer<z.ZodObject<typeof notebookOutput>>;
export type CellSummary = z.infer<typeof cellSummary>;
export type OutputSummary = z.infer<typeof outputSummary>;

export const notebookEditInput = {
  path,
  action: z
    .enum(["insert", "replace", "delete", "move"])
    .describe("insert a new cell, replace a cell's source (or kind), delete a cell, or move it."),
  index: z
    .number()
    .int()
    .optional()
    .describe(
      "The cell, numbered from 1 as notebook lists them. For insert: the place the new cell takes (default: after the last).",
    ),
  id: z.string().optional().describe("The cell by its id, instead of index (not for insert)."),
  source: z.string().optional().describe("The cell's whole new source: for insert and replace."),
  kind: z
    .enum(["code", "markdown", "raw"])
    .optional()
    .describe("insert: the new cell's kind (default code). replace: change the cell's kind."),
  to: z.number().int().optional().describe("move: the place the cell takes, numbered from 1."),
};
export type NotebookEditArgs = z.infer<z.ZodObject<typeof notebookEditInput>>;

export const notebookEditOutput = {
  path: z.string(),
  action: z.enum(["insert", "replace", "delete", "move"]),
  index: z.number().int().describe("The cell's place after the change (for delete: the place it had)."),
  id: z.string().optional(),
  total_cells: z.number().int(),
  digest: z.string(),
};
export type NotebookEditResult = z.infer<z.ZodObject<typeof notebookEditOutput>>;

export const notebookRunInput = {
  path,
  cells: cells
    .optional()
    .describe('Which cells to run: "all" (the default), "3", "2-5", "4-" (from 4 to the end), or a cell id.'),
  reset: z.boolean().optional().describe("Start a fresh kernel first, as Restart & Run does."),
  continue_on_error: z
    .boolean()
    .optional()
    .describe(
      "Run the cells after one that fails. Default false: the run stops at the first error, as Jupyter's does.",
    ),
};
export type NotebookRunArgs = z.infer<z.ZodObject<typeof notebookRunInput>>;

export const notebookRunOutput = {
  path: z.string(),
  language: z.string(),
  cells: z.array(
    z.object({
      index: z.number().int(),
      id: z.string().optional(),
      status: z.enum(["ok", "error", "interrupted", "died", "not run"]),
      execution_count: z.number().int().nullable(),
      output: z.string().describe("What the cell printed and showed, as eval answers it (bounded)."),
      error: z.object({ name: z.string(), value: z.string() }).optional(),
    }),
  ),
  stored: z.boolean().describe("Whether the outputs were written into the notebook."),
  not_stored_because: z.string().optional(),
  digest: z.string().describe("The file's fingerprint after the run."),
};
export type NotebookRunResult = z.infer<z.ZodObject<typeof notebookRunOutput>>;
