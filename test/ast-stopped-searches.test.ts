import { describe, expect, it } from "vitest";
import { createRun } from "../src/index.js";
import { astRun, call, textOf, watchStalls, workdirWith } from "./helpers.js";

/** A hostile file: 200 KB of parentheses nested 100,000 levels deep, and one call beside it. */
const DEEP = `const y = ${"(".repeat(100_000)}1${")".repeat(100_000)};\nrequire("b");\n`;
/**
 * A benign rule whose cost grows with the file's depth: each parenthesis looks at every one around it (on this file,
 * minutes; 20,000 levels took 24 s).
 */
const OUTSIDE_FUNCTIONS = {
  kind: "parenthesized_expression",
  not: { inside: { kind: "function_declaration", stopBy: "end" } },
};

async function deepRun(searchSeconds?: number, idleSeconds?: number) {
  const workdir = await workdirWith({ "deep.js": DEEP, "ok.js": "require('a');\n" });
  const { run, client } = await astRun(workdir, {
    ...(searchSeconds ? { searchSeconds } : {}),
    ...(idleSeconds ? { idleSeconds } : {}),
  });
  const searchers = () => run.processes.running().filter((p) => p.label === "a search process");
  return { workdir, run, client, searchers };
}

const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("a search that does not finish is stopped, and never holds the host", () => {
  it("a benign rule over a file nested 100,000 levels deep stops at ast.searchSeconds, naming the file; the host's event loop stays free and the next search answers", async () => {
    const { client, searchers } = await deepRun(3);
    await call(client, "ast_grep", { pattern: "require($M)", path: "ok.js" });
    const [idle] = searchers();
    const stalls = watchStalls();
    const stopped = await call(client, "ast_grep", { rule: OUTSIDE_FUNCTIONS, path: "deep.js" });
    expect(stalls.stop()).toBeLessThan(1000);
    expect(stopped.isError).toBe(true);
    expect(textOf(stopped)).toMatch(
      /^The search stopped after 3 s \(the run's ast\.searchSeconds\) while matching deep\.js \(196 KB\); nothing was answered\. Matching time grows with how deeply a file nests where a rule's `inside` or `has` has stopBy "end"/,
    );
    // The process that was matching is ended (native matching cannot be interrupted), and a new one answers.
    await settle(200);
    expect(searchers().map((p) => p.pid)).not.toContain(idle!.pid);
    const next = await call(client, "ast_grep", { pattern: "require($M)", language: "javascript" });
    expect(textOf(next)).toMatch(/^2 matches in 2 files/);
  }, 60_000);

  it("ast_edit is stopped alike, with nothing staged", async () => {
    const { client } = await deepRun(2);
    const stopped = await call(client, "ast_edit", {
      rule: OUTSIDE_FUNCTIONS,
      rewrite: "0",
      path: "deep.js",
    });
    expect(textOf(stopped)).toMatch(/^The search stopped after 2 s /);
    expect(textOf(await call(client, "resolve", { edit_id: "edit_1", action: "accept" }))).toMatch(/edit_1/);
  }, 60_000);

  it("a cancelled search ends the process matching for it, and the run searches on", async () => {
    const { run, searchers } = await deepRun();
    const engine = run.resource("ast")!;
    const cancel = new AbortController();
    const search = engine.search({ rule: OUTSIDE_FUNCTIONS, path: "deep.js" }, cancel.signal);
    await settle(500);
    const [matching] = searchers();
    expect(matching).toBeDefined();
    cancel.abort(new Error("cancelled by the client"));
    await expect(search).rejects.toThrow("cancelled by the client");
    await settle(200);
    expect(searchers().map((p) => p.pid)).not.toContain(matching!.pid);
    const next = await engine.search({ pattern: "require($M)", path: "ok.js" }, new AbortController().signal);
    expect(next.structured.total).toBe(1);
  }, 60_000);

  it("a search queued behind a cancelled one in the same process is answered (sent again to the process that replaces it)", async () => {
    const { run } = await deepRun();
    const engine = run.resource("ast")!;
    const cancel = new AbortController();
    const slow = engine.search({ rule: OUTSIDE_FUNCTIONS, path: "deep.js" }, cancel.signal);
    await settle(300);
    const queued = engine.search({ pattern: "require($M)", path: "deep.js" }, new AbortController().signal);
    await settle(300);
    cancel.abort(new Error("cancelled by the client"));
    await expect(slow).rejects.toThrow("cancelled by the client");
    expect((await queued).structured.total).toBe(1);
  }, 60_000);

  it("a search process that crashes is an answer naming the file; the host and the run go on", async () => {
    const { client, searchers } = await deepRun();
    const answer = call(client, "ast_grep", { rule: OUTSIDE_FUNCTIONS, path: "deep.js" });
    while (searchers().length === 0) await settle(50);
    await settle(300);
    process.kill(searchers()[0]!.pid, "SIGSEGV");
    const crashed = await answer;
    expect(crashed.isError).toBe(true);
    expect(textOf(crashed)).toMatch(
      /^The search process matching deep\.js \(196 KB\) ended \(killed by SIGSEGV\); the host and the run are unaffected, nothing was answered\./,
    );
    expect(textOf(await call(client, "ast_grep", { pattern: "require($M)", path: "ok.js" }))).toMatch(
      /^1 match in 1 file/,
    );
  }, 60_000);

  it("search processes the system ends while they match several files: the answer names them and says to search fewer (not to leave 'this one' out)", async () => {
    // Two files nested 30,000 deep (each ~1 min for the rule) and a small one: every file is in flight when the
    // processes are ended, in one task or several, so more than one file is named.
    const nested = `const y = ${"(".repeat(30_000)}1${")".repeat(30_000)};\n`;
    const workdir = await workdirWith({ "a.js": nested, "b.js": nested, "ok.js": "require('a');\n" });
    const { run, client } = await astRun(workdir);
    const searchers = () => run.processes.running().filter((p) => p.label === "a search process");
    const answer = call(client, "ast_grep", { rule: OUTSIDE_FUNCTIONS, language: "javascript" });
    while (searchers().length === 0) await settle(50);
    await settle(300);
    for (const s of searchers()) process.kill(s.pid, "SIGKILL");
    const ended = textOf(await answer);
    expect(ended).toMatch(
      /^The search of one of (a\.js|b\.js|ok\.js)(, (a\.js|b\.js|ok\.js)){1,2} \([23] files\) was ended by the system \(SIGKILL: most often, out of memory\); the host and the run are unaffected, nothing was answered\. Search a narrower `path`: fewer files at once, or without those\.$/,
    );
    expect(ended).toContain("a.js");
    expect(ended).toContain("b.js");
    expect(textOf(await call(client, "ast_grep", { pattern: "require($M)", path: "ok.js" }))).toMatch(
      /^1 match in 1 file/,
    );
  }, 60_000);

  it("a search of one file starts one search process, and none runs on the host's thread", async () => {
    const { run, searchers } = await deepRun();
    const engine = run.resource("ast")!;
    const one = await engine.search({ pattern: "require($M)", path: "ok.js" }, new AbortController().signal);
    expect(one.ranOn).toEqual(["search processes"]);
    expect(searchers()).toHaveLength(1);
  });

  it("explain shows a pattern nested 4,900 levels deep (it failed: maximum call stack), its echo cut", async () => {
    const { client } = await deepRun();
    const pattern = `${"(".repeat(4900)}$A${")".repeat(4900)}`;
    const explained = textOf(
      await call(client, "ast_grep", { pattern, explain: true, language: "javascript" }),
    );
    expect(explained).toMatch(/^`\({200}…` \(9,802 characters\) reads in javascript as /);
    expect(explained).toMatch(/… \d+ more lines of the tree/);
    expect(explained.length).toBeLessThan(6000);
  });

  it("ast.searchSeconds that is not a positive number is refused at createRun", async () => {
    const workdir = await workdirWith({});
    await expect(createRun({ workdir, ast: { searchSeconds: 0 } })).rejects.toThrow(
      /ast\.searchSeconds must be a number of seconds > 0, got 0/,
    );
  });
});

describe("search processes of an idle run end", () => {
  it("after ast.idleSeconds without a search they end with their trees; the next search starts one and parses again", async () => {
    const { run, searchers } = await deepRun(undefined, 1);
    const engine = run.resource("ast")!;
    const search = () =>
      engine.search({ pattern: "require($M)", path: "ok.js" }, new AbortController().signal);
    expect((await search()).cost).toEqual({ parsed: 1, reused: 0 });
    expect((await search()).cost).toEqual({ parsed: 0, reused: 1 });
    expect(searchers()).toHaveLength(1);
    while (searchers().length) await settle(100);
    expect((await search()).cost).toEqual({ parsed: 1, reused: 0 });
    expect(searchers()).toHaveLength(1);
  }, 30_000);

  it("ast.idleSeconds that is not a number of seconds is refused at createRun", async () => {
    const workdir = await workdirWith({});
    await expect(createRun({ workdir, ast: { idleSeconds: -1 } })).rejects.toThrow(
      /ast\.idleSeconds must be a number of seconds \(e\.g\. 600\), or 0 \/ false to never stop for idleness; got -1/,
    );
  });
});
