/** The zod shape of what diagnostics on write add to a writing tool's structured result (key `diagnostics`). */
import { z } from "zod";

export const diagnosticRowSchema = z.object({
  path: z.string(),
  line: z.number().int(),
  column: z.number().int(),
  severity: z.string(),
  code: z.string().optional(),
  source: z.string().optional(),
  message: z.string(),
});

export const afterWriteDiagnosticsSchema = z.object({
  files: z.array(
    z.object({
      path: z.string(),
      server: z.string().optional(),
      freshness: z.enum(["fresh", "stale", "not ready", "unavailable"]),
      new: z.array(diagnosticRowSchema),
      resolved: z.number().int(),
    }),
  ),
});
