/**
 * Per-call cost of a no-op tool: through runbound (private link + gate: surface check, strict argument parsing,
 * lanes, output check) versus the bare MCP SDK (McpServer.registerTool with the same schemas) over the same
 * in-memory transport pair. Sequential calls, as an agent makes them.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { createRun, defineTool } from "../../src/index.js";

const CALLS = 2000;
const ROUNDS = 9;

const input = { n: z.number().int() };
const output = { n: z.number().int() };

async function bareClient(): Promise<Client> {
  const server = new McpServer({ name: "bare", version: "0" });
  server.registerTool(
    "noop",
    { description: "no-op", inputSchema: input, outputSchema: output },
    async ({ n }) => ({
      content: [{ type: "text", text: "ok" }],
      structuredContent: { n },
    }),
  );
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(b);
  const client = new Client({ name: "bench", version: "0" });
  await client.connect(a);
  await client.listTools();
  return client;
}

async function timePerCall(client: Client): Promise<number> {
  const start = process.hrtime.bigint();
  for (let i = 0; i < CALLS; i++) await client.callTool({ name: "noop", arguments: { n: i } });
  return Number(process.hrtime.bigint() - start) / 1e6 / CALLS;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

export async function benchCallOverhead() {
  const workdir = await mkdtemp(path.join(tmpdir(), "runbound-bench-"));
  const run = await createRun({ workdir, approver: "always" });
  run.registerTool(
    defineTool({
      name: "noop",
      title: "No-op",
      tier: "read",
      needs: [],
      parallelSafe: true,
      description: "no-op",
      input,
      output,
      run: async ({ n }) => ({ text: "ok", structured: { n } }),
    }),
  );
  const ours = await run.link({ surface: "full" });
  await ours.listTools();
  const bare = await bareClient();
  // Warm both paths (JIT, zod caches) before measuring.
  await timePerCall(ours);
  await timePerCall(bare);
  const oursTimes: number[] = [];
  const bareTimes: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    oursTimes.push(await timePerCall(ours));
    bareTimes.push(await timePerCall(bare));
  }
  await bare.close();
  await run.dispose();
  await rm(workdir, { recursive: true, force: true });
  return {
    name: "no-op tool call (sequential)",
    ours: median(oursTimes),
    base: median(bareTimes),
    baseline: "bare MCP SDK, same in-memory pair",
  };
}
