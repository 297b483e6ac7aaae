import { z } from "zod";
import { checkQueryArgs } from "../ast/query/query.js";
import { queryInput, scopeInput } from "../ast/schema.js";
import { defineTool } from "../registry.js";

export const astGrepTool = defineTool({
  name: "ast_grep",
  // Its search process is runbound's own (searcher.ts): it runs no code of the repository.
  effects: { files: "read", starts: "helpers", kills: false, network: false, idempotent: true },
  title: "Search code by its shape",
  tier: "read",
  needs: ["ast"],
  parallelSafe: true,
  description: [
    "Find code by syntax, not text: the pattern is parsed by the file's own grammar, so it matches however the code",
    "is spaced, wrapped or commented, and never inside strings or comments. $NAME matches one node, $$$NAME a sequence",
    "of nodes, $_ anything without binding; a metavariable used twice must match the same text",
    "(`if ($X != null) $X.dispose()`). A pattern no context can parse is reported as unparseable, never as zero matches.",
    "For conditions a fragment cannot say (inside a loop, not inside a catch, has a call), give `rule`: ast-grep's rule object.",
  ].join(" "),
  input: {
    ...queryInput,
    ...scopeInput,
    max_results: z.number().int().min(1).max(1000).optional().describe("Matches to list. Default 50."),
    explain: z
      .boolean()
      .optional()
      .describe(
        "Search nothing: show how `pattern` (or any code fragment, or each pattern of `rule`) parses — the context chosen, why others failed, its tree of node kinds — to write a pattern or a rule's kinds that match.",
      ),
  },
  output: {
    language: z.string(),
    rung: z
      .string()
      .describe(
        'The context the pattern parsed in: bare, statement, expression, class member, declaration; "rule" for a rule.',
      ),
    selector: z.string(),
    total: z.number().int(),
    files: z.number().int(),
    searched: z.number().int(),
    complete: z
      .boolean()
      .optional()
      .describe(
        "false when matches may be missing or unshown: capped at max_results, files skipped for size or unreadable.",
      ),
    incomplete_because: z.array(z.string()).optional(),
    matches: z.array(
      z.object({
        path: z.string(),
        line: z.number().int(),
        column: z.number().int(),
        end_line: z.number().int(),
        end_column: z.number().int(),
        text: z.string(),
        captures: z.record(z.string(), z.string()),
      }),
    ),
  },
  check: checkQueryArgs,
  async run(args, ctx) {
    return ctx.use("ast").search(args, ctx.signal);
  },
});
