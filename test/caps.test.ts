/**
 * Caps: the host's (`setHostLimits`: language servers, kernels, workers over all its runs) and a run's own
 * (`lsp.maxServers`): a start over a cap is refused with what runs, whose, and what frees a place; a run's cap on
 * language servers stops the least recently used one instead, which starts again when next needed.
 */
import { afterEach, describe, expect, it } from "vitest";
import { commandBackend, createRun, hostUsage, setHostLimits } from "../src/index.js";
import { call, fakeServer, textOf, track, workdirWith, workspaceCopy } from "./helpers.js";

const label = "a cell for the caps tests";

afterEach(() => setHostLimits({}));

async function copies(n: number) {
  const made = [];
  for (let i = 0; i < n; i++) {
    const copy = await workspaceCopy();
    made.push(copy);
  }
  return made;
}

describe("the host's caps", () => {
  it("kernels: a second run's first cell over the cap is refused, naming the cap and what frees a place; after the first run ends it runs", async () => {
    setHostLimits({ kernels: 1 });
    const [a, b] = await copies(2);
    const first = track(await createRun({ workdir: a!.dir, approver: "always", lsp: false }));
    const second = track(await createRun({ workdir: b!.dir, approver: "always", lsp: false }));
    const cell = async (run: typeof first) =>
      call(await run.link({ surface: "full" }), "eval", { code: "1 + 1", description: label });
    expect(textOf(await cell(first))).toBe("2");
    expect(hostUsage().kernels).toBe(1);
    const refused = await cell(second);
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toBe(
      "Not started (python kernel): this host already runs 1 kernel, its cap (setHostLimits({ kernels: 1 })), for 1 run; none of them this run's. A run's kernels end with the run, or after `kernels.stopIdleSeconds` without a cell where the harness set it; call again then.",
    );
    await first.dispose();
    expect(textOf(await cell(second))).toBe("2");
    await Promise.all([a!.remove(), b!.remove()]);
  });

  it("language servers: a start over the cap is refused with the running ones; a crash or a stop frees its place", async () => {
    setHostLimits({ languageServers: 1 });
    const [a, b] = await copies(2);
    const first = track(await createRun({ workdir: a!.dir, approver: "always" }));
    const second = track(await createRun({ workdir: b!.dir, approver: "always" }));
    const definition = async (run: typeof first) =>
      call(await run.link({ surface: "full" }), "lsp", {
        action: "definition",
        file: "ts/src/main.ts",
        line: 4,
        symbol: "stock.add",
      });
    expect(textOf(await definition(first))).toContain("ts/src/stock.ts:11");
    const refused = await definition(second);
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(
      /^Not started \(tsgo @ ts\): this host already runs 1 language server, its cap \(setHostLimits\(\{ languageServers: 1 \}\)\), for 1 run; none of them this run's\. A language server stops by itself after `lsp\.idleSeconds`/,
    );
    await first.dispose();
    expect(textOf(await definition(second))).toContain("ts/src/stock.ts:11");
    await Promise.all([a!.remove(), b!.remove()]);
  });

  it("workers: a spawn over the cap is refused; a worker killed frees its place", async () => {
    setHostLimits({ workers: 1 });
    const [a, b] = await copies(2);
    const vibe = { fast: commandBackend("sh", ["-c", "cat > /dev/null; sleep 30"]) };
    const first = track(await createRun({ workdir: a!.dir, approver: "always", lsp: false, vibe }));
    const second = track(await createRun({ workdir: b!.dir, approver: "always", lsp: false, vibe }));
    const spawn = async (run: typeof first) =>
      call(await run.link({ surface: "full" }), "vibe_spawn", { brief: "wait a while", label: "sleeper" });
    expect((await spawn(first)).isError).toBeFalsy();
    const refused = await spawn(second);
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(
      /^Not started \(w1 "sleeper"\): this host already runs 1 worker, its cap \(setHostLimits\(\{ workers: 1 \}\)\), for 1 run; none of them this run's\./,
    );
    await call(await first.link({ surface: "full" }), "vibe_kill", { worker_id: "w1" });
    expect((await spawn(second)).isError).toBeFalsy();
    await Promise.all([a!.remove(), b!.remove()]);
  });

  it("a cap that is not a whole number > 0, or an unknown one, is refused", () => {
    expect(() => setHostLimits({ kernels: 0 })).toThrow(
      "setHostLimits: kernels must be a whole number > 0, got 0; leave it out for no cap",
    );
    expect(() => setHostLimits({ kernel: 2 } as never)).toThrow(/unknown cap `kernel`/);
  });
});

describe("a run's cap on its language servers (lsp.maxServers)", () => {
  it("a start over it stops the least recently used server, which starts again when next needed; status says why", async () => {
    const copy = await workspaceCopy();
    const run = track(await createRun({ workdir: copy.dir, approver: "always", lsp: { maxServers: 1 } }));
    const client = await run.link({ surface: "full" });
    const lsp = (args: Record<string, unknown>) => call(client, "lsp", args);
    const ts = { action: "definition", file: "ts/src/main.ts", line: 4, symbol: "stock.add" };
    const py = { action: "references", file: "python/inventory/stock.py", line: 13, symbol: "Stock" };
    expect(textOf(await lsp(ts))).toContain("ts/src/stock.ts:11");
    expect((await lsp(py)).isError).toBeFalsy();
    const status = textOf(await lsp({ action: "status" }));
    expect(status).toMatch(/tsgo @ ts: stopped to make room \(lsp\.maxServers 1\) \(starts on next use\)/);
    expect(status).toMatch(/pyright @ python: ready, pid \d+/);
    expect(textOf(await lsp(ts))).toContain("ts/src/stock.ts:11");
    const again = textOf(await lsp({ action: "status" }));
    expect(again).toMatch(
      /pyright @ python: stopped to make room \(lsp\.maxServers 1\) \(starts on next use\)/,
    );
    expect(again).toMatch(
      /tsgo @ ts: ready, pid \d+, started again \(stopped to make room \(lsp\.maxServers 1\)\)/,
    );
    await copy.remove();
  });

  it("when every running server is answering a request, a start over the cap is refused, naming them", async () => {
    const workdir = await workdirWith({
      "fake.toml": "",
      "a.fake": "one\ntwo\n",
      "tsconfig.json": "{}\n",
      "b.ts": "export const b = 1;\nexport const c = b;\n",
    });
    const fake = fakeServer("hang");
    const run = track(
      await createRun({
        workdir,
        approver: "always",
        lsp: { servers: [fake], maxServers: 1, timeouts: { requestMs: 4000 } },
      }),
    );
    const client = await run.link({ surface: "full" });
    const hung = call(client, "lsp", { action: "definition", file: "a.fake", line: 1, symbol: "one" });
    await new Promise((r) => setTimeout(r, 1000));
    const ts = { action: "definition", file: "b.ts", line: 2, symbol: "b" };
    const refused = await call(client, "lsp", ts);
    expect(textOf(refused)).toBe(
      "Not started (tsgo @ .): this run already runs 1 language server, its cap (lsp.maxServers 1), and each is answering a request (fake @ .); call again when one has answered.",
    );
    expect(textOf(await hung)).toMatch(/^fake did not answer textDocument\/definition within 4000 ms/);
    expect(textOf(await call(client, "lsp", ts))).toContain("b.ts:1");
  });

  it("a bad maxServers is refused at createRun, naming it", async () => {
    const copy = await workspaceCopy();
    await expect(createRun({ workdir: copy.dir, lsp: { maxServers: 0 } })).rejects.toThrow(
      "lsp.maxServers must be a whole number > 0, got 0; leave it out for no cap",
    );
    await copy.remove();
  });
});
