/** The model backend and aiSdkTools on AI SDK 6 (`ai` as installed here) with its spec-v3 mock model. */
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { describe } from "vitest";
import { modelBackendCases, type ScriptedModel } from "./model-backend-cases.js";

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

const scripted: ScriptedModel = (turns) => {
  let turn = 0;
  return new MockLanguageModelV3({
    doGenerate: async (options) => {
      const next = turns[turn++]?.(JSON.stringify(options.prompt)) ?? { text: "(script ended)" };
      if ("call" in next)
        return {
          content: [
            {
              type: "tool-call",
              toolCallId: next.call.id,
              toolName: next.call.tool,
              input: JSON.stringify(next.call.input),
            },
          ],
          finishReason: { unified: "tool-calls", raw: undefined },
          usage,
          warnings: [],
        };
      return {
        content: [{ type: "text", text: next.text }],
        finishReason: { unified: "stop", raw: undefined },
        usage,
        warnings: [],
      };
    },
  });
};

describe("the model backend on AI SDK 6", () => {
  modelBackendCases("AI SDK 6", scripted, (options) =>
    generateText({ ...options, model: options.model as MockLanguageModelV3, stopWhen: stepCountIs(5) }),
  );
});
