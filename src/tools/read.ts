import { z } from "zod";
import { readOutput } from "../files/schema.js";
import { defineTool } from "../registry.js";

export const readTool = defineTool({
  name: "read",
  effects: { files: "read", starts: "nothing", kills: false, network: false, idempotent: true },
  title: "Read a file",
  tier: "read",
  needs: ["files"],
  parallelSafe: true,
  description:
    "Read a text file in the workdir, with 1-based line numbers (a tab after each number is not part of the line). " +
    "Reads up to 2000 lines; use offset/limit for more. A directory path lists its entries.",
  input: {
    path: z.string().describe("File or directory, relative to the workdir (e.g. src/app.ts)."),
    offset: z.number().int().min(1).optional().describe("First line to show, 1-based. Default 1."),
    limit: z.number().int().min(1).max(10_000).optional().describe("How many lines to show. Default 2000."),
  },
  output: readOutput,
  async run(args, ctx) {
    const { text, result } = await ctx.use("files").read(args);
    return { text, structured: result };
  },
});
