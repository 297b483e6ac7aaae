/**
 * lsp figures, each beside its baseline from the same run:
 * - warm definition / references / hover / call_hierarchy / type_hierarchy through the `lsp` tool (link, gate,
 *   position finding, formatting) versus the raw LSP request(s) on the same server process, both after a thousand
 *   untimed calls each (and call_hierarchy's first calls too);
 * - write → new diagnostics through `edit` versus the server's own latency (didChange → pull, or → the publish of
 *   that version) on the same server;
 * - cold start to the first answer, through runbound versus a bare spawn + initialize + didOpen + request.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { createRun, defineTool } from "../../src/index.js";
import { diagnosticsOf } from "../../src/lsp/diagnostics/diagnostics.js";
import { LspSupervisor } from "../../src/lsp/server/supervisor.js";
import { ProcessTracker } from "../../src/proc/tracker.js";
import type { RunLink } from "../../src/run-link.js";
import { defaultHome } from "../../src/setup/home.mjs";

const WORKSPACE = path.resolve(import.meta.dirname, "../../examples/workspace");
const ROUNDS = 15;
const CALLS = 40;
/**
 * Calls of each side, alternating, before a warm row is timed: V8 keeps compiling both paths for the first thousand
 * or so calls, and a row timed earlier measured the compiler as much as the call (docs/lsp.md). call_hierarchy's
 * first calls stay printed as their own row.
 */
const WARMUP = 1000;

export interface BenchRow {
  name: string;
  ours: number;
  base: number;
  baseline: string;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

async function timeEach(n: number, work: (i: number) => Promise<unknown>): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < n; i++) await work(i);
  return (performance.now() - start) / n;
}

/**
 * `calls` calls per round, the sides alternating round by round; the row compares their medians. `warmup` calls of
 * each side, alternating, come first and are not timed.
 */
async function againstRaw(
  name: string,
  calls: number,
  ours: () => Promise<unknown>,
  raw: () => Promise<unknown>,
  warmup = 0,
): Promise<BenchRow> {
  for (let i = 0; i < warmup; i++) {
    await ours();
    await raw();
  }
  const a: number[] = [];
  const b: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    a.push(await timeEach(calls, ours));
    b.push(await timeEach(calls, raw));
  }
  return { name, ours: median(a), base: median(b), baseline: "raw LSP request, same server" };
}

interface Target {
  server: string;
  file: string;
  line: number;
  symbol: string;
  character: number;
  edit: { from: string; to: string };
}

const TARGETS: Target[] = [
  {
    server: "tsgo",
    file: "ts/src/main.ts",
    line: 4,
    symbol: "stock.add",
    character: 6,
    edit: { from: "return total;", to: "return totl;" },
  },
  {
    server: "gopls",
    file: "go/main.go",
    line: 7,
    symbol: "stock.Add",
    character: 7,
    edit: { from: "return total", to: "return totl" },
  },
];
const EDITED: Record<string, string> = { tsgo: "ts/src/stock.ts", gopls: "go/stock.go" };

export async function benchLsp(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const t of TARGETS) {
    const dir = await mkdtemp(path.join(tmpdir(), "runbound-bench-lsp-"));
    await cp(WORKSPACE, dir, { recursive: true });
    const run = await createRun({ workdir: dir, approver: "always" });
    // The least an MCP tool can do: forward one fixed request and answer with the raw result. Beside the raw request
    // it shows what the link and the gate cost by themselves, and the server answering a little later when the calls
    // come further apart (it idles between them).
    let forward: () => Promise<unknown> = async () => undefined;
    run.registerTool(
      defineTool({
        name: "forward",
        title: "Forward",
        tier: "read",
        needs: [],
        parallelSafe: true,
        description: "Sends one fixed LSP request and answers with its raw result.",
        input: {},
        output: {},
        run: async () => ({ text: JSON.stringify(await forward()), structured: {} }),
      }),
    );
    try {
      const client = await run.link({ surface: "full" });
      const lsp = run.resource("lsp")!;
      const file = path.join(dir, t.file);
      const tool = (action: string) =>
        client.callTool({ name: "lsp", arguments: { action, file: t.file, line: t.line, symbol: t.symbol } });
      await tool("definition"); // start and warm the server
      const { client: server } = await lsp.supervisor.clientFor(file, t.file);
      const uri = pathToFileURL(file).href;
      const position = { line: t.line - 1, character: t.character };
      const raw = {
        definition: () =>
          server.request("textDocument/definition", { textDocument: { uri }, position }, 10_000),
        references: () =>
          server.request(
            "textDocument/references",
            { textDocument: { uri }, position, context: { includeDeclaration: true } },
            10_000,
          ),
        hover: () => server.request("textDocument/hover", { textDocument: { uri }, position }, 10_000),
      };
      for (const action of ["definition", "references", "hover"] as const)
        rows.push(
          await againstRaw(`${t.server} ${action} (warm)`, CALLS, () => tool(action), raw[action], WARMUP),
        );
      rows.push(...(await benchHierarchy(t, client, server, uri, position)));
      forward = raw.definition;
      const floor = await againstRaw(
        `${t.server} definition, forwarding tool`,
        CALLS,
        () => client.callTool({ name: "forward", arguments: {} }),
        raw.definition,
        WARMUP,
      );
      rows.push({ ...floor, baseline: "raw LSP request; the tool only forwards it (the floor)" });
      rows.push(await benchWriteToDiagnostics(t, dir, client, lsp.supervisor));
    } finally {
      await run.dispose();
      await rm(dir, { recursive: true, force: true });
    }
    rows.push(await benchColdStart(t));
  }
  rows.push(...(await benchLargeProject()));
  rows.push(await benchLargeFile());
  return rows;
}

const PAIR = "raw pair of requests (prepare, then the level), same server";

/**
 * call_hierarchy (incoming, depth 1) and, where the server has it, type_hierarchy through the tool, against the
 * raw pair of requests it makes (prepare, then incomingCalls or supertypes) on the same server.
 */
async function benchHierarchy(
  t: Target,
  client: RunLink,
  server: Awaited<ReturnType<LspSupervisor["clientFor"]>>["client"],
  uri: string,
  position: { line: number; character: number },
): Promise<BenchRow[]> {
  const pair =
    (prepare: string, then: string, at: { uri: string; position: typeof position }) => async () => {
      const items = await server.request<unknown[]>(
        prepare,
        { textDocument: { uri: at.uri }, position: at.position },
        10_000,
      );
      return server.request(then, { item: items[0] }, 10_000);
    };
  const calls = {
    ours: () =>
      client.callTool({
        name: "lsp",
        arguments: { action: "call_hierarchy", file: t.file, line: t.line, symbol: t.symbol },
      }),
    raw: pair("textDocument/prepareCallHierarchy", "callHierarchy/incomingCalls", { uri, position }),
  };
  // The first calls of the action, as a run meets them, then the same once both paths are compiled.
  const first = await againstRaw(`${t.server} call_hierarchy, first calls`, CALLS, calls.ours, calls.raw);
  const rows = [
    { ...first, baseline: `raw pair of requests; the action's first ${ROUNDS * CALLS} calls` },
    {
      ...(await againstRaw(`${t.server} call_hierarchy (warm)`, CALLS, calls.ours, calls.raw, WARMUP)),
      baseline: PAIR,
    },
  ];
  if (server.capabilities.typeHierarchyProvider && t.server === "gopls") {
    const file = path.join(path.dirname(new URL(uri).pathname), "stock.go");
    const at = { uri: pathToFileURL(file).href, position: { line: 10, character: 5 } };
    rows.push({
      ...(await againstRaw(
        `${t.server} type_hierarchy (warm)`,
        CALLS,
        () =>
          client.callTool({
            name: "lsp",
            arguments: { action: "type_hierarchy", file: "go/stock.go", line: 11, symbol: "Stock" },
          }),
        pair("textDocument/prepareTypeHierarchy", "typeHierarchy/supertypes", at),
        WARMUP,
      )),
      baseline: PAIR,
    });
  }
  return rows;
}

/** An empty strict TypeScript project (package.json, tsconfig.json, src/) in a new temporary folder. */
async function tsProject(name: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), `runbound-bench-${name}-`));
  await writeFile(path.join(dir, "package.json"), `{ "name": "${name}", "type": "module" }\n`);
  await writeFile(
    path.join(dir, "tsconfig.json"),
    '{ "compilerOptions": { "strict": true, "module": "nodenext", "noEmit": true }, "include": ["src"] }\n',
  );
  const { mkdir } = await import("node:fs/promises");
  await mkdir(path.join(dir, "src"));
  return dir;
}

/** A generated TypeScript project of 300 modules that all use one function: server time dominates here. */
async function benchLargeProject(): Promise<BenchRow[]> {
  const dir = await tsProject("large");
  await writeFile(
    path.join(dir, "src/shared.ts"),
    "export function measure(values: number[]): number {\n  return values.reduce((a, b) => a + b, 0);\n}\n",
  );
  for (let i = 0; i < 300; i++) {
    await writeFile(
      path.join(dir, `src/m${i}.ts`),
      `import { measure } from "./shared.js";\nexport const total${i} = measure([${i}, ${i + 1}]);\nexport function twice${i}(): number {\n  return measure([total${i}, total${i}]);\n}\n`,
    );
  }
  const run = await createRun({ workdir: dir, approver: "always" });
  const rows: BenchRow[] = [];
  try {
    const client = await run.link({ surface: "full" });
    const args = { file: "src/m7.ts", line: 2, symbol: "measure" };
    await client.callTool({ name: "lsp", arguments: { action: "references", ...args } });
    const file = path.join(dir, args.file);
    const { client: server } = await run.resource("lsp")!.supervisor.clientFor(file, args.file);
    const uri = pathToFileURL(file).href;
    const position = { line: 1, character: 23 };
    for (const action of ["references", "definition"] as const) {
      rows.push(
        await againstRaw(
          `tsgo ${action}, 300-module project`,
          10,
          () => client.callTool({ name: "lsp", arguments: { action, ...args } }),
          () =>
            server.request(
              action === "references" ? "textDocument/references" : "textDocument/definition",
              { textDocument: { uri }, position, context: { includeDeclaration: true } },
              30_000,
            ),
        ),
      );
    }
    // 300 callers: the tree's items are ordered before the 50 shown are picked.
    const sharedUri = pathToFileURL(path.join(dir, "src/shared.ts")).href;
    const pair = async () => {
      const items = await server.request<unknown[]>(
        "textDocument/prepareCallHierarchy",
        { textDocument: { uri: sharedUri }, position: { line: 0, character: 16 } },
        30_000,
      );
      return server.request("callHierarchy/incomingCalls", { item: items[0] }, 30_000);
    };
    rows.push(
      await againstRaw(
        "tsgo call_hierarchy, 300 callers",
        10,
        () =>
          client.callTool({
            name: "lsp",
            arguments: { action: "call_hierarchy", file: "src/shared.ts", line: 1, symbol: "measure" },
          }),
        pair,
      ),
    );
  } finally {
    await run.dispose();
    await rm(dir, { recursive: true, force: true });
  }
  return rows;
}

async function benchWriteToDiagnostics(
  t: Target,
  dir: string,
  client: RunLink,
  supervisor: LspSupervisor,
): Promise<BenchRow> {
  const rel = EDITED[t.server]!;
  const file = path.join(dir, rel);
  const original = await readFile(file, "utf8");
  const broken = original.replace(t.edit.from, t.edit.to);
  const { client: server, languageId } = await supervisor.clientFor(file, rel);
  const ours: number[] = [];
  const base: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    // Through runbound: the edit call, its write, the sync and the wait for fresh diagnostics, both ways.
    ours.push(
      await timeEach(4, (i) =>
        client.callTool({
          name: "edit",
          arguments: {
            path: rel,
            old_string: i % 2 ? t.edit.to : t.edit.from,
            new_string: i % 2 ? t.edit.from : t.edit.to,
          },
        }),
      ),
    );
    // The server's own: write the file, send it, and take its diagnostics (pull, or the publish of that version).
    base.push(
      await timeEach(4, async (i) => {
        await writeFile(file, i % 2 ? original : broken);
        await diagnosticsOf(server, file, languageId, 10_000);
      }),
    );
  }
  await writeFile(file, original);
  return {
    name: `${t.server} write → new diagnostics`,
    ours: median(ours),
    base: median(base),
    baseline: "write + sync + the server's own diagnostics",
  };
}

async function benchColdStart(t: Target): Promise<BenchRow> {
  const ours: number[] = [];
  const base: number[] = [];
  for (let r = 0; r < 3; r++) {
    const dir = await mkdtemp(path.join(tmpdir(), "runbound-bench-cold-"));
    await cp(WORKSPACE, dir, { recursive: true });
    let start = performance.now();
    const run = await createRun({ workdir: dir, approver: "always" });
    const client = await run.link({ surface: "plan" });
    await client.callTool({
      name: "lsp",
      arguments: { action: "definition", file: t.file, line: t.line, symbol: t.symbol },
    });
    ours.push(performance.now() - start);
    await run.dispose();
    // Bare: the same server started, initialized, the file opened and asked, without runbound's tool around it.
    const processes = new ProcessTracker();
    const supervisor = new LspSupervisor(dir, processes, defaultHome());
    start = performance.now();
    const file = path.join(dir, t.file);
    const { client: server, languageId } = await supervisor.clientFor(file, t.file);
    const { uri } = await server.sync(file, languageId);
    await server.request(
      "textDocument/definition",
      { textDocument: { uri }, position: { line: t.line - 1, character: t.character } },
      30_000,
    );
    base.push(performance.now() - start);
    await supervisor.dispose();
    await processes.killAll();
    await rm(dir, { recursive: true, force: true });
  }
  return {
    name: `${t.server} cold start → first answer`,
    ours: median(ours),
    base: median(base),
    baseline: "bare start + initialize + open + request",
  };
}

/**
 * One generated 2.6 MB TypeScript file of 40,000 functions: what runbound does per call with the file itself (read,
 * locate the symbol outside strings and comments, the snippet) grows with its size, the server's answer hardly.
 */
async function benchLargeFile(): Promise<BenchRow> {
  const dir = await tsProject("bigfile");
  const parts: string[] = [];
  for (let i = 0; i < 40_000; i++)
    parts.push(`export function f${i}(x: number): number {\n  return x + ${i};\n}\n`);
  parts.push("export const use = f39999(1) + f5(2);\n");
  await writeFile(path.join(dir, "src/big.ts"), parts.join(""));
  const run = await createRun({ workdir: dir, approver: "always" });
  try {
    const client = await run.link({ surface: "full" });
    const args = { action: "definition", file: "src/big.ts", line: 120_001, symbol: "f39999" };
    await client.callTool({ name: "lsp", arguments: args });
    const file = path.join(dir, args.file);
    const { client: server } = await run.resource("lsp")!.supervisor.clientFor(file, args.file);
    const uri = pathToFileURL(file).href;
    return await againstRaw(
      "tsgo definition, 2.6 MB file",
      10,
      () => client.callTool({ name: "lsp", arguments: args }),
      () =>
        server.request(
          "textDocument/definition",
          { textDocument: { uri }, position: { line: 120_000, character: 20 } },
          30_000,
        ),
    );
  } finally {
    await run.dispose();
    await rm(dir, { recursive: true, force: true });
  }
}
