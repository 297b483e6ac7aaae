/**
 * A confined kernel's environment is read-only to it (runbound's own, or a project's frozen .venv), yet `%pip
 * install` must work and must not download again what the environment has. Measured with pip 23.2 on numpy, which
 * runbound's environment has: a `--target` folder of the run's own re-downloaded and shadowed it; `--prefix` found it
 * "already satisfied", but on a version change began uninstalling it from the read-only environment. A virtual
 * environment of the run's own layered over the kernel's — its site-packages first, the kernel environment's added
 * by a .pth — has pip say "Requirement already satisfied", install a new version into the layer ("Not uninstalling
 * … outside environment"), and the import that follows load the layer's.
 *
 * The layer is made inside the place, by the kernel's own command line, so the host writes nothing in the scratch
 * folder (which the run's processes can fill with links); it lasts as long as the run. On the host, where cells could
 * write runbound's own environment, a run's install went to every run of the host: its kernels get a layer too.
 */
import { createHash } from "node:crypto";
import path from "node:path";
import { environmentLayout } from "../files/python-env.js";
import type { Place } from "../proc/place.js";

/**
 * Makes the layer when it is missing (pyvenv.cfg last: a layer without it is incomplete), then runs its python with
 * its bin and the kernel environment's first on the PATH. $1 layer, $2 base interpreter, $3 site-packages folder
 * (relative), $4 the .pth's text, $5 pyvenv.cfg's text, $6 the kernel environment's bin; the rest is python's.
 */
const LAYER = `set -e
layer=$1 base=$2 site=$3 pth=$4 config=$5 envbin=$6
shift 6
if [ ! -f "$layer/pyvenv.cfg" ]; then
  mkdir -p "$layer/bin" "$layer/$site"
  printf '%s' "$pth" > "$layer/$site/_runbound_environment.pth"
  ln -sfn "$base" "$layer/bin/python"
  ln -sfn python "$layer/bin/python3"
  for name in pip pip3; do
    printf '#!/bin/sh\\nexec "$(dirname "$0")/python" -m pip "$@"\\n' > "$layer/bin/$name"
    chmod 755 "$layer/bin/$name"
  done
  printf '%s' "$config" > "$layer/pyvenv.cfg"
fi
export PATH="$layer/bin:$envbin:$PATH" VIRTUAL_ENV="$layer"
exec "$layer/bin/python" "$@"`;

/**
 * The command that runs `python` with `args` in a layer of the run's own in `folder` (a host path) over its
 * environment, as the place sees it; undefined when the environment's version cannot be read.
 */
export function layeredPython(
  python: string,
  args: readonly string[],
  place: Place,
  folder: string,
): { program: string; args: string[] } | undefined {
  const layout = environmentLayout(python);
  if (!layout) return undefined;
  const at = (hostPath: string) => place.toPlace(hostPath);
  // One layer per interpreter: a run whose cells move to the project's environment gets another.
  const id = createHash("sha256").update(python).digest("hex").slice(0, 12);
  const layer = at(path.join(folder, `python-${id}`));
  // An import line, so that the environment's own .pth files (editable installs) are read as well.
  const pth = layout.sites
    .map((site) => `import site; site.addsitedir(${JSON.stringify(at(site))})\n`)
    .join("");
  const config = [
    `home = ${at(layout.home)}`,
    `include-system-site-packages = ${layout.systemSite}`,
    `version = ${layout.lib.slice("python".length)}`,
    "",
  ].join("\n");
  const site = path.posix.join("lib", layout.lib, "site-packages");
  const envbin = at(path.dirname(python));
  return {
    program: "/bin/sh",
    args: ["-c", LAYER, "runbound-kernel", layer, at(python), site, pth, config, envbin, ...args],
  };
}
