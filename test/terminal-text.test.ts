/**
 * TerminalText, program output as a notebook shows it (a kernel's own messages are in eval-progress-output):
 * redraws, backspaces, blocks of one stream, clears — and a message far larger than what is kept, whose end is
 * interpreted and whose start is counted. A debuggee's output is kept the same way (debugpy, below).
 */
import { describe, expect, it } from "vitest";
import { TerminalText } from "../src/files/terminal-text.js";
import { createRun } from "../src/index.js";
import { call, textOf, track, workdirWith } from "./helpers.js";

const written = (...chunks: (string | [string, string])[]) => {
  const out = new TerminalText(32 * 1024);
  for (const chunk of chunks) typeof chunk === "string" ? out.write(chunk) : out.write(chunk[0], chunk[1]);
  return out;
};

describe("a cell's text output", () => {
  it("is a terminal's: a redraw overwrites, a shorter one leaves the rest, a backspace steps back, CRLF ends a line", () => {
    expect(written("10%\r20%\r30%\n").text).toBe("30%\n");
    expect(written("downloading\rdone\n").text).toBe("doneloading\n");
    expect(written("ab\bc\n", "x\r\ny").text).toBe("ac\nx\ny");
    // Across messages: the line being written goes on where the last message left it.
    expect(written("xyz", "\rA\nB\rC\n").text).toBe("Ayz\nC\n");
    expect(written("5/10", "\r", "6/10", "\n").text).toBe("6/10\n");
    // A message that begins with a line break, with a redraw after it.
    expect(written("xyz", "\nq\rr\n").text).toBe("xyz\nr\n");
    expect(written("\n\rA\nB\n").text).toBe("\nA\nB\n");
  });

  it("keeps each run of one stream apart, as Jupyter does, and a displayed value on a line of its own", () => {
    expect(written(["\rstep 1", "stderr"], ["saved\n", "stdout"], ["\rstep 2\n", "stderr"]).text).toBe(
      "step 1\nsaved\nstep 2\n",
    );
    const out = written("partial");
    out.block("42");
    expect(out.text).toBe("partial\n42\n");
  });

  it("clears when told, and with wait when the next output comes", () => {
    let images = 0;
    const out = new TerminalText(1024, () => images++);
    out.write("epoch 0\n");
    out.clear(true);
    expect(out.text).toBe("epoch 0\n");
    out.write("epoch 1\n");
    expect([out.text, out.clears, images]).toEqual(["epoch 1\n", 1, 1]);
    out.clear(false);
    expect([out.text, out.clears, out.empty]).toEqual(["", 2, true]);
  });

  it("a message far past the limit: the last 32 KB, and everything before counted", () => {
    const lines = "abcdefghi\n".repeat(10 * 2 ** 20);
    const plain = written(lines);
    expect(plain.text).toBe(lines.slice(-32 * 1024));
    expect(plain.dropped).toBe(lines.length - 32 * 1024);
    const redrawn = written("ab\rc\n".repeat(20_000_000));
    expect(redrawn.text).toBe("cb\n".repeat(20_000).slice(-32 * 1024));
    expect(redrawn.text.length + redrawn.dropped).toBeLessThanOrEqual(5 * 20_000_000);
    const bar = written(Array.from({ length: 300_000 }, (_, i) => `\rprogress ${i + 1}/300000`).join(""));
    expect(bar.text).toBe("progress 300000/300000");
  });

  it("a debuggee's progress bar is its last state in the session's output (debugpy)", async () => {
    const workdir = await workdirWith({
      "pyproject.toml": '[project]\nname = "p"\n',
      "bar.py": [
        "import sys",
        'print("start", flush=True)',
        "for i in range(3000):",
        '    sys.stdout.write(f"\\rstep {i + 1}/3000"); sys.stdout.flush()',
        'print("\\ndone", flush=True)',
        "",
      ].join("\n"),
    });
    const run = track(await createRun({ workdir, conversationId: "t", approver: "always", lsp: false }));
    const client = await run.link({ surface: "full" });
    await call(client, "debug", { operation: "launch", program: "bar.py" });
    let output = "";
    for (let i = 0; i < 50 && !/done/.test(output); i++) {
      output = textOf(await call(client, "debug", { operation: "output" }));
      if (!/done/.test(output)) await new Promise((r) => setTimeout(r, 100));
    }
    expect(output).toContain("start\nstep 3000/3000\ndone");
    expect(output).not.toContain("step 2999");
  });
});
