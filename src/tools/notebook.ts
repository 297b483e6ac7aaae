import { notebookInput, notebookOutput } from "../notebooks/schema.js";
import { defineTool } from "../registry.js";

export const notebookTool = defineTool({
  name: "notebook",
  effects: { files: "read", starts: "nothing", kills: false, network: false, idempotent: true },
  title: "Read a Jupyter notebook",
  tier: "read",
  needs: ["notebooks"],
  parallelSafe: true,
  description: [
    "List a Jupyter notebook's (.ipynb) cells: each cell's number (from 1), kind, id, execution count, first lines",
    'and a digest of its outputs; `cells` ("3", "2-5", "4-", or an id) shows those cells whole. Nothing runs.',
    "Read a notebook with this before notebook_edit changes it.",
  ].join(" "),
  input: notebookInput,
  output: notebookOutput,
  async run(args, ctx) {
    return ctx.use("notebooks").read(args);
  },
});
