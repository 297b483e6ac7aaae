/**
 * The command line of runbound's JavaScript kernel (node/kernel.ts) for its kernelspec: the Node that runs the
 * harness, the kernel's file and the ZeroMQ package it loads. Installed, kernel.js is bundled (with acorn) beside
 * runbound's other files, which every sandbox shows; in a checkout, the source runs through tsx.
 */
import { fileURLToPath } from "node:url";

export function nodeKernelCommand(zeromq: string): { program: string; args: string[] } {
  const fromSource = import.meta.url.endsWith(".ts");
  const entry = fileURLToPath(new URL(fromSource ? "./node/kernel.ts" : "./node/kernel.js", import.meta.url));
  // Node's import-loader hook for cells and its TypeScript stripper are marked experimental: not a cell's concern.
  const quiet = "--disable-warning=ExperimentalWarning";
  const loader = fromSource ? ["--import", import.meta.resolve("tsx/esm")] : [];
  return {
    program: process.execPath,
    args: [...loader, quiet, entry, "--zeromq", zeromq, "{connection_file}"],
  };
}
