/** The zod shapes of the eval tool's input and answer: the tool lists them, the resource's types come from them. */
import { z } from "zod";

export const evalInput = {
  code: z.string().describe("The cell."),
  description: z.string().describe("5-10 words saying what the cell does: its label in the transcript."),
  language: z.enum(["python", "javascript"]).optional().describe("Default python."),
  reset: z.boolean().optional().describe("Discard the kernel's state and start clean first."),
};
export type EvalArgs = z.infer<z.ZodObject<typeof evalInput>>;

export const evalOutput = {
  language: z.string(),
  status: z.enum(["ok", "error", "interrupted", "died"]),
  output: z.string(),
  images: z.number().int(),
  error: z.object({ name: z.string(), value: z.string() }).optional(),
  dropped_bytes: z.number().int(),
};

/** What eval answers: text and images for the model, the structured result for the harness. */
export interface EvalAnswer {
  text: string;
  structured: z.infer<z.ZodObject<typeof evalOutput>>;
  content: { type: "image"; data: string; mimeType: string }[];
}

export type KernelLanguage = "python" | "javascript";

/** The kernel behind JavaScript cells: runbound's own on the harness's Node, or Deno's. */
export type JavaScriptKernel = "node" | "deno";

/** The conversation's sandbox, as the harness sees it. runbound only asks; it never starts one. */
export interface Sandbox {
  /** Whether it is running now. */
  isUp(): boolean;
  /** The command prefix that runs a command inside it (e.g. ["docker", "exec", "-i", "box"]). */
  commandPrefix(): readonly string[];
}
