import { notebookEditInput, notebookEditOutput } from "../notebooks/schema.js";
import { defineTool } from "../registry.js";

export const notebookEditTool = defineTool({
  name: "notebook_edit",
  effects: { files: "write", starts: "nothing", kills: false, network: false, idempotent: false },
  title: "Edit a Jupyter notebook's cells",
  tier: "write",
  needs: ["notebooks"],
  parallelSafe: false,
  lane: "files",
  writes: true,
  description: [
    "Change a Jupyter notebook's cells: insert a cell, replace a cell's source (or kind), delete or move a cell, by",
    "its number (from 1, as notebook lists them) or id. Only that cell's text changes in the file; its other cells,",
    "outputs and metadata keep their bytes. Call notebook first; a notebook changed on disk since is refused.",
  ].join(" "),
  input: notebookEditInput,
  output: notebookEditOutput,
  check: (args, ctx) => ctx.use("notebooks").checkEdit(args),
  describeCall: (args) =>
    `${args.action} ${args.index !== undefined ? `cell ${args.index}` : args.id !== undefined ? `cell ${args.id}` : "a cell"} in ${args.path}${args.to !== undefined ? ` (to ${args.to})` : ""}`,
  async run(args, ctx) {
    return ctx.use("notebooks").edit(args);
  },
});
