import { z } from "zod";
import { queryInput, scopeInput } from "../ast/schema.js";
import { defineTool } from "../registry.js";

export const astEditTool = defineTool({
  name: "ast_edit",
  // Stages only (resolve writes), with ast_grep's search process.
  effects: { files: "read", starts: "helpers", kills: false, network: false, idempotent: false },
  title: "Stage a structural rewrite",
  tier: "write",
  needs: ["ast"],
  parallelSafe: false,
  lane: "files",
  description: [
    "Rewrite every match of a structural pattern or rule (as ast_grep finds them) with a template whose $NAME / $$$NAME are",
    "filled from the match. Nothing is written: the change is staged under an edit_id with a preview;",
    "call resolve with that edit_id to accept (all files at once, or none) or discard it.",
  ].join(" "),
  input: {
    ...queryInput,
    rewrite: z.string().describe("What to put instead, e.g. `$X.dispose()`."),
    ...scopeInput,
  },
  output: {
    edit_id: z.string().nullable(),
    replacements: z.number().int(),
    files: z.array(z.object({ path: z.string(), replacements: z.number().int() })),
    overlaps: z
      .array(z.string())
      .describe(
        "Matches inside another match, left for a second pass: the first 20 (the text counts them all).",
      ),
  },
  check: (args, ctx) => ctx.use("ast").checkStage(args),
  describeCall: (args) =>
    `stage a rewrite of ${args.pattern !== undefined ? `\`${args.pattern}\`` : "the rule's matches"} → \`${args.rewrite}\` in ${args.path ?? "the workdir"} (nothing is written yet)`,
  async run(args, ctx) {
    return ctx.use("ast").stage(args, ctx.signal);
  },
});
