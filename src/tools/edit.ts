import { z } from "zod";
import { editOutput } from "../files/schema.js";
import { defineTool } from "../registry.js";

export const editTool = defineTool({
  name: "edit",
  effects: { files: "write", starts: "nothing", kills: false, network: false, idempotent: false },
  title: "Edit a file",
  tier: "write",
  needs: ["files"],
  parallelSafe: false,
  lane: "files",
  writes: true,
  description:
    "Replace an exact piece of text in a file. `old_string` must occur exactly once (quote enough surrounding " +
    "lines to make it unique), unless `replace_all` is true. Whitespace and indentation must match the file.",
  input: {
    path: z.string().describe("File path relative to the workdir."),
    old_string: z.string().describe("The exact text to replace, copied from the file."),
    new_string: z.string().describe("The text to put in its place."),
    replace_all: z.boolean().optional().describe("Replace every occurrence. Default false."),
  },
  output: editOutput,
  check: (args, ctx) => ctx.use("files").checkEdit(args),
  describeCall: (args) => `edit ${args.path}${args.replace_all ? " (every occurrence)" : ""}`,
  async run(args, ctx) {
    const { text, result, written } = await ctx.use("files").edit(args);
    return { text, structured: result, written };
  },
});
