/**
 * Every answer has a budget: an exception's 20 MB message, a hundred large images, a page of read over long lines,
 * a cell that prints forever, and any tool's text past the gate's floor.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createRun, defineTool, type Run } from "../src/index.js";
import { call, suiteWorkdir, textOf, track, workdirWith } from "./helpers.js";

const label = "check how large this answer may be";

describe("eval answers are bounded", () => {
  let run: Run;
  let remove = async () => {};
  beforeAll(async () => {
    const suite = await suiteWorkdir({});
    remove = suite.remove;
    run = await createRun({
      workdir: suite.dir,
      approver: "always",
      lsp: false,
      kernels: { maxCellSeconds: 3 },
    });
  });
  afterAll(async () => {
    await run.dispose();
    await remove();
  });
  const cell = async (code: string) =>
    call(await run.link({ surface: "full" }), "eval", { code, description: label });

  it("an exception with a 20 MB message answers kilobytes, saying how long it was", async () => {
    const result = await cell("raise ValueError('e' * 20_000_000)");
    const text = textOf(result);
    expect(text.length).toBeLessThan(40_000);
    expect(text).toMatch(/ValueError: e{1988}… \(20,000,012 characters\)/);
    const error = (result.structuredContent as { error: { name: string; value: string } }).error;
    expect(error.name).toBe("ValueError");
    expect(error.value.length).toBeLessThan(2100);
  });

  it("a hundred 500 KB images: eight are sent, the rest counted with how to save them", async () => {
    const result = await cell(
      "import os\nfrom IPython.display import Image, display\nfor _ in range(100):\n    display(Image(data=b'\\x89PNG\\r\\n\\x1a\\n' + os.urandom(500_000), format='png'))",
    );
    const images = result.content.filter((b) => b.type === "image");
    expect(images).toHaveLength(8);
    expect(textOf(result)).toMatch(
      /\(92 more images, 4[0-9]\.\d MB, not sent: an answer carries at most 8 images and 8\.0 MB\. Save figures to files instead/,
    );
    expect(JSON.stringify(result).length).toBeLessThan(8 * 1024 * 1024);
  });

  it("a cell that prints forever is interrupted at the cell limit, and the kernel keeps its state", async () => {
    await cell("kept = 41");
    const result = await cell(
      "import time\nwhile True:\n    print('still here', flush=True)\n    time.sleep(0.1)",
    );
    expect(textOf(result)).toContain(
      "The cell was interrupted: it ran past the cell limit (3 s), output or not. The kernel's state is kept.",
    );
    expect(textOf(await cell("kept + 1"))).toBe("42");
  });
});

describe("read pages and the gate's floor are bounded", () => {
  it("read of 10,000 lines of 2,000 characters stops its page at 100,000 characters and says where to go on", async () => {
    const workdir = await workdirWith({ "wide.txt": `${"x".repeat(2000)}\n`.repeat(10_000) });
    const run = track(await createRun({ workdir, lsp: false, kernels: false }));
    const result = await call(await run.link({ surface: "plan" }), "read", {
      path: "wide.txt",
      limit: 10_000,
    });
    const text = textOf(result);
    expect(text.length).toBeLessThan(120_000);
    expect(text).toMatch(
      /\n\(showing lines 1-50 of 10000; the page stopped at 100,000 characters; call read with offset 51 for more\)$/,
    );
    expect((result.structuredContent as { content: string }).content.length).toBeLessThan(110_000);
  });

  it("any tool's text past 200,000 characters is cut in the middle with a count, its start and end kept", async () => {
    const workdir = await workdirWith();
    const run = track(await createRun({ workdir, lsp: false, kernels: false }));
    run.registerTool(
      defineTool({
        name: "chatty",
        title: "Says a lot",
        tier: "read",
        needs: [],
        parallelSafe: true,
        description: "Answers with a megabyte of text, or fails with one.",
        input: { fail: z.boolean() },
        output: {},
        async run(args) {
          const text = `START${"y".repeat(1_000_000)}END`;
          if (args.fail) throw new Error(text);
          return { text, structured: {} };
        },
      }),
    );
    const client = await run.link({ surface: "plan" });
    for (const fail of [false, true]) {
      const text = textOf(await call(client, "chatty", { fail }));
      expect(text.length, `fail: ${fail}`).toBeLessThan(201_000);
      expect(text.startsWith(fail ? "chatty failed inside runbound: START" : "START")).toBe(true);
      expect(text).toMatch(
        /… \([\d,]+ characters cut from the middle of this answer, over its 200,000-character budget: ask for less at a time\) …/,
      );
      expect(text).toMatch(fail ? /END\. This is a fault of runbound/ : /END$/);
    }
  });
});
