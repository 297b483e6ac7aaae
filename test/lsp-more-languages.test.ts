/**
 * The servers of the `language-servers` component (npm, into runbound's home) and ShellCheck: Bash, YAML, JSON,
 * CSS, HTML, Dockerfiles and PHP, each against its real server — listed by `lsp status` in a workspace with no project
 * file, and answering what it serves (definition, references, hover, symbols) and diagnostics on write.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRun, type Run } from "../src/index.js";
import type { ServerSpec } from "../src/lsp/catalog.js";
import type { RunLink } from "../src/run-link.js";
import { call, suiteWorkdir, textOf } from "./helpers.js";

const FAKE = path.resolve(import.meta.dirname, "fixtures/fake-lsp.mjs");

const FILES: Record<string, string> = {
  "build.sh": '#!/bin/bash\ngreet() {\n  echo "hello $1"\n}\ngreet world\n',
  "config.yaml": "base: &base\n  name: app\nprod:\n  <<: *base\n  port: 80\n",
  "data.json": '{\n  "name": "app",\n  "port": 80\n}\n',
  "style.css": ":root {\n  --main: red;\n}\n.title {\n  color: var(--main);\n}\n",
  "index.html":
    '<!DOCTYPE html>\n<html>\n<head><title>t</title></head>\n<body>\n<p id="main">hi</p>\n</body>\n</html>\n',
  Dockerfile: 'FROM alpine:3.20 AS base\nARG VERSION=1\nRUN echo $VERSION\nFROM base\nCMD ["sh"]\n',
  "app.php":
    '<?php\n/** Greets someone. */\nfunction greet(string $name): string {\n    return "hello " . $name;\n}\necho greet("world");\n',
};

describe("language servers beyond the five (runbound's home: npm's servers, the system's ShellCheck)", () => {
  let workdir: { dir: string; remove: () => Promise<void> };
  let run: Run;
  let link: RunLink;
  const lsp = async (args: Record<string, unknown>) => textOf(await call(link, "lsp", args));
  const write = async (path: string, content: string) => textOf(await call(link, "write", { path, content }));

  beforeAll(async () => {
    workdir = await suiteWorkdir(FILES);
    run = await createRun({ workdir: workdir.dir, approver: "always", kernels: false });
    link = await run.link({ surface: "full" });
  });
  afterAll(async () => {
    await run.dispose();
    await workdir.remove();
  });

  it("lsp status lists a server for each, without a project file (the workdir is their root)", async () => {
    const status = await lsp({ action: "status" });
    for (const id of ["bash", "yaml", "json", "css", "html", "dockerfile", "php"])
      expect(status).toMatch(new RegExp(`^ {2}${id}: can serve \\. \\(starts on first use\\)$`, "m"));
  });

  it("Bash: definition, hover, symbols; ShellCheck's findings on write", async () => {
    expect(await lsp({ action: "definition", file: "build.sh", line: 5, symbol: "greet" })).toBe(
      "build.sh:2  greet() {",
    );
    expect(await lsp({ action: "hover", file: "build.sh", line: 5, symbol: "greet" })).toMatch(
      /Function: \*\*greet\*\* - \*defined on line 2\*/,
    );
    expect(await lsp({ action: "symbols", file: "build.sh" })).toMatch(/^2 {2}greet \(function\)$/m);
    expect(await write("build.sh", "#!/bin/bash\nfor f in $(ls); do echo $f; done\n")).toMatch(
      /build\.sh:2 error: Iterating over ls output is fragile\. Use globs\. \[shellcheck SC2045\]/,
    );
  }, 60_000);

  it("YAML: an alias's definition, symbols; a syntax error on write", async () => {
    expect(await lsp({ action: "definition", file: "config.yaml", line: 4, symbol: "base" })).toMatch(
      /^config\.yaml:[12] /,
    );
    expect(await lsp({ action: "symbols", file: "config.yaml" })).toMatch(/^5 {2}prod\.port \(number\)$/m);
    expect(await write("config.yaml", "a: [1, 2\nb: 3\n")).toMatch(/config\.yaml:2 error: Flow sequence/);
  }, 60_000);

  it("JSON: symbols; a trailing comma on write", async () => {
    expect(await lsp({ action: "symbols", file: "data.json" })).toMatch(/^3 {2}port \(number\)$/m);
    expect(await write("data.json", '{\n  "name": "app",\n  "port": 80,\n}\n')).toMatch(
      /data\.json:3 error: Trailing comma/,
    );
  }, 60_000);

  it("CSS: a custom property's definition and references, hover without inlined images; an error on write", async () => {
    expect(await lsp({ action: "definition", file: "style.css", line: 5, symbol: "--main" })).toBe(
      "style.css:2  --main: red;",
    );
    expect(await lsp({ action: "references", file: "style.css", line: 2, symbol: "--main" })).toMatch(
      /2 references in 1 file/,
    );
    const hover = await lsp({ action: "hover", file: "style.css", line: 5, symbol: "color" });
    expect(hover).toMatch(/Sets the color of an element's text/);
    // The server's Baseline badge, an SVG in a data: URL, is left out.
    expect(hover).not.toMatch(/data:image/);
    expect(await write("style.css", ".a { color: ; }\n")).toMatch(
      /style\.css:1 error: property value expected/,
    );
  }, 60_000);

  it("HTML: hover on an element, symbols", async () => {
    expect(await lsp({ action: "hover", file: "index.html", line: 5, symbol: "<p" })).toMatch(
      /The p element represents a paragraph/,
    );
    expect(await lsp({ action: "symbols", file: "index.html" })).toMatch(/p#main/);
  }, 60_000);

  it("PHP (Intelephense, without composer.json): definition, hover with the doc comment, references, symbols; a syntax error on write", async () => {
    expect(await lsp({ action: "definition", file: "app.php", line: 6, symbol: "greet" })).toBe(
      "app.php:3  function greet(string $name): string {",
    );
    expect(await lsp({ action: "hover", file: "app.php", line: 6, symbol: "greet" })).toMatch(
      /Greets someone\.[\s\S]*function greet\(string \$name\): string/,
    );
    expect(await lsp({ action: "references", file: "app.php", line: 3, symbol: "greet" })).toMatch(
      /2 references in 1 file/,
    );
    expect(await lsp({ action: "symbols", file: "app.php" })).toMatch(/^3 {2}greet \(function\)$/m);
    expect(
      await write(
        "app.php",
        '<?php\nfunction greet(string $name): string {\n    return "hello " . $name\n}\n',
      ),
    ).toMatch(/app\.php:4 error: Unexpected '\}'\. Expected ';'\. \[intelephense P1001\]/);
  }, 60_000);

  it("Dockerfile (by its name): a stage's definition, hover on an instruction; a bad port on write", async () => {
    expect(await lsp({ action: "definition", file: "Dockerfile", line: 4, symbol: "base" })).toBe(
      "Dockerfile:1  FROM alpine:3.20 AS base",
    );
    expect(await lsp({ action: "hover", file: "Dockerfile", line: 3, symbol: "RUN" })).toMatch(
      /Execute any commands on top of the current image/,
    );
    expect(await write("Dockerfile", "FROM alpine\nEXPOSE notaport\n")).toMatch(
      /Dockerfile:2 error: Invalid containerPort: notaport/,
    );
  }, 60_000);
});

describe("the Python server is the harness's choice (lsp.python)", () => {
  it("basedpyright serves Python: status, hover, definition, references, symbols, diagnostics on write", async () => {
    const workdir = await suiteWorkdir({
      "pyproject.toml": '[project]\nname = "p"\nversion = "0"\n',
      "app.py": 'def greet(name: str) -> str:\n    return f"hello {name}"\n\n\nprint(greet("world"))\n',
    });
    const run = await createRun({
      workdir: workdir.dir,
      approver: "always",
      kernels: false,
      lsp: { python: "basedpyright" },
    });
    try {
      const link = await run.link({ surface: "full" });
      const lsp = async (args: Record<string, unknown>) => textOf(await call(link, "lsp", args));
      const status = await lsp({ action: "status" });
      expect(status).toMatch(/^ {2}basedpyright: can serve \. \(starts on first use\)$/m);
      // Pyright is not also started for the same files.
      expect(status).not.toMatch(/^ {2}pyright:/m);
      expect(await lsp({ action: "hover", file: "app.py", line: 5, symbol: "greet" })).toMatch(
        /def greet\(name: str\) -> str/,
      );
      expect(await lsp({ action: "definition", file: "app.py", line: 5, symbol: "greet" })).toBe(
        "app.py:1  def greet(name: str) -> str:",
      );
      expect(await lsp({ action: "references", file: "app.py", line: 1, symbol: "greet" })).toMatch(
        /2 references in 1 file/,
      );
      expect(await lsp({ action: "symbols", file: "app.py" })).toMatch(/^1 {2}greet \(function\)$/m);
      const written = textOf(
        await call(link, "write", {
          path: "app.py",
          content: "def greet(name: str) -> str:\n    return 1\n",
        }),
      );
      expect(written).toMatch(/app\.py:2 error: .*"Literal\[1\]".* \[basedpyright reportReturnType\]/);
    } finally {
      await run.dispose();
      await workdir.remove();
    }
  }, 120_000);
});

describe("servers without a project file, beside a project", () => {
  it("serve only where their files are; a project-wide check names them as checked per file, not as failed", async () => {
    const workdir = await suiteWorkdir({
      "pyproject.toml": '[project]\nname = "p"\nversion = "0"\n',
      "app.py": "print(nme)\n",
      "ci.yaml": "steps:\n  - run: test\n",
    });
    const run = await createRun({ workdir: workdir.dir, approver: "always", kernels: false });
    try {
      const link = await run.link({ surface: "full" });
      const lsp = async (args: Record<string, unknown>) => textOf(await call(link, "lsp", args));
      const status = await lsp({ action: "status" });
      expect(status).toMatch(/^ {2}yaml: can serve \. \(starts on first use\)$/m);
      // No Bash file here: bash-language-server is not offered, and status says why.
      expect(status).not.toMatch(/^ {2}bash: can serve/m);
      expect(status).toMatch(
        /^ {2}bash: no file it serves \(\.sh, \.bash\) in the workdir or a folder just below$/m,
      );
      const all = await lsp({ action: "diagnostics", file: "*" });
      expect(all).toMatch(/^Project-wide check: 1 finding in 1 file\.\n/);
      expect(all).toContain(
        "Checked per file only (no project-wide checker; pass `file`, or they report on write): yaml.",
      );
      // A workspace symbol search does not offer servers that cannot search a workspace.
      await lsp({ action: "hover", file: "app.py", line: 1, symbol: "print" });
      expect(await lsp({ action: "symbols", query: "nme" })).not.toMatch(/yaml/);
    } finally {
      await run.dispose();
      await workdir.remove();
    }
  }, 120_000);
});

describe("Svelte (svelte-language-server, from runbound's home)", () => {
  it("a component's script: definition, hover, references, symbols; a type error on write", async () => {
    const workdir = await suiteWorkdir({
      "package.json": '{ "name": "app", "type": "module" }\n',
      "svelte.config.js": "export default {};\n",
      "App.svelte":
        '<script lang="ts">\n  function greet(name: string): string {\n    return `hello ${name}`;\n  }\n  let who = greet("world");\n</script>\n\n<h1>{who}</h1>\n',
    });
    const run = await createRun({ workdir: workdir.dir, approver: "always", kernels: false });
    try {
      const link = await run.link({ surface: "full" });
      const lsp = async (args: Record<string, unknown>) => textOf(await call(link, "lsp", args));
      expect(await lsp({ action: "status" })).toMatch(/^ {2}svelte: can serve \. \(starts on first use\)$/m);
      // Untrusted (the default): the first answer says what the server leaves out.
      expect(await lsp({ action: "definition", file: "App.svelte", line: 5, symbol: "greet" })).toMatch(
        /^App\.svelte:2 {2}function greet\(name: string\): string \{\n[\s\S]*loads neither the project's svelte\.config/,
      );
      expect(await lsp({ action: "hover", file: "App.svelte", line: 5, symbol: "greet" })).toMatch(
        /\(local function\) greet\(name: string\): string/,
      );
      expect(await lsp({ action: "references", file: "App.svelte", line: 2, symbol: "greet" })).toMatch(
        /2 references in 1 file/,
      );
      expect(await lsp({ action: "symbols", file: "App.svelte" })).toMatch(
        /^2 {2}script\.greet \(function\)$/m,
      );
      const written = textOf(
        await call(link, "write", {
          path: "App.svelte",
          content: '<script lang="ts">\n  let n: number = "x";\n</script>\n\n<h1>{n}</h1>\n',
        }),
      );
      expect(written).toMatch(
        /App\.svelte:2 error: Type 'string' is not assignable to type 'number'\. \[ts 2322\]/,
      );
    } finally {
      await run.dispose();
      await workdir.remove();
    }
  }, 120_000);
});

describe("Svelte in an untrusted workspace", () => {
  it("a read-tier call never runs the project's svelte.config; trusted, the server loads it", async () => {
    for (const trust of ["untrusted", "workspace"] as const) {
      const workdir = await suiteWorkdir({
        "package.json": '{ "name": "app", "type": "module" }\n',
        // A config that leaves a mark in the workdir when it is run.
        "svelte.config.js":
          'import { writeFileSync } from "node:fs";\nwriteFileSync(new URL("./RAN", import.meta.url), "x");\nexport default {};\n',
        "App.svelte": '<script lang="ts">\n  let who: string = "world";\n</script>\n\n<h1>{who}</h1>\n',
      });
      const run = await createRun({
        workdir: workdir.dir,
        kernels: false,
        ...(trust === "workspace" ? { trust: "workspace" as const } : {}),
      });
      try {
        const link = await run.link({ surface: "plan" });
        const hover = textOf(
          await call(link, "lsp", { action: "hover", file: "App.svelte", line: 5, symbol: "who" }),
        );
        expect(hover, trust).toMatch(/who: string/);
        // Diagnostics come after the config is read: wait for them before looking for the mark.
        await call(link, "lsp", { action: "diagnostics", file: "App.svelte" });
        expect(existsSync(path.join(workdir.dir, "RAN")), trust).toBe(trust === "workspace");
      } finally {
        await run.dispose();
        await workdir.remove();
      }
    }
  }, 120_000);
});

describe("languages no server runbound can install serves (Java, Kotlin, Ruby, C#, …)", () => {
  it("lsp status names them with what a harness can do; a harness's own server (lsp.servers) then serves one", async () => {
    const files = {
      "tsconfig.json": "{}\n",
      "main.ts": "export const a = 1;\n",
      "App.java": "class App {}\n",
      "lib/build.kt": "fun main() {}\n",
      "lib/tool.rb": "def greet(name)\n  name\nend\n",
    };
    const { dir, remove } = await suiteWorkdir(files);
    try {
      const bare = await createRun({ workdir: dir, approver: "always", kernels: false });
      try {
        const status = textOf(
          await call(await bare.link({ surface: "readonly" }), "lsp", { action: "status" }),
        );
        expect(status).toContain(
          "No server runbound can install (none is published on npm, PyPI, the Go proxy, crates.io, Maven Central or Debian in a form it runs); a harness gives its own with createRun({ lsp: { servers: [...] } }):\n  Java (1 file here)\n  Kotlin (1 file here)\n  Ruby (1 file here)",
        );
      } finally {
        await bare.dispose();
      }
      // The harness brings a Ruby server (the scripted one: no real Ruby server is reachable here).
      const ruby: ServerSpec = {
        id: "harness-ruby",
        name: "the harness's Ruby server",
        languages: { ".rb": "ruby" },
        rootMarkers: [],
        candidates: [{ name: "fake-lsp", args: [FAKE, "--mode=normal"], embedded: () => process.execPath }],
        install: "the harness's own",
      };
      const served = await createRun({
        workdir: dir,
        approver: "always",
        kernels: false,
        lsp: { servers: [ruby] },
      });
      try {
        const link = await served.link({ surface: "readonly" });
        const status = textOf(await call(link, "lsp", { action: "status" }));
        expect(status).toMatch(/^ {2}harness-ruby: can serve \. \(starts on first use\)$/m);
        expect(status).not.toContain("Ruby (1 file here)");
        expect(status).toContain("  Java (1 file here)");
        const hover = textOf(
          await call(link, "lsp", { action: "hover", file: "lib/tool.rb", line: 1, symbol: "greet" }),
        );
        expect(hover).toContain("fake hover");
      } finally {
        await served.dispose();
      }
    } finally {
      await remove();
    }
  }, 120_000);
});
