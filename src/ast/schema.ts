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

/** `pattern` or `rule` (ast-grep's rule object), with `constraints` and `utils`: what ast_grep and ast_edit look for. */
export const queryInput = {
  pattern: z
    .string()
    .optional()
    .describe(
      "A code fragment with metavariables, e.g. `dispose($X)` or `def $F($$$P): $$$B`. Or give `rule`.",
    ),
  rule: z
    .record(z.string(), z.unknown())
    .optional()
    .describe(
      'Instead of pattern: an ast-grep rule object, as in its YAML rules. Atomic: pattern, kind, regex, nthChild, range; relational: inside, has, precedes, follows (each a rule, with stopBy: "neighbor" | "end" | rule, and field); composite: all, any, not, matches. E.g. {"pattern":"await $X","inside":{"kind":"for_statement","stopBy":"end"}}.',
    ),
  constraints: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('Rules a metavariable\'s match must satisfy, by name without $: {"A":{"regex":"^log"}}.'),
  utils: z
    .record(z.string(), z.unknown())
    .optional()
    .describe("Named rules that `rule` refers to with `matches`."),
};
