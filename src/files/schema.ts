/** The zod shapes of the file tools' answers (read, write, edit, apply_patch); the store's types come from them. */
import { z } from "zod";

export const readOutput = {
  path: z.string(),
  kind: z.enum(["file", "directory"]),
  content: z.string().describe("The shown lines, without numbers."),
  from_line: z.number().int(),
  to_line: z.number().int(),
  total_lines: z.number().int(),
  truncated: z.boolean(),
  entries: z.array(z.string()).optional(),
};
export type ReadResult = z.infer<z.ZodObject<typeof readOutput>>;

export const writeOutput = {
  path: z.string(),
  status: z.enum(["created", "overwritten", "unchanged"]),
  lines: z.number().int(),
  bytes: z.number().int(),
};
export type WriteResult = z.infer<z.ZodObject<typeof writeOutput>>;

export const editOutput = {
  path: z.string(),
  replacements: z.number().int(),
  lines: z.array(z.number().int()).describe("1-based lines where the replacements start (in the old file)."),
};
export type EditResult = z.infer<z.ZodObject<typeof editOutput>>;

const patchFile = z.object({
  path: z.string(),
  action: z.enum(["added", "updated", "deleted", "moved"]),
  to: z.string().optional(),
  added: z.number().int(),
  removed: z.number().int(),
});
export type PatchFileResult = z.infer<typeof patchFile>;

export const patchOutput = { files: z.array(patchFile) };
export type PatchResult = z.infer<z.ZodObject<typeof patchOutput>>;
