/**
 * lsp on Vue single-file components: typescript-language-server with Vue's TypeScript plugin in its tsserver
 * (runbound's home, the `typescript6` component), on a real Vue 3 project (vue from npm in its node_modules): hover
 * in the script and the template, definition into a .ts file, references across .vue and .ts files, diagnostics
 * on write. In an untrusted workspace a plugin the project's tsconfig names (vueCompilerOptions.plugins: the
 * project's own code, which Vue's plugin would `require`) never runs; trusted, it does — what trust means.
 */
import { execFileSync } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRun, type Run } from "../src/index.js";
import type { RunLink } from "../src/run-link.js";
import { call, suiteWorkdir, textOf } from "./helpers.js";

const APP = [
  '<script setup lang="ts">',
  'import { ref } from "vue";',
  'import { total } from "./util";',
  "",
  "const prices = ref<number[]>([3, 4]);",
  "const sum = total(prices.value);",
  "const label: string = String(sum);",
  "</script>",
  "",
  "<template>",
  "  <p>{{ sum }} {{ label }}</p>",
  '  <button @click="prices.push(1)">add</button>',
  "</template>",
  "",
].join("\n");

const FILES = {
  "package.json": JSON.stringify({ name: "vue-shop", private: true, type: "module" }),
  "tsconfig.json": JSON.stringify({
    compilerOptions: { target: "es2022", module: "esnext", moduleResolution: "bundler", strict: true },
    include: ["src/**/*.ts", "src/**/*.vue"],
    // Vue's plugin `require`s these: the project's code.
    vueCompilerOptions: { plugins: ["./plugin.cjs"] },
  }),
  "plugin.cjs":
    'require("node:fs").writeFileSync(require("node:path").join(__dirname, "PLUGIN-RAN"), "");\nmodule.exports = [];\n',
  "src/util.ts":
    "export function total(prices: number[]): number {\n  return prices.reduce((a, b) => a + b, 0);\n}\n",
  "src/App.vue": APP,
  "src/main.ts":
    'import { createApp } from "vue";\nimport App from "./App.vue";\nimport { total } from "./util";\n\ncreateApp(App).mount("#app");\nconsole.log(total([1]));\n',
};

describe("lsp on .vue files: typescript-language-server with Vue's TypeScript plugin", () => {
  let dir: string;
  let remove: () => Promise<void>;
  let run: Run;
  let client: RunLink;
  const lsp = async (args: Record<string, unknown>) => textOf(await call(client, "lsp", args));
  const ran = () => existsSync(path.join(dir, "PLUGIN-RAN"));

  beforeAll(async () => {
    ({ dir, remove } = await suiteWorkdir(FILES));
    // A Vue project has vue in its node_modules (the plugin reads its version; the template's types come from it).
    execFileSync("npm", ["install", "--ignore-scripts", "--no-audit", "--no-fund", "vue@3.5.45"], {
      cwd: dir,
      stdio: "ignore",
    });
    run = await createRun({ workdir: dir, conversationId: "vue", approver: "always" });
    client = await run.link({ surface: "full" });
  }, 120_000);
  afterAll(async () => {
    await run?.dispose();
    await remove?.();
  });

  it("hover in the script and in the template", async () => {
    expect(await lsp({ action: "hover", file: "src/App.vue", line: 6, symbol: "sum" })).toMatch(
      /const sum: number/,
    );
    expect(await lsp({ action: "hover", file: "src/App.vue", line: 11, symbol: "label" })).toMatch(
      /label: string/,
    );
  });

  it("definition into the .ts file it imports; references across .vue and .ts files", async () => {
    expect(await lsp({ action: "definition", file: "src/App.vue", line: 6, symbol: "total" })).toMatch(
      /^src\/util\.ts:1 {2}export function total\(prices: number\[\]\): number \{/m,
    );
    const references = await lsp({ action: "references", file: "src/App.vue", line: 6, symbol: "total" });
    expect(references).toMatch(/^5 references in 3 files:/);
    for (const file of ["src/App.vue", "src/main.ts", "src/util.ts"]) expect(references).toContain(file);
  });

  it("diagnostics on write: a type error in the script is reported, its fix counted as resolved", async () => {
    const broken = textOf(
      await call(client, "edit", {
        path: "src/App.vue",
        old_string: "const label: string = String(sum);",
        new_string: "const label: string = sum;",
      }),
    );
    expect(broken).toMatch(/src\/App\.vue:7 error: Type 'number' is not assignable to type 'string'/);
    const fixed = textOf(
      await call(client, "edit", {
        path: "src/App.vue",
        old_string: "const label: string = sum;",
        new_string: "const label: string = String(sum);",
      }),
    );
    expect(fixed).toMatch(/^Diagnostics after this write: nothing new\.\n1 earlier diagnostic resolved\.$/m);
  });

  it("untrusted: the plugin the project's tsconfig names never runs; status says so and names the server", async () => {
    expect(ran()).toBe(false);
    const status = await lsp({ action: "status" });
    expect(status).toMatch(/^ {2}vue @ \.: ready/m);
    expect(status).toContain("Vue's TypeScript plugin loads no plugin the project's tsconfig names");
  });

  it("trusted, the same project's plugin runs: what trusting the workspace means", async () => {
    const trusted = await createRun({ workdir: dir, conversationId: "vue-trusted", trust: "workspace" });
    try {
      const linked = await trusted.link({ surface: "full" });
      textOf(await call(linked, "lsp", { action: "hover", file: "src/App.vue", line: 6, symbol: "sum" }));
      expect(ran()).toBe(true);
    } finally {
      await trusted.dispose();
      rmSync(path.join(dir, "PLUGIN-RAN"), { force: true });
    }
  });
});
