/**
 * The adapters shipped as subpaths (`runbound/openai-agents`, `runbound/claude-agent-sdk`; `runbound/ai-sdk` in the
 * model-backend tests): each hands the framework the run's tools for a surface, and a call through it passes the
 * gate and can be cancelled. The packaged test imports them from the installed package.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { describe, expect, it } from "vitest";
import { runboundServer } from "../src/adapters/claude-agent-sdk.js";
import { RunboundMcpServer } from "../src/adapters/openai-agents.js";
import { createRun } from "../src/index.js";
import { CANCELLABLE_LOOP, call, LOOP_FINISHED, loopStarted, textOf, track, workdirWith } from "./helpers.js";

describe("runbound/claude-agent-sdk", () => {
  it("the run's McpServer for the surface under its name, every tool it lists allowed by its SDK name", async () => {
    const workdir = await workdirWith({ "a.txt": "alpha\n" });
    const run = track(await createRun({ workdir, lsp: false }));
    const { mcpServers, allowedTools } = runboundServer(run, "plan");
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
