/** The zod shapes of ask_user's input and answer; the resource's types come from them. */
import { z } from "zod";

export const askUserInput = {
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
};
export type AskUserArgs = z.infer<z.ZodObject<typeof askUserInput>>;

export const askUserOutput = {
  outcome: z.enum(["answered", "skipped"]),
  choices: z.array(z.object({ number: z.number().int(), label: z.string() })),
  text: z.string().optional(),
  note: z.string().optional(),
};
export type AskUserResult = z.infer<z.ZodObject<typeof askUserOutput>>;
