/**
 * Idle language servers stop and start again on the next call (`lsp: { idleSeconds }`): a real tsgo, and the
 * scripted server for a request that is still in flight when the idle time passes.
 */
import { describe, expect, it } from "vitest";
import { createRun } from "../src/index.js";
import { isAlive } from "../src/proc/tree.js";
import { call, fakeServer, textOf, track, workdirWith } from "./helpers.js";

async function statusUntil(client: Parameters<typeof call>[0], pattern: RegExp): Promise<string> {
  let text = "";
  for (const deadline = Date.now() + 20_000; Date.now() < deadline; ) {
    text = textOf(await call(client, "lsp", { action: "status" }));
    if (pattern.test(text)) return text;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`status never matched ${pattern}; last:\n${text}`);
}

describe("idle language servers", () => {
  it("tsgo idle for idleSeconds stops (status says so), the next call starts it again and answers, and the diagnostics journal survives", async () => {
    const workdir = await workdirWith({
      "tsconfig.json": '{ "compilerOptions": { "strict": true, "noEmit": true } }\n',
      "src/a.ts": "export const n: number = 1;\nexport const m = n + 1;\n",
    });
    const run = track(await createRun({ workdir, approver: "always", lsp: { idleSeconds: 1 } }));
    const client = await run.link({ surface: "full" });
    const definition = () =>
      call(client, "lsp", { action: "definition", file: "src/a.ts", line: 2, symbol: "n" });
    const first = textOf(await definition());
    expect(first).toContain("src/a.ts:1");
    const wrote = textOf(
      await call(client, "write", { path: "src/b.ts", content: "export const s: string = 1;\n" }),
    );
    expect(wrote).toMatch(/1 new one:\n {2}src\/b\.ts:1 error: .*\[ts 2322\]/);

    const before = await statusUntil(client, /tsgo @ \.: ready, pid \d+/);
    const pid = Number(/pid (\d+)/.exec(before)![1]);
    const stopped = await statusUntil(client, /tsgo @ \.: stopped after 1 s idle \(starts on next use\)/);
    expect(stopped).not.toMatch(/pid \d+/);
    expect(await isAlive(pid)).toBe(false);

    expect(textOf(await definition())).toBe(first);
    const again = textOf(await call(client, "lsp", { action: "status" }));
    expect(again).toMatch(/tsgo @ \.: ready, pid \d+, started again \(stopped after 1 s idle\), /);
    expect(Number(/pid (\d+)/.exec(again)![1])).not.toBe(pid);

    // The agent was told of this error before the server stopped: the same error is not news now.
    const rewrote = textOf(
      await call(client, "write", { path: "src/b.ts", content: "export const s: string = 1;\n// note\n" }),
    );
    expect(rewrote).not.toMatch(/2322/);
    expect(rewrote).toMatch(/Diagnostics after this write: /);
  });

  it("a request in flight when the idle time passes is not cut off: the server is stopped only after it ends", async () => {
    const workdir = await workdirWith({ "fake.toml": "", "a.fake": "one\ntwo\n" });
    const fake = fakeServer("hang");
    const run = track(
      await createRun({
        workdir,
        approver: "always",
        lsp: { servers: [fake], idleSeconds: 1, timeouts: { requestMs: 2500 } },
      }),
    );
    const client = await run.link({ surface: "full" });
    const hung = await call(client, "lsp", { action: "definition", file: "a.fake", line: 1, symbol: "one" });
    expect(textOf(hung)).toMatch(
      /^fake did not answer textDocument\/definition within 2500 ms; the request was cancelled/,
    );
    await statusUntil(client, /fake @ \.: stopped after 1 s idle/);
  });

  it("a bad idleSeconds is refused at createRun, naming the option", async () => {
    const workdir = await workdirWith({});
    await expect(createRun({ workdir, lsp: { idleSeconds: -5 } })).rejects.toThrow(
      /^lsp\.idleSeconds must be a number of seconds \(e\.g\. 600\), or 0 \/ false to never stop for idleness; got -5$/,
    );
  });
});
