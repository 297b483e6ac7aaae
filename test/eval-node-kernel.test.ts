/**
 * runbound's JavaScript kernel on the harness's Node (src/kernels/node): cells as Chrome's console runs them (state
 * kept, declared again, top-level await), imports from the workdir, TypeScript where this Node strips types, rich
 * displays, tool() through input(), interrupts that keep the state, CurveZMQ on every socket; and Deno's kernel still
 * chosen by `kernels.javascript: "deno"`.
 */
import { readFileSync, symlinkSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import module, { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRun, type Run } from "../src/index.js";
import { descendantsOf } from "../src/proc/tree.js";
import type { RunLink } from "../src/run-link.js";
import { zeromqFolder } from "../src/setup/npm.js";
import { call, HOME, suiteWorkdir, textOf, track, workdirWith } from "./helpers.js";

const label = "run a javascript cell in the node kernel";
const FILES = {
  "local.mjs": "export const rel = 'from a relative module';\n",
  "lib.cjs": "module.exports = { cjs: 'from a CommonJS file' };\n",
  "node_modules/esm-only/package.json": JSON.stringify({ name: "esm-only", exports: { import: "./i.mjs" } }),
  "node_modules/esm-only/i.mjs": "export const v = 42; export default 'the default';\n",
};

describe("eval: runbound's JavaScript kernel on Node", () => {
  let run: Run;
  let client: RunLink;
  let remove = async () => {};
  const js = async (code: string) =>
    textOf(await call(client, "eval", { code, language: "javascript", description: label }));

  beforeAll(async () => {
    const made = await suiteWorkdir(FILES);
    remove = made.remove;
    run = await createRun({
      workdir: made.dir,
      approver: "always",
      lsp: false,
      kernels: { idleSeconds: 3, interruptGraceSeconds: 3 },
    });
    client = await run.link({ surface: "full" });
  });
  afterAll(async () => {
    await run?.dispose();
    await remove();
  });

  it("keeps a cell's declarations, lets them be declared again, and awaits at the top level", async () => {
    expect(await js("const x = 41; let list = [1, 2, 3]")).toBe("(no output)");
    expect(await js("x + 1")).toBe("42");
    expect(await js("const x = 'again'; x")).toBe("'again'");
    expect(
      await js("const later = await new Promise((r) => setTimeout(() => r(7), 20)); later * list.length"),
    ).toBe("21");
    expect(await js("console.log('out'); console.error('err'); ({ a: 1, nested: { b: [1, 2] } })")).toBe(
      "out\nerr\n{ a: 1, nested: { b: [ 1, 2 ] } }",
    );
  });

  it("imports from the workdir — a package with only an import condition, a relative module, require() — and leaves `import` in a string alone", async () => {
    expect(await js("import fallback, { v } from 'esm-only'; [fallback, v]")).toBe("[ 'the default', 42 ]");
    expect(await js("import * as local from './local.mjs'; local.rel")).toBe("'from a relative module'");
    expect(await js("(await import('./local.mjs')).rel")).toBe("'from a relative module'");
    expect(await js("require('./lib.cjs').cjs")).toBe("'from a CommonJS file'");
    expect(await js("'import x from \"y\"' // import('z')")).toBe("'import x from \"y\"'");
    expect(await js("import { nothing } from 'not-installed'")).toMatch(
      /^Error \[ERR_MODULE_NOT_FOUND\]: Cannot find package 'not-installed'/,
    );
  });

  it("runs TypeScript where this Node strips types, and says V8's syntax error where it does not", async () => {
    const answer = await js(
      "enum Color { Red, Green }\nfunction pick(c: Color): string { return Color[c] }\npick(Color.Green)",
    );
    const stripper = (module as { stripTypeScriptTypes?: unknown }).stripTypeScriptTypes;
    if (stripper) expect(answer).toBe("'Green'");
    else expect(answer).toMatch(/^SyntaxError: /);
  });

  it("shows errors with their stack, rich displays as text, and images as images", async () => {
    expect(await js("function inner() { throw new RangeError('too far') }\ninner()")).toMatch(
      /^RangeError: too far\n {4}at inner \(<anonymous>:1:26\)/,
    );
    expect(await js("throw 5")).toBe("Uncaught 5");
    expect(await js("display.markdown('# Title'); display.html('<p>para</p>')")).toBe("# Title\npara");
    const png =
      "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
    const image = await call(client, "eval", {
      code: `display.png('${png}')`,
      language: "javascript",
      description: label,
    });
    expect(image.structuredContent).toMatchObject({ images: 1 });
  });

  it("tool() is awaited through the kernel's stdin, and input() is refused outside a cell that allows it", async () => {
    expect(await js("(await tool('read', { path: 'local.mjs' })).total_lines")).toBe("1");
    expect(await js("await tool('no_such_tool', {})")).toMatch(/^Error: .*no_such_tool/);
  });

  it("a cell that writes faster than it lets the kernel send ends on time; its newest output arrives, the kernel stays", async () => {
    // A run of its own, with the default idle budget: 1,000,000 lines take ~3 s here, beyond this suite's 3 s.
    const flooded = track(await createRun({ workdir: await workdirWith(), approver: "always", lsp: false }));
    const link = await flooded.link({ surface: "full" });
    const cell = (code: string) => call(link, "eval", { code, language: "javascript", description: label });
    const flood = await cell("for (let i = 0; i < 1_000_000; i++) console.log('line ' + i)");
    expect(flood.structuredContent).toMatchObject({ status: "ok" });
    expect(textOf(flood)).toMatch(/line 999999$/);
    expect(textOf(await cell("1 + 1"))).toBe("2");
  });

  it("an endless loop and an endless await are interrupted; the state stays", async () => {
    await js("const kept = 'still here'");
    const loop = await call(client, "eval", {
      code: "for (;;) {}",
      language: "javascript",
      description: label,
    });
    expect(loop.structuredContent).toMatchObject({ status: "interrupted" });
    expect(textOf(loop)).toContain("Interrupted by SIGINT");
    const wait = await call(client, "eval", {
      code: "await new Promise(() => {})",
      language: "javascript",
      description: label,
    });
    expect(wait.structuredContent).toMatchObject({ status: "interrupted" });
    expect(await js("kept")).toBe("'still here'");
  });

  it("encrypts every socket: a neighbour on the loopback without the keys hears nothing of a cell's output", async () => {
    const host = track(
      await createRun({ workdir: await workdirWith(), approver: "always", lsp: false, confine: "off" }),
    );
    const hostClient = await host.link({ surface: "full" });
    const cell = (code: string) =>
      call(hostClient, "eval", { code, language: "javascript", description: label });
    await cell("1");
    const kernel = (await descendantsOf(process.pid))
      .map((pid) => ({ pid, argv: readArgv(pid) }))
      .find(({ argv }) => argv.includes("--zeromq") && argv.at(-1)?.endsWith(".json"));
    expect(kernel).toBeDefined();
    const info = JSON.parse(readFileSync(kernel!.argv.at(-1)!, "utf8"));
    expect(info.curve_secretkey).toMatch(/^.{40}$/);
    const zmq = createRequire(path.join(zeromqFolder(HOME.home)!, "package.json"))(zeromqFolder(HOME.home)!);
    const listen = async (keys: boolean) => {
      const options = keys
        ? {
            curveServerKey: info.curve_publickey,
            curvePublicKey: info.curve_publickey,
            curveSecretKey: info.curve_secretkey,
          }
        : {};
      const socket = new zmq.Subscriber(options);
      socket.connect(`tcp://${info.ip}:${info.iopub_port}`);
      socket.subscribe();
      const heard: string[] = [];
      void (async () => {
        for await (const frames of socket) heard.push((frames as Buffer[]).map(String).join(" "));
      })().catch(() => undefined);
      return { heard, close: () => socket.close() };
    };
    const stranger = await listen(false);
    const holder = await listen(true);
    await new Promise((r) => setTimeout(r, 500));
    await cell("console.log('canary-of-the-kernel')");
    await new Promise((r) => setTimeout(r, 500));
    stranger.close();
    holder.close();
    // The key holder proves the port and the subscription; the stranger heard nothing.
    expect(holder.heard.join("\n")).toContain("canary-of-the-kernel");
    expect(stranger.heard).toEqual([]);
  });

  it("without ZeroMQ in runbound's home, the first JavaScript cell names the one command that brings it", async () => {
    const home = await mkdtemp(path.join(tmpdir(), "runbound-home-"));
    symlinkSync(HOME.venv, path.join(home, "python"));
    const bare = track(
      await createRun({ workdir: await workdirWith(), approver: "always", lsp: false, home }),
    );
    const answer = await call(await bare.link({ surface: "full" }), "eval", {
      code: "1",
      language: "javascript",
      description: label,
    });
    expect(answer.isError).toBe(true);
    expect(textOf(answer)).toContain("npx runbound setup --only node-kernel");
  });

  it('Deno\'s kernel still runs JavaScript cells with kernels.javascript "deno" (tool() answers at once there)', async () => {
    const deno = track(
      await createRun({
        workdir: await workdirWith({ "a.txt": "one\n" }),
        approver: "always",
        lsp: false,
        kernels: { javascript: "deno" },
      }),
    );
    const denoClient = await deno.link({ surface: "full" });
    const cell = (code: string) =>
      call(denoClient, "eval", { code, language: "javascript", description: label });
    expect(textOf(await cell("typeof Deno.version.deno"))).toBe('"string"');
    expect(textOf(await cell("tool('read', { path: 'a.txt' }).total_lines"))).toBe("1");
  });
});

function readArgv(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
  } catch {
    return [];
  }
}
