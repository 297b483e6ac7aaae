import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { astRun, call, textOf, workdirWith } from "./helpers.js";

const FILES = 140_000;

describe("a search that matches in very many files", () => {
  it("140,000 matched files are one answer (the files' outcomes were spread as arguments: the stack overflowed past ~125,000)", async () => {
    const workdir = await workdirWith();
    mkdirSync(path.join(workdir, "gen"));
    for (let i = 0; i < FILES; i++) writeFileSync(path.join(workdir, "gen", `m${i}.py`), `v${i} = f(${i})\n`);
    const { client } = await astRun(workdir);
    const found = await call(client, "ast_grep", { pattern: "f($A)", language: "python", max_results: 3 });
    expect(found.isError).toBeFalsy();
    expect(textOf(found).split("\n")[0]).toMatch(
      new RegExp(
        `^${FILES} matches in ${FILES} files \\(showing 3 of ${FILES}; searched ${FILES} python files under \\.`,
      ),
    );
    expect(found.structuredContent).toMatchObject({ total: FILES });
  }, 120_000);
});
