/**
 * Per-call cost of a no-op tool: through runbound (link + gate: surface check, strict argument parsing, lanes,
 * output check) versus the bare MCP SDK v2 (McpServer.registerTool with the same schemas) on the same transport.
 * Two rows: the private link, protocol 2026-07-28 through the SDK's request handler in-process; and the 2025
 * in-memory pair a host gets with `run.mcpServer()`. Sequential calls, as an agent makes them.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client, InMemoryTransport, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";
import { createRun, defineTool } from "../../src/index.js";

const CALLS = 2000;
const ROUNDS = 9;

const input = { n: z.number().int() };
const output = { n: z.number().int() };

interface Calls {
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  close(): Promise<void>;
}

function bareServer(): McpServer {
  const server = new McpServer({ name: "bare", version: "0" });
  server.registerTool(
    "noop",
    { description: "no-op", inputSchema: z.object(input), outputSchema: z.object(output) },
    async ({ n }) => ({ content: [{ type: "text", text: "ok" }], structuredContent: { n } }),
  );
  return server;
}

/** A v2 client on an in-memory pair to `server` (protocol 2025-11-25). */
async function pairedClient(server: McpServer): Promise<Client> {
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(b);
  const client = new Client({ name: "bench", version: "0" });
  await client.connect(a);
  await client.listTools();
  return client;
}

/** The bare SDK's 2026-07-28 in-process: its request handler, a server per request, the client's fetch to it. */
async function bareModernClient(): Promise<Calls> {
  const handler = createMcpHandler(bareServer, { legacy: "reject", keepAliveMs: 0 });
  const client = new Client(
    { name: "bench", version: "0" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL("http://bench.invalid/mcp"), {
      fetch: (url, init) => handler.fetch(new Request(url, init)),
    }),
  );
  await client.listTools();
  return {
    callTool: (p) => client.callTool(p),
    close: async () => {
      await client.close();
      await handler.close();
    },
  };
}

async function timePerCall(client: Calls): Promise<number> {
  const start = process.hrtime.bigint();
  for (let i = 0; i < CALLS; i++) await client.callTool({ name: "noop", arguments: { n: i } });
  return Number(process.hrtime.bigint() - start) / 1e6 / CALLS;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

/** Medians of alternating rounds of `ours` and `base`, after a warm-up of each (JIT, zod caches). */
async function sideBySide(ours: Calls, base: Calls): Promise<{ ours: number; base: number }> {
  await timePerCall(ours);
  await timePerCall(base);
  const oursTimes: number[] = [];
  const baseTimes: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    oursTimes.push(await timePerCall(ours));
    baseTimes.push(await timePerCall(base));
  }
  return { ours: median(oursTimes), base: median(baseTimes) };
}

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
  const link = await run.link({ surface: "full" });
  await link.listTools();
  const bareModern = await bareModernClient();
  const modern = await sideBySide(link, bareModern);
  const ownPair = await pairedClient(run.mcpServer({ surface: "full" }));
  const barePair = await pairedClient(bareServer());
  const pair = await sideBySide(ownPair, barePair);
  for (const client of [bareModern, ownPair, barePair]) await client.close();
  await run.dispose();
  await rm(workdir, { recursive: true, force: true });
  return [
    {
      name: "no-op call, the link (2026-07-28)",
      ...modern,
      baseline: "bare MCP SDK v2, 2026-07-28 through its handler in-process",
    },
    {
      name: "no-op call, mcpServer() on a 2025 pair",
      ...pair,
      baseline: "bare MCP SDK v2, same in-memory pair",
    },
  ];
}
