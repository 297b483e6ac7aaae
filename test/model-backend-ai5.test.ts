/**
 * The model backend and aiSdkTools on AI SDK 5: `ai`, as runbound imports it, is the real `ai@5` (installed here
 * under the alias ai-v5), with its spec-v2 mock model; a spec-v3 model is refused with what to install.
 */

import { MockLanguageModelV3 } from "ai/test";
import { generateText, stepCountIs } from "ai-v5";
import { MockLanguageModelV2 } from "ai-v5/test";
import { describe, expect, it, vi } from "vitest";
import { createRun, modelBackend } from "../src/index.js";
import { call, track, workdirWith } from "./helpers.js";
import { modelBackendCases, type ScriptedModel, turnContent } from "./model-backend-cases.js";

vi.mock("ai", async () => await import("ai-v5"));

const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };

const scripted: ScriptedModel = (turns) => {
  let turn = 0;
  return new MockLanguageModelV2({
    doGenerate: async (options) => {
      const tools = (options.tools ?? []).map((t) => t.name).sort();
      const next = turns[turn++]?.(JSON.stringify(options.prompt), tools) ?? { text: "(script ended)" };
      const finishReason = "call" in next ? ("tool-calls" as const) : ("stop" as const);
      return { content: turnContent(next), finishReason, usage, warnings: [] };
    },
  });
};

describe("the model backend on AI SDK 5", () => {
  modelBackendCases("AI SDK 5", scripted, (options) =>
    generateText({
      ...options,
      model: options.model as MockLanguageModelV2,
      tools: options.tools as never,
      stopWhen: stepCountIs(5) as never,
    }),
  );

  it("a spec-v3 model under AI SDK 5 fails the worker with what to install", async () => {
    const workdir = await workdirWith();
    const model = new MockLanguageModelV3({});
    const run = track(await createRun({ workdir, lsp: false, vibe: { fast: modelBackend(model) } }));
    const plan = await run.link({ surface: "plan" });
    await call(plan, "vibe_spawn", { brief: "anything", label: "v3" });
    const waited = await call(plan, "vibe_wait", { worker_id: "w1", timeout_seconds: 30 });
    expect(JSON.stringify(waited.structuredContent)).toMatch(
      /specification v3; AI SDK 5 runs v2 models only, AI SDK 6 runs v2 and v3/,
    );
  });
});
