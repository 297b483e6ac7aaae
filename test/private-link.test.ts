import { readdir, readFile, readlink } from "node:fs/promises";
import net from "node:net";
import { createMCPClient } from "@ai-sdk/mcp";
import { InMemoryTransport, ProtocolErrorCode } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { createRun, ProgrammaticQuestionPort } from "../src/index.js";
import { call, textOf, track, workdirWith } from "./helpers.js";

/** Inodes of the sockets this process holds that are listening (TCP, TCP6, UDP bound, or Unix). */
async function listeningSocketsOfThisProcess(): Promise<string[]> {
  const mine = new Set<string>();
  for (const fd of await readdir("/proc/self/fd")) {
    const target = await readlink(`/proc/self/fd/${fd}`).catch(() => "");
    const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
    if (inode) mine.add(inode);
  }
  const listening: string[] = [];
  for (const table of ["tcp", "tcp6"]) {
    for (const row of (await readFile(`/proc/net/${table}`, "utf8")).split("\n").slice(1)) {
      const cols = row.trim().split(/\s+/);
      if (cols[3] === "0A" && cols[9] && mine.has(cols[9])) listening.push(`${table}:${cols[9]}`);
    }
  }
  for (const row of (await readFile("/proc/net/unix", "utf8")).split("\n").slice(1)) {
    const cols = row.trim().split(/\s+/);
    // Flags 00010000 = __SO_ACCEPTCON: a listening Unix socket.
    if (cols[3] === "00010000" && cols[6] && mine.has(cols[6])) listening.push(`unix:${cols[6]}`);
  }
  return listening;
}

describe("the private in-memory link", () => {
  it("sees a real listener when there is one (the probe works)", async () => {
    const server = net.createServer().listen(0, "127.0.0.1");
    await new Promise((r) => server.once("listening", r));
    try {
      expect((await listeningSocketsOfThisProcess()).length).toBeGreaterThan(0);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it("creating runs, linking every surface and calling tools opens no listening socket", async () => {
    const before = await listeningSocketsOfThisProcess();
    const listens: unknown[] = [];
    const originalListen = net.Server.prototype.listen;
    net.Server.prototype.listen = function (this: net.Server, ...args: unknown[]) {
      listens.push(args);
      return (originalListen as (...a: unknown[]) => net.Server).apply(this, args);
    } as typeof net.Server.prototype.listen;
    try {
      for (let i = 0; i < 3; i++) {
        const workdir = await workdirWith({ "a.txt": "a\n" });
        const port = new ProgrammaticQuestionPort();
        port.onQuestion((q) => q.answer({ choices: [1] }));
        const run = track(await createRun({ workdir, conversationId: `c${i}`, questions: port }));
        for (const surface of ["full", "plan", "readonly"] as const) {
          const client = await run.link({ surface });
          await client.listTools();
          await call(client, "read", { path: "a.txt" });
          await call(client, "ask_user", { question: "ok?", options: [{ label: "yes" }] });
        }
        await call(await run.link({ surface: "full" }), "write", { path: "b.txt", content: "b" });
        run.mcpServer({ surface: "plan" });
      }
      expect(listens).toEqual([]);
      expect(await listeningSocketsOfThisProcess()).toEqual(before);
    } finally {
      net.Server.prototype.listen = originalListen;
    }
  });

  it("a malformed tools/call is refused with what to send; another method is not found; calls still work", async () => {
    const run = track(await createRun({ workdir: await workdirWith({ "a.txt": "a\n" }) }));
    const client = await run.link({ surface: "readonly" });
    // The SDK client underneath sends what a hand-made or foreign client could.
    const raw = (params: Record<string, unknown>) =>
      client.client.request({ method: "tools/call", params: params as never });
    await expect(raw({ arguments: { path: "a.txt" } })).rejects.toMatchObject({
      code: ProtocolErrorCode.InvalidParams,
      message: expect.stringMatching(/params\.name, the name of a listed tool/),
    });
    await expect(raw({ name: "read", arguments: ["a.txt"] })).rejects.toMatchObject({
      code: ProtocolErrorCode.InvalidParams,
      message: expect.stringMatching(/read: params\.arguments must be an object/),
    });
    await expect(client.client.request({ method: "resources/list" })).rejects.toMatchObject({
      code: ProtocolErrorCode.MethodNotFound,
    });
    const parsed = await raw({ name: "read", arguments: { path: "a.txt" } });
    expect(parsed.content[0]).toMatchObject({ type: "text" });
    const direct = await client.callTool({ name: "read", arguments: { path: "a.txt" } });
    expect(direct.structuredContent).toEqual(parsed.structuredContent);
  });
});

describe("protocol versions", () => {
  it("the link negotiates 2026-07-28, in-process (server/discover, no initialize), and calls work on it", async () => {
    const run = track(await createRun({ workdir: await workdirWith({ "a.txt": "alpha\n" }) }));
    const link = await run.link({ surface: "readonly" });
    expect(link.protocolVersion).toBe("2026-07-28");
    expect(link.client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
    expect(textOf(await call(link, "read", { path: "a.txt" }))).toContain("alpha");
  });

  it("a 2025-era client (the AI SDK's own MCP client) on an in-memory pair to run.mcpServer() lists and calls", async () => {
    const run = track(await createRun({ workdir: await workdirWith({ "a.txt": "alpha\n" }) }));
    const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
    // The version the server answers initialize with, as it goes over the pair.
    let negotiated: unknown;
    const send = serverEnd.send.bind(serverEnd);
    serverEnd.send = (message, options) => {
      const result = (message as { result?: { protocolVersion?: unknown } }).result;
      if (result?.protocolVersion) negotiated = result.protocolVersion;
      return send(message, options);
    };
    await run.mcpServer({ surface: "plan" }).connect(serverEnd);
    const mcp = await createMCPClient({ transport: clientEnd });
    try {
      expect(negotiated).toBe("2025-11-25");
      const tools = await mcp.tools();
      expect(Object.keys(tools).sort()).toEqual(run.tools("plan").sort());
      const answer = (await tools.read!.execute!({ path: "a.txt" }, { toolCallId: "1", messages: [] })) as {
        content: { type: string; text?: string }[];
      };
      expect(answer.content[0]?.text).toContain("alpha");
      // An error answer arrives as one, with the gate's text.
      const missing = (await tools.read!.execute!(
        { path: "nope.txt" },
        { toolCallId: "2", messages: [] },
      )) as {
        content: { text?: string }[];
        isError?: boolean;
      };
      expect(missing.isError).toBe(true);
      expect(missing.content[0]?.text).toMatch(/nope\.txt/);
    } finally {
      await mcp.close();
    }
  });
});
