/** The zod shape of a worker as the vibe_* tools answer it; the pool's type comes from it. */
import { z } from "zod";

export const WORKER_TIERS = ["fast", "good"] as const;
export type WorkerTier = (typeof WORKER_TIERS)[number];
export type WorkerStatus = "running" | "done" | "failed" | "killed";

export const workerViewSchema = z.object({
  id: z.string(),
  label: z.string(),
  tier: z.enum(WORKER_TIERS),
  status: z.enum(["running", "done", "failed", "killed"]),
  elapsed_seconds: z.number().int(),
  last_activity_seconds_ago: z.number().int(),
  attempts: z.number().int(),
  result: z.string().optional(),
});
export type WorkerView = z.infer<typeof workerViewSchema>;
