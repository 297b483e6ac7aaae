/**
 * Each adapter from the installed package, beside the framework it serves at its current version: the tarball and
 * the frameworks installed once into a project outside the repository (with Node 22's npm: the OpenAI Agents SDK
 * needs Node 22), then the same check run on Node 22, 24 and 26 — a plan surface lists no write or exec tool, a
 * read goes through the gate, and an eval cell cancelled by the framework's own signal ends.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { node22, node24, node26 } from "./helpers.js";
import { type ExecError, environment, MINUTES, packTarball, ROOT, run } from "./packaging.js";

/** The frameworks' versions the adapters are tested with (the checkout's devDependencies, AI SDK 7). */
const FRAMEWORKS: Record<string, string> = (() => {
  const dev = (
    JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
      devDependencies: Record<string, string>;
    }
  ).devDependencies;
  const names = [
    "@openai/agents",
    "@anthropic-ai/claude-agent-sdk",
    "@langchain/mcp-adapters",
    "@langchain/core",
  ];
  return { ...Object.fromEntries(names.map((n) => [n, dev[n] as string])), ai: "7.0.173" };
})();

interface Seen {
  writes: string[];
  read: boolean;
  cancel: string;
}

describe("the adapters from the installed package, beside their frameworks", () => {
  let packDir = "";
  let scratch = "";
  let project = "";
  let env: NodeJS.ProcessEnv = {};

  beforeAll(async () => {
    const packed = await packTarball();
    packDir = packed.packDir;
    scratch = await mkdtemp(path.join(tmpdir(), "runbound-frameworks-"));
    project = path.join(scratch, "project");
    await mkdir(project);
    writeFileSync(
      path.join(project, "package.json"),
      JSON.stringify({
        name: "frameworks",
        version: "1.0.0",
        private: true,
        type: "module",
        dependencies: FRAMEWORKS,
      }),
    );
    env = environment(node22(), scratch);
    await run(
      "npm",
      ["install", packed.tarball, "--no-audit", "--no-fund", "--prefer-offline", "--loglevel", "warn"],
      { cwd: project, env, timeout: 10 * MINUTES, maxBuffer: 64 * 1024 * 1024 },
    );
    writeFileSync(
      path.join(project, "check.mjs"),
      readFileSync(path.join(ROOT, "test/fixtures/packaged-adapters-check.mjs")),
    );
  }, 15 * MINUTES);

  afterAll(async () => {
    await rm(scratch, { recursive: true, force: true });
    await rm(packDir, { recursive: true, force: true });
  });

  it.each([
    ["22", node22],
    ["24", node24],
    ["26", node26],
  ])(
    "on Node %s: AI SDK, OpenAI Agents, Claude Agent SDK and LangChain each list, read and cancel",
    async (major, node) => {
      const { stdout } = await run(node(), ["check.mjs"], {
        cwd: project,
        env,
        timeout: 4 * MINUTES,
        maxBuffer: 16 * 1024 * 1024,
      }).catch((error: ExecError) => {
        throw new Error(`check.mjs on Node ${major}: ${error.message}\nstdout: ${error.stdout.slice(-4000)}`);
      });
      const out = JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as Record<string, Seen | string>;
      expect(out.node).toMatch(new RegExp(`^v${major}\\.`));
      for (const adapter of ["ai_sdk", "openai_agents", "claude_agent_sdk", "langchain"]) {
        const seen = out[adapter] as Seen;
        expect(seen, adapter).toEqual({
          writes: [],
          read: true,
          cancel: expect.stringMatching(/finished: false$/),
        });
      }
    },
    5 * MINUTES,
  );
});
