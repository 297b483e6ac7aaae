/** Argument shapes ast_grep and ast_edit share: where to look, and in which grammar. */
import { z } from "zod";
import { GRAMMARS } from "../../grammars/index.js";

export const scopeInput = {
  path: z.string().optional().describe("File or folder relative to the workdir. Default: the whole workdir."),
  language: z
    .string()
    .optional()
    .describe(
      `Grammar id (${GRAMMARS.map((g) => g.id).join(", ")}). Inferred from a file's extension; needed for a folder.`,
    ),
};
