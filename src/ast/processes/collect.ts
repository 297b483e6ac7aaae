/**
 * Giving back the memory of trees a search process let go. A tree's memory is native: V8 sees only a small wrapper,
 * so it never collects on the trees' account, and let-go trees piled up (a 10 MB file grew the host ~1.1 GB per
 * search; 40 files of 900 KB, 2 GB per search). A search process collects once a megabyte of source's trees is let go, and
 * waits a turn of its event loop, where the trees' finalizers free them.
 */
import { setImmediate as turn } from "node:timers/promises";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import type { TreeCache } from "./tree-cache.js";

const COLLECT_AFTER_CHARS = 2 ** 20;

/** For a search process only: it turns on V8's `gc` for the whole process. */
export function collectorFor(trees: TreeCache): () => Promise<void> {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  let released = 0;
  return async () => {
    released += trees.takeReleased();
    if (released < COLLECT_AFTER_CHARS) return;
    released = 0;
    gc();
    await turn();
    await turn();
  };
}
