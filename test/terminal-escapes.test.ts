/**
 * Program output reaches the model without the terminal's escape sequences. Only colour codes (CSI) were taken out,
 * and only from cells: a window title, a hyperlink (OSC 8, which rich and pip print), a charset switch reached the
 * model raw from a cell, and every escape from a debuggee's output or a command worker's result.
 */
import { describe, expect, it } from "vitest";
import { programText } from "../src/dap/connection.js";
import { withoutTerminalEscapes } from "../src/files/visible.js";
import { commandBackend, createRun } from "../src/index.js";
import { call, textOf, track, workdirWith } from "./helpers.js";

const ESC = "\u001b";
const NOISY = `${ESC}]0;my title\u0007${ESC}]8;;https://example.com${ESC}\\a link${ESC}]8;;${ESC}\\ ${ESC}(Bplain ${ESC}[?25l${ESC}[1;32mgreen${ESC}[0m ${ESC}7saved${ESC}8 ${ESC}=keypad`;
const CLEAN = "a link plain green saved keypad";

describe("terminal escape sequences in program output", () => {
  it("are left out: CSI, OSC to BEL or ST, the short forms; text without ESC is returned as it is", () => {
    expect(withoutTerminalEscapes(NOISY)).toBe(CLEAN);
    expect(withoutTerminalEscapes("\u009b31mred")).toBe("red");
    const plain = "no escapes [here] ]0; at all";
    expect(withoutTerminalEscapes(plain)).toBe(plain);
  });

  it("an unterminated string sequence ends with its line, at another ESC, CAN or SUB — never at a BEL far below", () => {
    // A test runner's title escape cut short, then the failure: the failure line and those after it stay.
    const output = `${ESC}]0;pytest running\nFAILED test_x.py::test_one - assert 1 == 2\nnext line\n${ESC}]0;done\u0007ok\n`;
    expect(withoutTerminalEscapes(output)).toBe(
      "\nFAILED test_x.py::test_one - assert 1 == 2\nnext line\nok\n",
    );
    expect(withoutTerminalEscapes(`${ESC}]0;t${ESC}[31mred${ESC}[0m`)).toBe("red");
    expect(withoutTerminalEscapes(`a${ESC}]0;t\u0018b`)).toBe("ab");
    expect(withoutTerminalEscapes(`a${ESC}Pq#0;sixel\u001a b`)).toBe("a b");
    expect(withoutTerminalEscapes(`a${ESC}]8;;https://x${ESC}\\link${ESC}]8;;${ESC}\\ z`)).toBe("alink z");
    expect(withoutTerminalEscapes(`tail ${ESC}]0;unended`)).toBe("tail ");
  });

  it("from a debuggee's output", () => {
    const none = { take: () => undefined };
    expect(programText({ category: "stdout", output: `${NOISY}\n` }, "debugpy", none)).toBe(`${CLEAN}\n`);
  });

  it("from a cell on a real kernel", async () => {
    const workdir = await workdirWith();
    const run = track(await createRun({ workdir, approver: "always", lsp: false }));
    const client = await run.link({ surface: "full" });
    const code = `print(${JSON.stringify(NOISY)})`;
    const result = await call(client, "eval", {
      code,
      description: "print terminal escape sequences for the test",
    });
    expect(textOf(result)).toBe(CLEAN);
  });

  it("from a command worker's result", async () => {
    const workdir = await workdirWith();
    const noisy = commandBackend("printf", [`${ESC}]0;worker${ESC}\\\\${ESC}[32mdone${ESC}[0m\\n`]);
    const run = track(await createRun({ workdir, lsp: false, kernels: false, vibe: { fast: noisy } }));
    const client = await run.link({ surface: "full" });
    await call(client, "vibe_spawn", { brief: "print", label: "noisy" });
    const waited = textOf(await call(client, "vibe_wait", { worker_id: "w1", timeout_seconds: 10 }));
    expect(waited).toContain("done");
    expect(waited).not.toContain(ESC);
  });

  it("from a command worker that failed: its stderr and stdout as well", async () => {
    const workdir = await workdirWith();
    const failing = commandBackend("sh", [
      "-c",
      `printf '${ESC}[31mboom${ESC}[0m' >&2; printf '${ESC}]0;t${ESC}\\\\part'; exit 3`,
    ]);
    const run = track(await createRun({ workdir, lsp: false, kernels: false, vibe: { fast: failing } }));
    const client = await run.link({ surface: "full" });
    await call(client, "vibe_spawn", { brief: "fail", label: "failing" });
    const waited = textOf(await call(client, "vibe_wait", { worker_id: "w1", timeout_seconds: 10 }));
    expect(waited).toContain("boom");
    expect(waited).toContain("part");
    expect(waited).not.toContain(ESC);
  });
});
