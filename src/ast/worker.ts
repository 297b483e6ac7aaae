/**
 * A search worker: reads, prefilters, parses and matches a share of the files on its own core, keeping the trees it
 * parsed for the run's next searches, and sends back the files that matched (with their text when asked, which the
 * match offsets refer to).
 */
import { parentPort, workerData } from "node:worker_threads";
import { ensureGrammars } from "../../grammars/index.js";
import { matchFile } from "./match.js";
import type { SearchTask, SearchTaskResult } from "./pool.js";
import { TreeCache } from "./tree-cache.js";

ensureGrammars();
const trees = new TreeCache((workerData as { treeBudget: number }).treeBudget);

parentPort?.on("message", (task: SearchTask) => {
  const result: SearchTaskResult = { id: task.id, files: [], parsed: 0, reused: 0, held: [], dropped: [] };
  try {
    for (const [i, file] of task.files.entries()) {
      const { cost, held, found } = matchFile(
        file,
        task.lang,
        task.rule,
        task.spec,
        trees,
        task.search,
        task.keep,
      );
      if (cost === "parsed") result.parsed++;
      else if (cost === "reused") result.reused++;
      if (held === true) result.held.push(i);
      else if (held === false) result.dropped.push(i);
      if (found) result.files.push(task.withText ? found : { ...found, text: "" });
    }
  } catch (error) {
    result.error = (error as Error).message;
  }
  parentPort?.postMessage(result);
});
