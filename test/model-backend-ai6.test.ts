/** The model backend and aiSdkTools on AI SDK 6 (`ai` as installed here) with its spec-v3 mock model. */
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { describe } from "vitest";
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
});
