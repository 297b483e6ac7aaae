/**
 * `createRun({ install: "on-demand" })`: a call that needs a component runbound's home lacks installs it first, as
 * `npx runbound setup --only <component>` does, and its answer begins with what was installed and how long it took;
 * two calls that need it at once share one install; a failed install says so with what setup printed. Each case on a
 * home of its own (runbound's Python environment linked in, nothing else).
 */
import { existsSync, symlinkSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createRun } from "../src/index.js";
import { zeromqFolder } from "../src/setup/npm.js";
import { call, HOME, textOf, track, workdirWith } from "./helpers.js";

const label = "add two numbers in a javascript cell";

async function bareHome(): Promise<string> {
  const home = await mkdtemp(path.join(tmpdir(), "runbound-home-"));
  symlinkSync(HOME.venv, path.join(home, "python"));
  return home;
}

/** A run that installs on demand, on a bare home of its own (or `home`), and its full-surface link. */
async function onDemandRun(home?: string) {
  home ??= await bareHome();
  const run = track(
    await createRun({
      workdir: await workdirWith(),
      home,
      approver: "always",
      lsp: false,
      install: "on-demand",
    }),
  );
  return { home, client: await run.link({ surface: "full" }) };
}

const INSTALLED = (home: string) =>
  new RegExp(
    `^\\(runbound installed node-kernel into its home, ${home}, in \\d+\\.\\d s: this run allows installs on demand\\)\\n\\n2$`,
  );

describe("install: on-demand", () => {
  it("the first JavaScript cell installs the kernel's ZeroMQ, says so with its time, and runs; the next says nothing", async () => {
    const { home, client } = await onDemandRun();
    const first = await call(client, "eval", { code: "1 + 1", language: "javascript", description: label });
    expect(textOf(first)).toMatch(INSTALLED(home));
    expect(zeromqFolder(home)).toBe(path.join(home, "npm", "node_modules", "zeromq"));
    expect(
      textOf(await call(client, "eval", { code: "1 + 1", language: "javascript", description: label })),
    ).toBe("2");
  });

  it("two runs that need it at once share one install: one installed it, the other waited for it", async () => {
    const home = await bareHome();
    const clients = await Promise.all([0, 1].map(() => onDemandRun(home)));
    const answers = await Promise.all(
      clients.map(async ({ client }) =>
        textOf(await call(client, "eval", { code: "1 + 1", language: "javascript", description: label })),
      ),
    );
    const installed = answers.filter((a) => INSTALLED(home).test(a));
    const waited = answers.filter((a) =>
      /^\(waited \d+\.\d s while runbound installed node-kernel into its home, .* for another call: this run allows installs on demand\)\n\n2$/.test(
        a,
      ),
    );
    expect({ installed: installed.length, waited: waited.length }).toEqual({ installed: 1, waited: 1 });
  });

  it("a language server: typescript-language-server with TypeScript 6 comes with the first hover", async () => {
    const home = await bareHome();
    const workdir = await workdirWith({
      "package.json": "{}",
      "main.ts": "export const answer: number = 42;\nconsole.log(answer);\n",
    });
    const run = track(
      await createRun({
        workdir,
        home,
        approver: "always",
        lsp: { typescript: "typescript-language-server" },
        install: "on-demand",
      }),
    );
    const answer = textOf(
      await call(await run.link({ surface: "readonly" }), "lsp", {
        action: "hover",
        file: "main.ts",
        line: 2,
        symbol: "answer",
      }),
    );
    expect(answer).toMatch(
      new RegExp(
        `^\\(runbound installed typescript6 into its home, ${home}, in \\d+\\.\\d s: this run allows installs on demand\\)\\n\\n`,
      ),
    );
    expect(answer).toContain("const answer: number");
    expect(existsSync(path.join(home, "npm", "node_modules", "typescript-language-server"))).toBe(true);
  });

  it("a failed install says so, with what setup printed and the command to see why; nothing else is changed", async () => {
    const { home, client } = await onDemandRun();
    // Nowhere to install from: npm's registry is a closed port, tried once, and an empty cache cannot answer instead.
    const unreachable: Record<string, string> = {
      npm_config_registry: "http://127.0.0.1:9/",
      npm_config_fetch_retries: "0",
      npm_config_cache: await mkdtemp(path.join(tmpdir(), "runbound-npm-cache-")),
    };
    const saved = Object.fromEntries(Object.keys(unreachable).map((key) => [key, process.env[key]]));
    Object.assign(process.env, unreachable);
    try {
      const failed = await call(client, "eval", {
        code: "1 + 1",
        language: "javascript",
        description: label,
      });
      expect(failed.isError).toBe(true);
      expect(textOf(failed)).toMatch(
        /^runbound tried to install node-kernel on demand and it failed after \d+\.\d s \(exit 1; it printed:\n[\s\S]+\)\. Install it yourself to see why: npx runbound setup --only node-kernel; then call again\.$/,
      );
      expect(zeromqFolder(home)).toBeUndefined();
    } finally {
      for (const [key, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
  });

  it("an install policy that is neither never nor on-demand is refused by createRun", async () => {
    await expect(
      createRun({ workdir: await workdirWith(), lsp: false, install: "always" as never }),
    ).rejects.toThrow('createRun: install is "never" (the default) or "on-demand", not "always"');
  });
});
