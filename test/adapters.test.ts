/**
 * The adapters shipped as subpaths (`runbound/openai-agents`, `runbound/claude-agent-sdk`, `runbound/langchain`;
 * `runbound/ai-sdk` in the model-backend tests): each hands the framework the run's tools for a surface, and a call
 * through it passes the gate and can be cancelled. The packaged test imports them from the installed package.
 */
import { Agent, type ToolsInput } from "@mastra/core/agent";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { runboundServer } from "../src/adapters/claude-agent-sdk.js";
import { langchainTools } from "../src/adapters/langchain.js";
import { RunboundMcpServer } from "../src/adapters/openai-agents.js";
import { aiSdkTools, createRun } from "../src/index.js";
import { CANCELLABLE_LOOP, call, LOOP_FINISHED, loopStarted, textOf, track, workdirWith } from "./helpers.js";

describe("runbound/claude-agent-sdk", () => {
  it("the run's McpServer for the surface under its name, every tool it lists allowed by its SDK name", async () => {
    const workdir = await workdirWith({ "a.txt": "alpha\n" });
    const run = track(await createRun({ workdir, lsp: false }));
    const { mcpServers, allowedTools } = await runboundServer(run, "plan");
    expect(allowedTools).toEqual(run.tools("plan").map((t) => `mcp__runbound__${t}`));
    const config = mcpServers.runbound!;
    expect(config).toMatchObject({ type: "sdk", name: "runbound" });
    // The SDK connects the instance to its own in-process transport: here, a client of the same kind.
    const [a, b] = InMemoryTransport.createLinkedPair();
    await config.instance.connect(b);
    const client = new Client({ name: "claude-agent-sdk-stand-in", version: "0" });
    await client.connect(a);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(run.tools("plan").sort());
    expect(textOf(await call(client, "read", { path: "a.txt" }))).toContain("alpha");
    expect(textOf(await call(client, "write", { path: "b.txt", content: "x" }))).toMatch(
      /^write is not available on the plan surface/,
    );
    await client.close();
  });
  it("the host's cancel reaches the run through the v1 server: an eval cell is interrupted; progress comes back", async () => {
    const workdir = await workdirWith();
    const run = track(await createRun({ workdir, lsp: false, approver: "always" }));
    const { mcpServers } = await runboundServer(run, "full");
    const [a, b] = InMemoryTransport.createLinkedPair();
    await mcpServers.runbound!.instance.connect(b);
    const client = new Client({ name: "claude-agent-sdk-stand-in", version: "0" });
    await client.connect(a);
    try {
      const abort = new AbortController();
      let progressed = 0;
      const calling = client.callTool(
        {
          name: "eval",
          arguments: { code: CANCELLABLE_LOOP, description: "loop until the host cancels the call" },
        },
        undefined,
        { signal: abort.signal, onprogress: () => progressed++ },
      );
      calling.catch(() => undefined);
      await loopStarted(workdir);
      await expect.poll(() => progressed, { timeout: 30_000 }).toBeGreaterThan(0);
      abort.abort();
      await expect(calling).rejects.toThrow();
      const after = await call(client, "eval", {
        code: LOOP_FINISHED,
        description: "check whether the loop ran to its end",
      });
      expect(textOf(after)).toContain("False");
    } finally {
      await client.close();
    }
  }, 120_000);
});

describe("runbound/openai-agents", () => {
  it("the Agents SDK's signal cancels a call: an eval cell is interrupted, the kernel answers the next", async () => {
    const workdir = await workdirWith();
    const run = track(await createRun({ workdir, lsp: false, approver: "always" }));
    const server = new RunboundMcpServer(run, "full");
    await server.connect();
    try {
      const abort = new AbortController();
      const calling = server.callTool(
        "eval",
        { code: CANCELLABLE_LOOP, description: "loop until the harness cancels the call" },
        null,
        {
          signal: abort.signal,
        },
      );
      calling.catch(() => undefined);
      await loopStarted(workdir);
      abort.abort();
      await expect(calling).rejects.toThrow();
      const after = await server.callTool("eval", {
        code: LOOP_FINISHED,
        description: "check whether the loop ran to its end",
      });
      expect(JSON.stringify(after)).toContain("False");
    } finally {
      await server.close();
    }
  }, 120_000);
});

describe("runbound/langchain", () => {
  it("a plan link's tools are LangChain tools: no write or exec tool, a read goes through the gate", async () => {
    const workdir = await workdirWith({ "a.txt": "alpha\n" });
    const run = track(await createRun({ workdir, lsp: false }));
    const tools = await langchainTools(await run.link({ surface: "plan" }));
    expect(tools.map((t) => t.name).sort()).toEqual(run.tools("plan").sort());
    for (const name of ["write", "edit", "eval", "debug", "resolve"])
      expect(tools.map((t) => t.name)).not.toContain(name);
    const read = tools.find((t) => t.name === "read")!;
    expect(JSON.stringify(await read.invoke({ path: "a.txt" }))).toContain("alpha");
  });

  it("the call's signal (LangChain's config) cancels it: an eval cell is interrupted, the kernel answers the next", async () => {
    const workdir = await workdirWith();
    const run = track(await createRun({ workdir, lsp: false, approver: "always" }));
    const tools = await langchainTools(await run.link({ surface: "full" }));
    const evalTool = tools.find((t) => t.name === "eval")!;
    const abort = new AbortController();
    const calling = evalTool.invoke(
      { code: CANCELLABLE_LOOP, description: "loop until the harness cancels the call" },
      { signal: abort.signal },
    );
    calling.catch(() => undefined);
    await loopStarted(workdir);
    abort.abort();
    await expect(calling).rejects.toThrow();
    const after = await evalTool.invoke({
      code: LOOP_FINISHED,
      description: "check whether the loop ran to its end",
    });
    expect(JSON.stringify(after)).toContain("False");
  }, 120_000);
});

describe("Mastra (through runbound/ai-sdk)", () => {
  it("a Mastra agent takes aiSdkTools as its tools: the model's read call goes through the gate, its result back", async () => {
    const workdir = await workdirWith({ "a.txt": "alpha\n" });
    const run = track(await createRun({ workdir, lsp: false }));
    const tools = await aiSdkTools(await run.link({ surface: "plan" }));
    const prompts: string[] = [];
    const usage = {
      inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: 1, text: 1, reasoning: 0 },
    };
    const model = new MockLanguageModelV3({
      doGenerate: async (options) => {
        prompts.push(JSON.stringify(options.prompt));
        const first = prompts.length === 1;
        return {
          content: first
            ? [
                {
                  type: "tool-call",
                  toolCallId: "c1",
                  toolName: "read",
                  input: JSON.stringify({ path: "a.txt" }),
                },
              ]
            : [{ type: "text", text: "a.txt says alpha" }],
          finishReason: { unified: first ? "tool-calls" : "stop", raw: undefined },
          usage,
          warnings: [],
        };
      },
    });
    // Mastra's ToolsInput names the tool types of the AI SDK versions it bundles: an AI SDK 6 ToolSet takes a cast.
    const agent = new Agent({
      id: "coder",
      name: "coder",
      instructions: "Read what you are asked to.",
      model,
      tools: tools as ToolsInput,
    });
    const result = await agent.generate("What does a.txt say?", { maxSteps: 3 });
    expect(result.text).toBe("a.txt says alpha");
    expect(prompts.at(-1)).toContain("1\\talpha");
  });
});
