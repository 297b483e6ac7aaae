import { z } from "zod";
import { defineTool } from "../registry.js";

export const resolveTool = defineTool({
  name: "resolve",
  effects: { files: "write", starts: "nothing", kills: false, network: false, idempotent: false },
  title: "Accept or discard a staged rewrite",
  tier: "write",
  needs: ["ast"],
  parallelSafe: false,
  lane: "files",
  writes: true,
  description:
    "Commit (accept) or drop (discard) a change staged by ast_edit. Accept checks every file against the content it " +
    "had when the change was staged: if any changed, nothing is written. Otherwise all files are written at once.",
  input: {
    edit_id: z.string().describe('The id ast_edit returned, e.g. "edit_1".'),
    action: z.enum(["accept", "discard"]),
  },
  output: {
    edit_id: z.string(),
    action: z.enum(["accept", "discard"]),
    files: z.array(z.object({ path: z.string(), replacements: z.number().int() })),
  },
  check: (args, ctx) => ctx.use("ast").checkResolve(args),
  describeCall: (args) =>
    `${args.action} the staged change ${args.edit_id}${args.action === "accept" ? " (writes the files it changes)" : ""}`,
  async run(args, ctx) {
    return ctx.use("ast").resolve(args);
  },
});
