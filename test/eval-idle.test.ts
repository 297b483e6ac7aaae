/**
 * `kernels: { stopIdleSeconds }`: a kernel without a cell for that long is shut down, and the next cell's answer
 * says its state is gone and why; a cell that runs longer than that is never cut off; a bad value is refused.
 */
import { describe, expect, it } from "vitest";
import { createRun } from "../src/index.js";
import { call, textOf, track, workdirWith } from "./helpers.js";

const label = "a cell for the idle kernel tests";

describe("idle kernels", () => {
  it("a kernel idle for stopIdleSeconds is shut down; the next cell says the state was dropped and why; a long cell is not cut off", async () => {
    const run = track(
      await createRun({
        workdir: await workdirWith(),
        approver: "always",
        lsp: false,
        kernels: { stopIdleSeconds: 1 },
      }),
    );
    const client = await run.link({ surface: "full" });
    const cell = async (code: string) => textOf(await call(client, "eval", { code, description: label }));
    expect(await cell("import time\nx = 41\ntime.sleep(2.5)\nx + 1")).toBe("42");
    expect(await cell("x")).toBe("41");
    await new Promise((r) => setTimeout(r, 2500));
    const after = await cell("'x' in globals()");
    expect(after).toBe(
      "(a fresh kernel: the last one was shut down after 1 s without a cell (kernels.stopIdleSeconds), so earlier state is lost)\nFalse",
    );
    expect(await cell("1 + 1")).toBe("2");
  });

  it("by default a kernel keeps its state however long it waits", async () => {
    const run = track(await createRun({ workdir: await workdirWith(), approver: "always", lsp: false }));
    const client = await run.link({ surface: "full" });
    const cell = async (code: string) => textOf(await call(client, "eval", { code, description: label }));
    expect(await cell("y = 7")).toBe("(no output)");
    await new Promise((r) => setTimeout(r, 2500));
    expect(await cell("y")).toBe("7");
  });

  it("a bad stopIdleSeconds is refused at createRun, naming the option", async () => {
    await expect(
      createRun({ workdir: await workdirWith(), kernels: { stopIdleSeconds: -1 } }),
    ).rejects.toThrow(/^kernels\.stopIdleSeconds must be a number of seconds/);
  });
});
