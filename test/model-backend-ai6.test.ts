/** The model backend and aiSdkTools on AI SDK 6 (`ai` as installed here) with its spec-v3 mock model. */
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { createRun, modelBackend } from "../src/index.js";
import { call, track, workdirWith } from "./helpers.js";
import { modelBackendCases, type ScriptedModel, turnContent } from "./model-backend-cases.js";

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

const scripted: ScriptedModel = (turns) => {
  let turn = 0;
  return new MockLanguageModelV3({
    doGenerate: async (options) => {
      const tools = (options.tools ?? []).map((t) => t.name).sort();
      const next = turns[turn++]?.(JSON.stringify(options.prompt), tools) ?? { text: "(script ended)" };
      const finishReason =
        "call" in next
          ? ({ unified: "tool-calls", raw: undefined } as const)
          : ({ unified: "stop", raw: undefined } as const);
      return { content: turnContent(next), finishReason, usage, warnings: [] };
    },
  });
};

describe("the model backend on AI SDK 6", () => {
  modelBackendCases("AI SDK 6", scripted, (options) =>
    generateText({ ...options, model: options.model as MockLanguageModelV3, stopWhen: stepCountIs(5) }),
  );

  it("a spec-v4 model (AI SDK 7's providers) under AI SDK 6 fails the worker with which major runs it", async () => {
    // AI SDK 6's own refusal says "AI SDK 5 only supports … v2": the answer adds what each major runs.
    const model = { specificationVersion: "v4", provider: "p", modelId: "m", supportedUrls: {} };
    const run = track(
      await createRun({ workdir: await workdirWith(), lsp: false, vibe: { fast: modelBackend(model) } }),
    );
    const plan = await run.link({ surface: "plan" });
    await call(plan, "vibe_spawn", { brief: "anything", label: "v4" });
    const waited = await call(plan, "vibe_wait", { worker_id: "w1", timeout_seconds: 30 });
    expect(JSON.stringify(waited.structuredContent)).toMatch(
      /specification v4; AI SDK 5 runs v2 models only, AI SDK 6 runs v2 and v3, AI SDK 7 runs v2, v3 and v4/,
    );
  });
});
