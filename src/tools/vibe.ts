/** The vibe_* tools: background workers (tier read: the gate belongs to the workers' own tools). */
import { z } from "zod";
import { defineTool } from "../registry.js";
import { killed, listed, restarted, spawned, waited } from "../vibe/answers.js";
import { WORKER_TIERS, workerViewSchema } from "../vibe/schema.js";

const view = workerViewSchema;

const common = { tier: "read" as const, needs: ["vibe" as const], parallelSafe: true };

export const vibeSpawnTool = defineTool({
  ...common,
  name: "vibe_spawn",
  // The worker works with the calling surface's tools (on full: it writes).
  effects: { files: "as the surface", starts: "code", kills: false, network: true, idempotent: false },
  runsCode: true,
  title: "Start a background worker",
  description:
    "Start a background worker on a brief; returns its id at once while it works. tier: fast (mechanical work with a clear spec) or good (design, judgement, or checking a fast worker's work).",
  input: {
    brief: z.string().min(1).describe("What the worker is to do, complete: it sees only this."),
    label: z.string().min(1).max(60).describe("A short name for lists."),
    tier: z.enum(WORKER_TIERS).optional().describe("Default fast."),
  },
  output: { worker: view },
  async run(args, ctx) {
    const worker = ctx.use("vibe").spawn(args.brief, args.label, args.tier ?? "fast", ctx.surface);
    return { text: spawned(worker), structured: { worker } };
  },
});

export const vibeSendTool = defineTool({
  ...common,
  name: "vibe_send",
  // Re-briefing ends what the worker is doing and sets it working again.
  effects: { files: "as the surface", starts: "code", kills: true, network: true, idempotent: false },
  title: "Add to a worker's brief",
  description:
    "Append a message to a worker's brief and restart it with the whole brief; the answer says what was interrupted.",
  input: { worker_id: z.string().describe('e.g. "w1"'), message: z.string().min(1) },
  output: { worker: view, interrupted: z.string() },
  async run(args, ctx) {
    const { view: worker, interrupted } = await ctx
      .use("vibe")
      .send(args.worker_id, args.message, ctx.surface);
    return { text: restarted(worker, interrupted), structured: { worker, interrupted } };
  },
});

export const vibeWaitTool = defineTool({
  ...common,
  name: "vibe_wait",
  effects: { files: "read", starts: "nothing", kills: false, network: false, idempotent: true },
  title: "Wait for a worker",
  description:
    "Wait until a worker finishes, or until timeout_seconds pass (a hard deadline); returns its status and result.",
  input: {
    worker_id: z.string(),
    timeout_seconds: z.number().int().min(1).max(3600).optional().describe("Default 300."),
  },
  output: { worker: view, timed_out: z.boolean() },
  async run(args, ctx) {
    const timeout = args.timeout_seconds ?? 300;
    const { view: worker, timedOut } = await ctx
      .use("vibe")
      .wait(args.worker_id, timeout * 1000, ctx.signal, ctx.surface);
    return { text: waited(worker, timedOut, timeout), structured: { worker, timed_out: timedOut } };
  },
});

export const vibeKillTool = defineTool({
  ...common,
  name: "vibe_kill",
  effects: { files: "read", starts: "nothing", kills: true, network: false, idempotent: true },
  title: "Stop a worker",
  description: "Stop a worker and its whole process tree.",
  input: { worker_id: z.string() },
  output: { worker: view },
  async run(args, ctx) {
    const worker = await ctx.use("vibe").kill(args.worker_id, ctx.surface);
    return { text: killed(worker), structured: { worker } };
  },
});

export const vibeListTool = defineTool({
  ...common,
  name: "vibe_list",
  effects: { files: "read", starts: "nothing", kills: false, network: false, idempotent: true },
  title: "List the workers",
  description:
    "Every worker of this run: id, label, tier, status, elapsed time, last activity, last result (trimmed).",
  input: {},
  output: { workers: z.array(view) },
  async run(_args, ctx) {
    const workers = ctx.use("vibe").list(ctx.surface);
    return { text: listed(workers), structured: { workers } };
  },
});
