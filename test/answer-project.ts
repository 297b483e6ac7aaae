/**
 * A generated project whose answers show what costs a model bytes: a signature over several lines, a name used
 * twice on one line, a call in the middle of a long line, a docstring with markdown and indentation, a long hover,
 * a name only in a comment. Python (pyright) and TypeScript (tsgo); the answers bench and tests/answers use it.
 */
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

const USERS = 6;

function pythonFiles(): Record<string, string> {
  const files: Record<string, string> = {
    "py/pyproject.toml": '[project]\nname = "shop"\nversion = "0"\n',
    "py/shop/__init__.py": "",
    "py/tally.py": [
      "def tally(prices: list[int]) -> int:",
      "    total = 0",
      "    for price in prices:",
      "        total += price",
      "    return total",
      "",
      "",
      'print("total", tally([250, 1200, 75]))',
      "",
    ].join("\n"),
    "py/shop/cookies.py": [
      "class Jar:",
      '    """A jar of cookies."""',
      "",
      "    def __init__(self) -> None:",
      "        self.items: dict[str, str] = {}",
      "",
      "",
      "def merge_cookies(",
      "    cookiejar: Jar,",
      "    cookies: dict[str, str],",
      ") -> Jar:",
      '    """Merges cookies into a jar.',
      "",
      "    :param cookiejar: the jar to merge into, with allow_redirects kept.",
      "    :param cookies: the cookies_to_add, by name.",
      "",
      "    Example:",
      '        jar = merge_cookies(Jar(), {"a": "b"})',
      "    :rtype: Jar",
      '    """',
      "    for name, value in cookies.items():",
      "        cookiejar.items[name] = value",
      "    return cookiejar",
      "",
      "",
      "def long_doc() -> int:",
      `    """${Array.from({ length: 40 }, (_, i) => `Line ${i + 1} of a long story about the function.`).join("\n    ")}`,
      '    """',
      "    return 1",
      "",
      "",
      "def pair(a: Jar, b: Jar) -> tuple[Jar, Jar]:",
      "    # see merge_cookies for how jars combine",
      "    return a, b",
      "",
    ].join("\n"),
  };
  for (let i = 0; i < USERS; i++) {
    const padding = "x".repeat(170);
    files[`py/shop/use${i}.py`] = [
      "from shop.cookies import Jar, long_doc, merge_cookies, pair",
      "",
      "",
      `def run${i}() -> Jar:`,
      "    jar = merge_cookies(Jar(), {})",
      "    first, second = pair(Jar(), Jar())",
      `    label = {"${padding}": 1, "value": merge_cookies(first, {"k": "v"}), "n": long_doc()}`,
      "    return merge_cookies(jar, {})",
      "",
    ].join("\n");
  }
  return files;
}

function typescriptFiles(): Record<string, string> {
  const files: Record<string, string> = {
    "ts/package.json": '{ "name": "shop", "type": "module" }\n',
    "ts/tsconfig.json": JSON.stringify({
      compilerOptions: { strict: true, module: "nodenext", target: "es2022" },
    }),
    "ts/src/cookies.ts": [
      "export class Jar {",
      "  readonly items = new Map<string, string>();",
      "}",
      "",
      "/**",
      " * Merges cookies into a jar, keeping `allow_redirects`.",
      " *",
      " * @param cookiejar the jar to merge into",
      " * @param cookies the cookies to add, by name",
      " */",
      "export function mergeCookies(",
      "  cookiejar: Jar,",
      "  cookies: Record<string, string>,",
      "): Jar {",
      "  for (const [name, value] of Object.entries(cookies)) cookiejar.items.set(name, value);",
      "  return cookiejar;",
      "}",
      "",
      "// pair: see mergeCookies for how jars combine",
      "export function pair(a: Jar, b: Jar): [Jar, Jar] {",
      "  return [a, b];",
      "}",
      "",
    ].join("\n"),
  };
  for (let i = 0; i < USERS; i++) {
    const padding = "x".repeat(170);
    files[`ts/src/use${i}.ts`] = [
      'import { Jar, mergeCookies, pair } from "./cookies.js";',
      "",
      `export function run${i}(): Jar {`,
      "  const jar = mergeCookies(new Jar(), {});",
      "  const [first] = pair(new Jar(), new Jar());",
      `  const label = { "${padding}": 1, value: mergeCookies(first, { k: "v" }) };`,
      "  void label;",
      "  return mergeCookies(jar, {});",
      "}",
      "",
    ].join("\n");
  }
  return files;
}

/** Writes the project into a fresh folder and returns it (the caller removes it). */
export async function answerProject(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "runbound-answers-"));
  for (const [name, content] of Object.entries({ ...pythonFiles(), ...typescriptFiles() })) {
    await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await writeFile(path.join(dir, name), content);
  }
  return dir;
}
