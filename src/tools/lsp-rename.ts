import { z } from "zod";
import { ToolError } from "../errors.js";
import { locator, renameOutput } from "../lsp/schema.js";
import { RequestTimeout } from "../lsp/server/request-errors.js";
import { defineTool } from "../registry.js";

export const lspRenameTool = defineTool({
  name: "lsp_rename",
  effects: { files: "write", starts: "helpers", kills: false, network: true, idempotent: false },
  title: "Rename a symbol everywhere, or move a file with its imports",
  tier: "write",
  needs: ["lsp"],
  parallelSafe: false,
  lane: "files",
  writes: true,
  description:
    "Rename a symbol everywhere the language server knows it (every file of the project), all or nothing: " +
    "`file`, `symbol` (its name as written) and `new_name`, with `line` (1-based; never a column) unless the name occurs once in the file's code. " +
    "Or move a file: `file` and `new_path`, with the edits its servers propose (imports updated), all or nothing. " +
    "New diagnostics in the touched files are reported after the change.",
  input: {
    file: z.string().describe("File relative to the workdir: where the symbol appears, or the file to move."),
    line: locator.line.optional(),
    symbol: locator.symbol.min(1).optional(),
    new_name: z.string().trim().min(1).optional().describe("The symbol's new name."),
    new_path: z
      .string()
      .trim()
      .min(1)
      .optional()
      .describe("Instead of symbol and new_name: where to move `file`, relative to the workdir."),
  },
  output: renameOutput,
  async check(args, ctx) {
    checkRenameArgs(args);
    await ctx.use("lsp").checkRename(args);
  },
  describeCall: (args) =>
    args.new_path !== undefined
      ? `move ${args.file} to ${args.new_path}, with the edits its language servers propose`
      : `rename \`${args.symbol}\` (${args.file}${args.line ? `:${args.line}` : ""}) to \`${args.new_name}\` across the project`,
  async run(args, ctx) {
    await ctx.use("lsp").settleTrust(args.file, ctx);
    try {
      if (args.new_path !== undefined)
        return await ctx.use("lsp").renameFile(args.file, args.new_path, ctx.signal);
      return await ctx.use("lsp").rename(args.file, args.line, args.symbol!, args.new_name!, ctx.signal);
    } catch (error) {
      if (error instanceof RequestTimeout)
        throw new ToolError(
          `${error.message}; nothing was changed (the request was cancelled on the server). Try again, or \`lsp reload\` with this file.`,
        );
      throw error;
    }
  },
});

/** Which arguments go together: a symbol's rename, or a file's move. */
function checkRenameArgs(args: {
  symbol?: string | undefined;
  new_name?: string | undefined;
  line?: number | undefined;
  new_path?: string | undefined;
}): void {
  if (args.new_path !== undefined) {
    const extra = (["symbol", "new_name", "line"] as const).filter((k) => args[k] !== undefined);
    if (extra.length)
      throw new ToolError(
        `\`new_path\` moves the file; ${extra.map((k) => `\`${k}\``).join(", ")} ${extra.length === 1 ? "is" : "are"} for renaming a symbol. Give one or the other.`,
      );
    return;
  }
  const missing = (["symbol", "new_name"] as const).filter((k) => args[k] === undefined);
  if (missing.length)
    throw new ToolError(
      `lsp_rename needs \`symbol\` and \`new_name\` (rename a symbol) or \`new_path\` (move the file); missing: ${missing.map((k) => `\`${k}\``).join(", ")}.`,
    );
}
