/**
 * Output floods and messages larger than a WebSocket carries. A cell that wrote fast without a newline made
 * ipykernel send all of it as one stream message (it gathers what was written between flushes): past the WebSocket
 * client's 100 MiB limit the connection closed, the server replayed the message to the reconnecting client, which
 * closed again — the cell's answer was lost, then its kernel; a neighbour run calling meanwhile lost its own cell
 * once. runbound's Jupyter server now cuts a message to what runbound keeps and says how much it cut; a displayed
 * value, a result and an error too large to carry are cut the same way.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRun, type Run } from "../src/index.js";
import { call, suiteWorkdir, textOf } from "./helpers.js";

const label = "flood the output beside a neighbour run";

describe("eval: floods of output and messages too large to carry", () => {
  const runs: Run[] = [];
  const removes: (() => Promise<void>)[] = [];
  let cell: (i: number, code: string) => Promise<string>;
  beforeAll(async () => {
    for (let i = 0; i < 2; i++) {
      const { dir, remove } = await suiteWorkdir({});
      removes.push(remove);
      runs.push(await createRun({ workdir: dir, approver: "always", lsp: false }));
    }
    const clients = await Promise.all(runs.map((r) => r.link({ surface: "full" })));
    cell = async (i, code) => textOf(await call(clients[i]!, "eval", { code, description: label }));
  });
  afterAll(async () => {
    await Promise.all(runs.map((r) => r.dispose()));
    for (const remove of removes) await remove();
  });

  it("a 20 s flood beside a busy neighbour run, then 120 MB without a newline: all answer, the kernel keeps its state", async () => {
    expect(await cell(0, "kept = 41\nkept + 1")).toBe("42");
    expect(await cell(1, "1")).toBe("1");
    let stop = false;
    const neighbour: string[] = [];
    const busy = (async () => {
      while (!stop) neighbour.push(await cell(1, "print(sum(range(100000)))"));
    })();
    const flood = await cell(
      0,
      [
        "import sys, time",
        "start, n = time.time(), 0",
        "while time.time() - start < 20:",
        '    print("x" * 1000)',
        "    n += 1",
        'print("printed", n)',
      ].join("\n"),
    );
    // One message of 120 MB: ipykernel gathers what was written between its flushes.
    const burst = await cell(
      0,
      'import sys\nfor _ in range(2000): sys.stdout.write("y" * 60_000)\nprint()\nprint("end")',
    );
    stop = true;
    await busy;
    expect(flood).toMatch(/^\(\d+ earlier bytes of output dropped\)\nx*\n(x{1000}\n)+printed \d+$/);
    expect(burst).toMatch(/^\(119967\d{3} earlier bytes of output dropped\)\ny+\nend$/);
    expect(await cell(0, "kept")).toBe("41");
    expect(neighbour.length).toBeGreaterThan(0);
    for (const answer of neighbour) expect(answer).toBe("4999950000");
  }, 120_000);

  it("a displayed value, a result and an error of 120 MB are cut to what an answer carries, and say so", async () => {
    const html = await cell(
      0,
      'from IPython.display import HTML, display\ndisplay(HTML("x" * 120_000_000))\nprint("after")',
    );
    expect(html).toBe(
      "(text/html of 120,000,000 characters not shown: too large to carry)\n<IPython.core.display.HTML object>\nafter",
    );
    const result = await cell(0, '"z" * 120_000_000');
    expect(result).toMatch(/^\(1199\d{5} earlier bytes of output dropped\)\nz+'$/);
    const error = await cell(0, 'raise ValueError("v" * 120_000_000)');
    expect(error).toMatch(/ValueError: v{1988}… \(120,000,012 characters\)/);
    expect(await cell(0, "kept")).toBe("41");
  }, 120_000);
});
