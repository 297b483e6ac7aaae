/**
 * A search worker: reads, prefilters, parses and matches a share of the files on its own core, and sends back the
 * files that matched (with their text, which the match offsets refer to).
 */
import { readFileSync } from "node:fs";
import { parentPort } from "node:worker_threads";
import { parse } from "@ast-grep/napi";
import { ensureGrammars } from "../../grammars/index.js";
import { mayMatch, toMatch } from "./match.js";
import type { SearchTask, SearchTaskResult } from "./pool.js";

ensureGrammars();

parentPort?.on("message", (task: SearchTask) => {
  const result: SearchTaskResult = { id: task.id, files: [], parsed: 0 };
  try {
    for (const file of task.files) {
      let text: string;
      try {
        text = readFileSync(file.abs, "utf8");
      } catch {
        continue;
      }
      if (!mayMatch(text, task.spec)) continue;
      result.parsed++;
      const nodes = parse(task.lang, text).root().findAll(task.rule);
      if (nodes.length) {
        const matches = nodes.map((n) => toMatch(file.rel, text, n, task.spec));
        result.files.push({ file, text: task.withText ? text : "", matches });
      }
    }
  } catch (error) {
    result.error = (error as Error).message;
  }
  parentPort?.postMessage(result);
});
