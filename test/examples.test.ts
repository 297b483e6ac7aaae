import { readFile } from "node:fs/promises";
import path from "node:path";
import type { LanguageModelV2CallOptions, LanguageModelV2Content } from "@ai-sdk/provider";
import { MockLanguageModelV2 } from "ai/test";
import { describe, expect, it } from "vitest";
import { runAgent } from "../examples/ai-sdk-agent.js";
import { createRun } from "../src/index.js";
import { track, workdirWith } from "./helpers.js";

const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };

/** A model that plays a fixed script of turns, and records the tools it was offered and the prompts it saw. */
function scripted(turns: ((prompt: string) => LanguageModelV2Content[])[]) {
  const offered: string[][] = [];
  let turn = 0;
  const model = new MockLanguageModelV2({
    doGenerate: async (options: LanguageModelV2CallOptions) => {
      offered.push((options.tools ?? []).map((t) => t.name).sort());
      const content = turns[turn++]?.(JSON.stringify(options.prompt)) ?? [
        { type: "text", text: "(script ended)" },
      ];
      const calls = content.some((c) => c.type === "tool-call");
      return { content, finishReason: calls ? "tool-calls" : "stop", usage, warnings: [] };
    },
  });
  return { model, offered };
}

const callTool = (id: string, toolName: string, input: Record<string, unknown>): LanguageModelV2Content => ({
  type: "tool-call",
  toolCallId: id,
  toolName,
  input: JSON.stringify(input),
});

describe("examples/ai-sdk-agent", () => {
  it("a model writes a file and reads it back through a full link, and answers from what it read", async () => {
    const workdir = await workdirWith();
    const run = track(await createRun({ workdir, approver: "always", lsp: false }));
    const { model } = scripted([
      () => [callTool("c1", "write", { path: "notes/todo.md", content: "- ship it\n" })],
      () => [callTool("c2", "read", { path: "notes/todo.md" })],
      (prompt) => [
        { type: "text", text: prompt.includes("ship it") ? "the todo says: ship it" : "no todo seen" },
      ],
    ]);
    const answer = await runAgent({ run, model, prompt: "write a todo and check it" });
    expect(answer).toEqual({ text: "the todo says: ship it", toolCalls: ["write", "read"] });
    expect(await readFile(path.join(workdir, "notes/todo.md"), "utf8")).toBe("- ship it\n");
  });

  it("on the plan surface it is an explorer: offered no write or exec tool, and can still read", async () => {
    const workdir = await workdirWith({ "a.py": "x = 1\n" });
    const run = track(await createRun({ workdir, approver: "always", lsp: false }));
    const { model, offered } = scripted([
      () => [callTool("c1", "read", { path: "a.py" })],
      (prompt) => [{ type: "text", text: prompt.includes("x = 1") ? "a.py sets x" : "unseen" }],
    ]);
    const answer = await runAgent({ run, model, prompt: "what does a.py do?", surface: "plan" });
    expect(answer.text).toBe("a.py sets x");
    expect(offered[0]).toEqual(run.tools("plan").sort());
    for (const name of ["write", "edit", "apply_patch", "eval", "debug", "ast_edit", "lsp_rename"]) {
      expect(offered[0]).not.toContain(name);
    }
    expect(offered[0]).toContain("read");
  });
});
