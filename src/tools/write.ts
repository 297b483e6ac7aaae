import { z } from "zod";
import { writeOutput } from "../files/schema.js";
import { plural, splitLines } from "../files/text.js";
import { defineTool } from "../registry.js";

export const writeTool = defineTool({
  name: "write",
  effects: { files: "write", starts: "nothing", kills: false, network: false, idempotent: true },
  title: "Write a file",
  tier: "write",
  needs: ["files"],
  parallelSafe: false,
  lane: "files",
  writes: true,
  description:
    "Create a file in the workdir, or replace its whole content (parent folders are created). " +
    "To change part of an existing file, use edit or apply_patch instead.",
  input: {
    path: z.string().describe("File path relative to the workdir."),
    content: z.string().describe("The complete new content."),
  },
  output: writeOutput,
  check: (args, ctx) => ctx.use("files").checkWrite(args),
  describeCall: (args) => `write ${args.path} (${plural(splitLines(args.content).length, "line")})`,
  async run(args, ctx) {
    const { text, result, written } = await ctx.use("files").write(args);
    return { text, structured: result, written };
  },
});
