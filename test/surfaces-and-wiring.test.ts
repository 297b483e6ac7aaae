import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createRun, defineTool, ProgrammaticQuestionPort, type RunOptions, VERSION } from "../src/index.js";
import { call, textOf, toolNames, track, treeOf, workdirWith } from "./helpers.js";

const everything = async () => {
  const workdir = await workdirWith({ "a.txt": "alpha\n" });
  const run = track(
    await createRun({
      workdir,
      conversationId: "c1",
      questions: new ProgrammaticQuestionPort(),
      approver: "always",
    }),
  );
  return { workdir, run };
};

describe("each surface lists the tools its tier allows", () => {
  it("full lists read, write and exec tiers; plan and readonly list tier read only", async () => {
    const { run } = await everything();
    expect(await toolNames(await run.link({ surface: "full" }))).toEqual([
      "apply_patch",
      "ask_user",
      "ast_edit",
      "ast_grep",
      "debug",
      "edit",
      "eval",
      "lsp",
      "lsp_rename",
      "notebook",
      "notebook_edit",
      "notebook_run",
      "read",
      "resolve",
      "write",
    ]);
    expect(await toolNames(await run.link({ surface: "plan" }))).toEqual([
      "ask_user",
      "ast_grep",
      "lsp",
      "notebook",
      "read",
    ]);
    expect(await toolNames(await run.link({ surface: "readonly" }))).toEqual([
      "ask_user",
      "ast_grep",
      "lsp",
      "notebook",
      "read",
    ]);
  });

  it("marks read-tier tools read-only and write-tier tools destructive for the client", async () => {
    const { run } = await everything();
    const { tools } = await (await run.link({ surface: "full" })).listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t.annotations]));
    expect(byName.read).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(byName.write).toMatchObject({ readOnlyHint: false, destructiveHint: true });
  });

  it("refuses a misspelled or unknown createRun option by name, with the list of real ones, starting nothing", async () => {
    const workdir = await workdirWith({ "a.txt": "alpha\n" });
    await expect(
      createRun({ workdir, grammars: { maxFileKB: 4 }, lsp: false } as unknown as RunOptions),
    ).rejects.toThrow(
      /^createRun: unknown option "grammars"; the options are workdir, .*\bast\b.*, sandbox, container$/,
    );
  });

  it("rejects an unknown surface with the list of real ones", async () => {
    const { run } = await everything();
    await expect(run.link({ surface: "admin" as never })).rejects.toThrow(
      /unknown surface "admin"; use one of full, plan, readonly/,
    );
  });
});

describe("a crafted call for a tool the surface does not list is refused at dispatch", () => {
  for (const surface of ["plan", "readonly"] as const) {
    it(`${surface}: write, edit and apply_patch are refused and nothing changes on disk`, async () => {
      const { run, workdir } = await everything();
      const client = await run.link({ surface });
      const before = await treeOf(workdir);
      const attempts = [
        ["write", { path: "b.txt", content: "x" }],
        ["edit", { path: "a.txt", old_string: "alpha", new_string: "beta" }],
        ["apply_patch", { patch: "*** Begin Patch\n*** Delete File: a.txt\n*** End Patch" }],
      ] as const;
      for (const [name, args] of attempts) {
        const result = await call(client, name, args);
        expect(result.isError).toBe(true);
        expect(textOf(result)).toContain(`${name} is not available on the ${surface} surface`);
      }
      expect(await treeOf(workdir)).toEqual(before);
    });
  }

  it("a bridged call (kernel tool(), worker) from plan is refused the same way", async () => {
    const { run, workdir } = await everything();
    const result = await run.callTool(
      "write",
      { path: "b.txt", content: "x" },
      { surface: "plan", caller: "bridge" },
    );
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(
      "write is not available on the plan surface (plan mode: tier read only); write is tier write. Use the tools this surface lists.",
    );
    expect(await treeOf(workdir)).toEqual({ "a.txt": "alpha\n" });
  });

  it("an unknown tool name is answered with what the surface has", async () => {
    const { run } = await everything();
    const result = await call(await run.link({ surface: "plan" }), "bash", { command: "ls" });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(
      'There is no tool named "bash". This surface has: read, ask_user, lsp, ast_grep, notebook.',
    );
  });
});

describe("registration follows wiring", () => {
  it("lsp: false leaves out lsp; it is wired by default (no server starts until a call needs one)", async () => {
    const workdir = await workdirWith();
    const off = track(await createRun({ workdir, lsp: false }));
    const on = track(await createRun({ workdir }));
    expect(off.tools("full")).not.toContain("lsp");
    expect(on.tools("full")).toContain("lsp");
    expect(on.processes.running()).toEqual([]);
  });

  it("files: false leaves out read, write, edit and apply_patch, and says why when one is called", async () => {
    const workdir = await workdirWith();
    const run = track(
      await createRun({
        workdir,
        conversationId: "c1",
        files: false,
        lsp: false,
        ast: false,
        debug: false,
        kernels: false,
        approver: "always",
      }),
    );
    const client = await run.link({ surface: "full" });
    expect(await toolNames(client)).toEqual([]);
    const result = await call(client, "read", { path: "x" });
    expect(textOf(result)).toBe(
      "read is not available in this run: it needs files (createRun({ files: false })), which the harness did not wire. This surface has: no tools.",
    );
  });

  it("a tool left out for want of a conversationId says so (debug, and ask_user with a port but no space)", async () => {
    const workdir = await workdirWith();
    const port = new ProgrammaticQuestionPort();
    const run = track(
      await createRun({
        workdir,
        questions: port,
        lsp: false,
        ast: false,
        kernels: false,
        approver: "always",
      }),
    );
    const client = await run.link({ surface: "full" });
    const debug = textOf(await call(client, "debug", { operation: "status" }));
    expect(debug).toMatch(
      /^debug is not available in this run: it needs debug \(createRun was given no conversationId: debug keeps one session per conversation\), which the harness did not wire\./,
    );
    const ask = textOf(await call(client, "ask_user", { questions: [] }));
    expect(ask).toMatch(
      /^ask_user is not available in this run: it needs questions \(createRun was given no conversationId or questions\.space: a card needs a place to be shown\), which the harness did not wire\./,
    );
  });

  it("ask_user needs both a question port and a target space", async () => {
    const workdir = await workdirWith();
    const port = new ProgrammaticQuestionPort();
    const noPort = track(await createRun({ workdir, conversationId: "c1" }));
    const noSpace = track(await createRun({ workdir, questions: port }));
    const explicitSpace = track(await createRun({ workdir, questions: { port, space: "room-7" } }));
    const fromConversation = track(await createRun({ workdir, conversationId: "c1", questions: port }));
    expect(noPort.tools("plan")).toEqual(["read", "lsp", "ast_grep", "notebook"]);
    expect(noSpace.tools("plan")).toEqual(["read", "lsp", "ast_grep", "notebook"]);
    expect(explicitSpace.tools("plan")).toEqual(["read", "ask_user", "lsp", "ast_grep", "notebook"]);
    expect(fromConversation.tools("plan")).toEqual(["read", "ask_user", "lsp", "ast_grep", "notebook"]);
  });

  it("registerTool refuses a harness tool whose resources are not wired", async () => {
    const workdir = await workdirWith();
    const run = track(await createRun({ workdir }));
    const needsQuestions = defineTool({
      name: "poll",
      title: "Poll",
      tier: "read",
      needs: ["questions"],
      parallelSafe: true,
      description: "d",
      input: {},
      output: {},
      run: async () => ({ text: "", structured: {} }),
    });
    expect(() => run.registerTool(needsQuestions)).toThrow(
      "registerTool: poll needs questions, which this run did not wire",
    );
    expect(() => run.registerTool({ ...needsQuestions, name: "read", needs: [] })).toThrow(
      /already registered/,
    );
  });

  it("a harness tool registered after linking appears on the surfaces its tier allows (list_changed)", async () => {
    const workdir = await workdirWith();
    const run = track(await createRun({ workdir, approver: "always" }));
    const full = await run.link({ surface: "full" });
    const plan = await run.link({ surface: "plan" });
    let changed = 0;
    full.onToolsChanged(() => {
      changed++;
    });
    run.registerTool(
      defineTool({
        name: "deploy",
        title: "Deploy",
        tier: "exec",
        needs: [],
        parallelSafe: false,
        description: "Deploy the app.",
        input: { target: z.string() },
        output: { target: z.string() },
        run: async (args) => ({ text: `deployed to ${args.target}`, structured: { target: args.target } }),
      }),
    );
    await expect.poll(() => changed).toBe(1);
    expect(await toolNames(full)).toContain("deploy");
    expect(await toolNames(plan)).not.toContain("deploy");
    expect(textOf(await call(full, "deploy", { target: "staging" }))).toBe("deployed to staging");
    expect(textOf(await call(plan, "deploy", { target: "staging" }))).toMatch(
      /deploy is not available on the plan surface .*deploy is tier exec/,
    );
  });
});

describe("the package", () => {
  it("reports the version package.json has", () => {
    const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
      version: string;
    };
    expect(VERSION).toBe(pkg.version);
  });
});
