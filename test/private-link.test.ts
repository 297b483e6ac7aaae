import { readdir, readFile, readlink } from "node:fs/promises";
import net from "node:net";
import {
  CallToolResultSchema,
  ErrorCode,
  JSONRPCErrorResponseSchema,
  JSONRPCRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it, vi } from "vitest";
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
    const raw = (params: Record<string, unknown>) =>
      client.request({ method: "tools/call", params }, CallToolResultSchema);
    await expect(raw({ arguments: { path: "a.txt" } })).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
      message: expect.stringMatching(/params\.name, the name of a listed tool/),
    });
    await expect(raw({ name: "read", arguments: ["a.txt"] })).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
      message: expect.stringMatching(/read: params\.arguments must be an object/),
    });
    await expect(client.request({ method: "resources/list" }, CallToolResultSchema)).rejects.toMatchObject({
      code: ErrorCode.MethodNotFound,
    });
    // The harness's own result schema, when it passes one, is still applied; without one the gate's result arrives.
    const parsed = await raw({ name: "read", arguments: { path: "a.txt" } });
    expect(parsed.content[0]).toMatchObject({ type: "text" });
    const direct = await client.callTool({ name: "read", arguments: { path: "a.txt" } });
    expect(direct.structuredContent).toEqual(parsed.structuredContent);
  });

  it("a call's request and response are routed by their keys, without the SDK's failing shape parses", async () => {
    const run = track(await createRun({ workdir: await workdirWith({ "a.txt": "a\n" }) }));
    const client = await run.link({ surface: "readonly" });
    const asRequest = vi.spyOn(JSONRPCRequestSchema, "safeParse");
    const asError = vi.spyOn(JSONRPCErrorResponseSchema, "safeParse");
    try {
      const answer = await call(client, "read", { path: "a.txt" });
      expect(textOf(answer)).toMatch(/a/);
      // Taken the SDK's way, the request is parsed as a result, as an error (both fail) and as a request.
      expect(asRequest).not.toHaveBeenCalled();
      expect(asError).not.toHaveBeenCalled();
      // An error response still arrives as one.
      await expect(client.request({ method: "resources/list" }, CallToolResultSchema)).rejects.toMatchObject({
        code: ErrorCode.MethodNotFound,
      });
    } finally {
      asRequest.mockRestore();
      asError.mockRestore();
    }
  });
});
