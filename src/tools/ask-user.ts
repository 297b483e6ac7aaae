import { z } from "zod";
import { askUser } from "../questions/ask.js";
import { defineTool } from "../registry.js";

export const askUserTool = defineTool({
  name: "ask_user",
  title: "Ask the person",
  tier: "read",
  needs: ["questions"],
  parallelSafe: true,
  description: [
    "Ask the person running this session a question and wait for the answer, shown to them as a numbered card.",
    "Use it when a decision is theirs to make (a choice with real consequences, missing requirements); do not write questions as chat text.",
    "State in `context` what you will assume if they skip. A skip is a success: go on with that assumption and do not ask again.",
    "A timeout or 'no person connected' is an error with no answer: never invent one.",
  ].join(" "),
  input: {
    question: z.string().trim().min(1).describe("The question, one or two sentences."),
    context: z
      .string()
      .optional()
      .describe("Why you ask, what depends on the answer, and what you assume if skipped."),
    options: z
      .array(
        z.object({
          label: z.string().trim().min(1).max(80).describe("Short choice text, shown numbered."),
          description: z.string().optional().describe("One line on what the choice means."),
        }),
      )
      .max(9)
      .optional()
      .describe("Up to 9 choices. Omit for a free-text question (then set allow_free_text)."),
    allow_free_text: z.boolean().optional().describe("Accept a typed answer. Default false."),
    multi_select: z.boolean().optional().describe("Allow several options to be chosen. Default false."),
  },
  output: {
    outcome: z.enum(["answered", "skipped"]),
    choices: z.array(z.object({ number: z.number().int(), label: z.string() })),
    text: z.string().optional(),
    note: z.string().optional(),
  },
  async run(args, ctx) {
    return askUser(ctx.use("questions"), args, ctx.signal);
  },
});
