import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRun } from "../src/index.js";
import { call, suiteWorkdir, textOf, watchStalls } from "./helpers.js";

/** ~10 MB of minified JavaScript on one line: 100,000 calls of f, and 4,000 of legacy among them. */
function minified(): string {
  const parts: string[] = [];
  for (let i = 0; i < 100_000; i++)
    parts.push(
      `function a${i}(x,y){var s="${"k".repeat(20)}";return f(x,y)+g(x,[1,2,3],{k:y,s:s})${i % 25 === 0 ? `+legacy(${i})` : ""};}`,
    );
  return parts.join("");
}

const MB = 2 ** 20;

const rss = () => process.memoryUsage().rss;
/** What the host may grow by, searching and staging a 10 MB file (its trees alone take ~1 GB). */
const HOST_GROWTH = 300 * MB;
/** What later searches on the threads may add to the first's: the allocator's high-water mark settles, not climbs. */
const WORKER_GROWTH = 600 * MB;

/** A run whose searches take files up to 20 MB (the default limit is 1 MB), and a full-surface client. */
async function largeFileRun(workdir: string) {
  const run = await createRun({
    workdir,
    approver: "always",
    lsp: false,
    kernels: false,
    ast: { maxFileKB: 20 * 1024 },
  });
  return { run, client: await run.link({ surface: "full" }) };
}

describe("one large file cannot take the host's memory or its event loop", () => {
  let suite: Awaited<ReturnType<typeof suiteWorkdir>>;
  beforeAll(async () => {
    suite = await suiteWorkdir({ "min.js": minified(), "small.js": "legacy(1);\n" });
  });
  afterAll(() => suite.remove());

  it("5 searches and 2 rewrites of a 10 MB minified file: the host grows < 300 MB, its event loop never stalls > 1 s, and dispose leaves nothing running", async () => {
    const { run, client } = await largeFileRun(suite.dir);
    const before = rss();
    const stalls = watchStalls();
    for (let i = 0; i < 5; i++) {
      const found = textOf(await call(client, "ast_grep", { pattern: "f($A, $B)", path: "min.js" }));
      expect(found.split("\n")[0]).toMatch(
        /^100,000 matches in 1 file \(showing 50 of 100,000;|^100000 matches/,
      );
      expect(rss() - before).toBeLessThan(HOST_GROWTH);
    }
    const dense = await call(client, "ast_edit", {
      pattern: "f($A, $B)",
      rewrite: "f($B, $A)",
      path: "min.js",
    });
    expect(textOf(dense)).toMatch(
      /^The pattern matches more than 5,001 places in 1 file, more than the 5,000/,
    );
    const staged = await call(client, "ast_edit", {
      pattern: "legacy($N)",
      rewrite: "modern($N)",
      path: "min.js",
    });
    expect(staged.structuredContent).toMatchObject({ replacements: 4000, files: [{ path: "min.js" }] });
    const id = (staged.structuredContent as { edit_id: string }).edit_id;
    expect(textOf(await call(client, "resolve", { edit_id: id, action: "accept" }))).toMatch(
      /^Applied edit_\d+: 4000 replacements/,
    );
    // Parsing the file in the host holds its event loop ~3 s a search; done in a search process, the host's own
    // work here is ≤ 20 ms alone, and 110–116 ms was seen with the suite's other files on both cores (the main
    // thread's share of garbage collection grows when the collector's threads wait for a core).
    expect(stalls.stop()).toBeLessThan(1000);
    expect(rss() - before).toBeLessThan(HOST_GROWTH);
    const written = await readFile(path.join(suite.dir, "min.js"), "utf8");
    expect(written.split("modern(").length - 1).toBe(4000);
    expect(written.includes("legacy(")).toBe(false);
    await run.dispose();
    expect(run.processes.running()).toEqual([]);
    expect(rss() - before).toBeLessThan(HOST_GROWTH);
  }, 240_000);

  it("a search process the system ends (out of memory) is an answer that says so; the run goes on", async () => {
    const { run, client } = await largeFileRun(suite.dir);
    const answer = call(client, "ast_grep", { pattern: "f($A, $B)", path: "min.js" });
    let searcher: number | undefined;
    while (searcher === undefined) {
      await new Promise((r) => setTimeout(r, 50));
      searcher = run.processes.running().find((p) => p.label === "a search of large files")?.pid;
    }
    process.kill(searcher, "SIGKILL");
    const result = await answer;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(
      /^The search of min\.js \(\d+\.\d MB\) was ended by the system \(SIGKILL: most often, out of memory\); the host and the run are unaffected, nothing was answered\. Leave that file out with a narrower `path` \(a harness can lower ast\.maxFileKB to skip files this large\)\.$/,
    );
    expect(textOf(await call(client, "ast_grep", { pattern: "legacy($N)", path: "small.js" }))).toMatch(
      /^1 match in 1 file/,
    );
    await run.dispose();
  }, 120_000);
});

describe("trees a search worker lets go are given back", () => {
  it("5 searches of 6 files of 900 KB, keeping no trees: the host stays within 600 MB of where the first search left it (they grew it ~0.5 GB each)", async () => {
    const chunk = minified()
      .slice(0, 900 * 1024)
      .replace(/[^}]*$/, "");
    const suite = await suiteWorkdir(
      Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`m${i}.js`, chunk])),
    );
    const run = await createRun({
      workdir: suite.dir,
      approver: "always",
      lsp: false,
      kernels: false,
      ast: { treeCacheMB: 0 },
    });
    try {
      const client = await run.link({ surface: "full" });
      const search = () => call(client, "ast_grep", { pattern: "f($A, $B)", language: "javascript" });
      expect(textOf(await search())).toMatch(/ in 6 files \(showing 50 of/);
      const first = rss();
      for (let i = 0; i < 4; i++) {
        await search();
        expect(rss() - first).toBeLessThan(WORKER_GROWTH);
      }
    } finally {
      await run.dispose();
      await suite.remove();
    }
  }, 120_000);
});
