/**
 * Whether an interpreter imports the given modules, asked of a child process without holding the host's thread: a
 * Python start that imports jupyter_server takes a few hundred milliseconds, and a host runs many runs. A "yes" is
 * kept for the process; a "no" is asked again (the module may have been installed since).
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);
const known = new Set<string>();

export async function pythonImports(
  python: string,
  modules: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<boolean> {
  const key = `${python}\0${modules.join(",")}`;
  if (known.has(key)) return true;
  try {
    await run(python, ["-c", `import ${modules.join(", ")}`], { env, timeout: 60_000 });
  } catch {
    return false;
  }
  known.add(key);
  return true;
}
