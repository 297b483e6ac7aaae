import { z } from "zod";
import { parsePatch } from "../files/patch/parse.js";
import { patchOutput } from "../files/schema.js";
import { defineTool } from "../registry.js";

export const applyPatchTool = defineTool({
  name: "apply_patch",
  effects: { files: "write", starts: "nothing", kills: false, network: false, idempotent: false },
  title: "Apply a patch",
  tier: "write",
  needs: ["files"],
  parallelSafe: false,
  lane: "files",
  writes: true,
  description: [
    "Apply a multi-file patch, all or nothing: if any hunk does not match, no file is changed.",
    "Format: `*** Begin Patch`, then sections `*** Add File: path` (lines prefixed +), `*** Delete File: path`,",
    "`*** Update File: path` (optionally `*** Move to: new/path`) with hunks: an `@@` line (optionally `@@ <a line to seek to>`),",
    "then lines prefixed ' ' (context, about 3 before and after), '-' (remove), '+' (add); then `*** End Patch`.",
    "A plain unified diff (`--- a/path`, `+++ b/path`, `@@ -l,c +l,c @@`) is accepted too.",
  ].join(" "),
  input: {
    patch: z.string().min(1).describe("The whole patch text."),
  },
  output: patchOutput,
  check: (args, ctx) => ctx.use("files").checkPatch(args.patch),
  describeCall: (args) => {
    try {
      const ops = parsePatch(args.patch);
      return `apply a patch to ${ops.map((op) => `${op.kind} ${op.path}`).join(", ")}`;
    } catch {
      return "apply a patch (that does not parse)";
    }
  },
  async run(args, ctx) {
    const { text, result, written } = await ctx.use("files").applyPatch(args.patch);
    return { text, structured: result, written };
  },
});
