import { z } from "zod";
import { locator, renameOutput } from "../lsp/schema.js";
import { defineTool } from "../registry.js";

export const lspRenameTool = defineTool({
  name: "lsp_rename",
  title: "Rename a symbol everywhere",
  tier: "write",
  needs: ["lsp"],
  parallelSafe: false,
  lane: "files",
  writes: true,
  description:
    "Rename a symbol everywhere the language server knows it (every file of the project), all or nothing. " +
    "Address it by `line` (1-based) and `symbol` (its name as written on that line), never a column. " +
    "New diagnostics in the touched files are reported after the rename.",
  input: {
    file: z.string().describe("File relative to the workdir where the symbol appears."),
    line: locator.line,
    symbol: locator.symbol.min(1),
    new_name: z.string().trim().min(1).describe("The new name."),
  },
  output: renameOutput,
  describeCall: (args) =>
    `rename \`${args.symbol}\` (${args.file}:${args.line}) to \`${args.new_name}\` across the project`,
  async run(args, ctx) {
    await ctx.use("lsp").settleTrust(args.file, ctx);
    return ctx.use("lsp").rename(args.file, args.line, args.symbol, args.new_name, ctx.signal);
  },
});
