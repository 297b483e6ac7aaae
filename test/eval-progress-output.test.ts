/**
 * A cell's output as the notebook shows it. A progress bar redraws its line with `\r` (tqdm, pip, a training loop):
 * 5,000 redraws filled the 32 KB an answer keeps and pushed out what the cell printed before them. Now a carriage
 * return overwrites the line and a backspace steps back, as in a terminal and in Jupyter; `clear_output` clears the
 * text and images before it (with `wait=True`, when the next output comes), and the answer says it did.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRun, type Run } from "../src/index.js";
import type { RunLink } from "../src/run-link.js";
import { call, suiteWorkdir, textOf } from "./helpers.js";

describe("eval: progress bars and cleared output (ipykernel)", () => {
  let run: Run;
  let client: RunLink;
  let remove: () => Promise<void>;
  const cell = (code: string) =>
    call(client, "eval", { code, description: "print progress the way a progress bar does" });

  beforeAll(async () => {
    const suite = await suiteWorkdir({});
    remove = suite.remove;
    run = await createRun({ workdir: suite.dir, approver: "always", lsp: false });
    client = await run.link({ surface: "full" });
  });
  afterAll(async () => {
    await run?.dispose();
    await remove?.();
  });

  it("a line redrawn 5,000 times with \\r is its last state, and what came before it is kept", async () => {
    const result = await cell(
      [
        "import sys",
        'print("loaded 120 rows", flush=True)',
        "for i in range(5000):",
        '    sys.stderr.write(f"\\rtraining {i + 1}/5000 loss={1 / (i + 1):.4f}")',
        "    sys.stderr.flush()",
        'sys.stderr.write("\\n")',
        "sys.stderr.flush()",
        'print("accuracy 0.93")',
      ].join("\n"),
    );
    expect(textOf(result)).toBe("loaded 120 rows\ntraining 5000/5000 loss=0.0002\naccuracy 0.93");
    expect(result.structuredContent).toMatchObject({ dropped_bytes: 0 });
  });

  it("stdout printed between a stderr bar's redraws is a block of its own, not written over the bar", async () => {
    const result = await cell(
      [
        "import sys",
        'sys.stderr.write("\\rstep 1/2"); sys.stderr.flush()',
        'print("saved checkpoint", flush=True)',
        'sys.stderr.write("\\rstep 2/2\\n"); sys.stderr.flush()',
      ].join("\n"),
    );
    expect(textOf(result)).toBe("step 1/2\nsaved checkpoint\nstep 2/2");
  });

  it("a shorter redraw leaves the rest of the line, a backspace steps back, CRLF is one line end", async () => {
    const result = await cell(
      'print("downloading 100%\\rdone", end="\\r\\n")\nprint("ab\\bc")\nprint("x\\r\\ny")',
    );
    expect(textOf(result)).toBe("doneloading 100%\nac\nx\ny");
  });

  it("clear_output(wait=True) in a loop keeps the last state and says it cleared", async () => {
    const result = await cell(
      [
        "from IPython.display import clear_output",
        "for i in range(3):",
        "    clear_output(wait=True)",
        '    print(f"epoch {i}")',
      ].join("\n"),
    );
    expect(textOf(result)).toBe("(the cell cleared its output 3 times: shown is what came after)\nepoch 2");
  });

  it("clear_output clears a figure shown before it", async () => {
    const result = await cell(
      [
        "import matplotlib.pyplot as plt",
        "from IPython.display import clear_output",
        "plt.plot([1, 2, 3])",
        "plt.show()",
        "clear_output()",
        'print("replaced")',
      ].join("\n"),
    );
    expect(result.content.filter((block) => block.type === "image")).toHaveLength(0);
    expect(textOf(result)).toBe("(the cell cleared its output once: shown is what came after)\nreplaced");
  });

  it("a message of a million unterminated OSC openers is cleaned in one pass (as one regular expression, hours)", async () => {
    // Each `ESC ]` is ended by the next ESC, and left out with its `x`; the terminator was sought from every one.
    const result = await cell(
      ["import sys", 'sys.stdout.write("\\x1b]x" * 1_000_000 + "\\ndone\\n")', "sys.stdout.flush()"].join(
        "\n",
      ),
    );
    const text = textOf(result);
    expect(text).toBe("\ndone");
  }, 60_000);
});
