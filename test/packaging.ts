/**
 * What the packaged tests share: the tarball `npm pack` makes of the checkout, and a PATH whose node, npm and npx
 * are a given Node's, as a harness author's machine has them.
 */
import { execFile } from "node:child_process";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";

export const ROOT = path.resolve(import.meta.dirname, "..");
export const MINUTES = 60_000;
export const run = promisify(execFile);

/** How a failed `run` rejects: its exit, signal and output. */
export type ExecError = Error & {
  code?: number;
  signal?: string;
  killed?: boolean;
  stdout: string;
  stderr: string;
};

/** The checkout packed as it would be published, in a folder of its own (remove it after). */
export async function packTarball(): Promise<{ tarball: string; packDir: string }> {
  const packDir = await mkdtemp(path.join(tmpdir(), "runbound-pack-"));
  const { stdout } = await run("npm", ["pack", "--silent", "--pack-destination", packDir], {
    cwd: ROOT,
    maxBuffer: 16 * 1024 * 1024,
  });
  return { tarball: path.join(packDir, stdout.trim().split("\n").at(-1) ?? ""), packDir };
}

/** The machine's npm and npx, run by the given Node. */
const NPM_BIN = path.join(path.dirname(process.execPath), "..", "lib", "node_modules", "npm", "bin");

/** A PATH whose node, npm and npx are `node`'s, without the checkout's node_modules/.bin. */
export function environment(node: string, scratch: string): NodeJS.ProcessEnv {
  const bin = path.join(scratch, "bin");
  mkdirSync(bin, { recursive: true });
  for (const [name, cli] of [
    ["npm", "npm-cli.js"],
    ["npx", "npx-cli.js"],
  ] as const) {
    writeFileSync(path.join(bin, name), `#!/bin/sh\nexec "${node}" "${path.join(NPM_BIN, cli)}" "$@"\n`);
    chmodSync(path.join(bin, name), 0o755);
  }
  writeFileSync(path.join(bin, "node"), `#!/bin/sh\nexec "${node}" "$@"\n`);
  chmodSync(path.join(bin, "node"), 0o755);
  const rest = (process.env.PATH ?? "").split(path.delimiter).filter((d) => !d.startsWith(ROOT));
  const { VIRTUAL_ENV: _venv, npm_config_prefix: _prefix, ...env } = process.env;
  return { ...env, PATH: [bin, ...rest].join(path.delimiter), npm_config_update_notifier: "false" };
}
