/**
 * Rich displays reach the model as text: HTML as its text (tables as tables) where the plain text is only an
 * object's name — `HTML('<b>hi</b>')` answered `<IPython.core.display.HTML object>` — Markdown as Markdown, JSON as
 * JSON, SVG, LaTeX and a JavaScript display said as what they are, an object with no other representation said so.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRun, type Run } from "../src/index.js";
import { displayText, HTML_BUDGET } from "../src/kernels/displays.js";
import { call, suiteWorkdir, textOf } from "./helpers.js";

const label = "show a rich display and read it as text";

describe("eval: rich displays as text", () => {
  let run: Run;
  let remove = async () => {};
  beforeAll(async () => {
    const made = await suiteWorkdir({});
    remove = made.remove;
    run = await createRun({ workdir: made.dir, approver: "always", lsp: false });
  });
  afterAll(async () => {
    await run.dispose();
    await remove();
  });

  const cell = async (code: string, language: "python" | "javascript" = "python") =>
    textOf(await call(await run.link({ surface: "full" }), "eval", { code, language, description: label }));

  it("Python: HTML, an HTML table, Markdown, JSON, SVG, LaTeX and a bare object", async () => {
    expect(await cell("from IPython.display import HTML\nHTML('<b>hi</b> <i>there</i>')")).toBe("hi there");
    expect(
      await cell(
        "from IPython.display import HTML\nHTML('<table><tr><th>name</th><th>qty</th></tr><tr><td>apple</td><td>3</td></tr><tr><td>pear</td><td>12</td></tr></table>')",
      ),
    ).toBe("name    qty\napple   3\npear    12");
    // A pandas Styler has no plain text but its name: its HTML table is the value.
    expect(await cell("import pandas as pd\npd.DataFrame({'a': [1, 2]}).style")).toMatch(
      /^\s*a\s*\n0\s+1\s*\n1\s+2$/,
    );
    expect(await cell("from IPython.display import Markdown\nMarkdown('# Title\\n\\n- one')")).toBe(
      "# Title\n\n- one",
    );
    expect(await cell("from IPython.display import JSON\nJSON({'a': [1, 2]})")).toBe(
      '{\n  "a": [\n    1,\n    2\n  ]\n}',
    );
    expect(
      await cell(
        'from IPython.display import SVG\nSVG(\'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>\')',
      ),
    ).toMatch(/^\(an SVG image of \d+ characters, not shown\)$/);
    expect(await cell("from IPython.display import Latex\nLatex(r'$x^2$')")).toBe("(LaTeX) $x^2$");
    expect(await cell("class Point:\n    pass\nPoint()")).toMatch(
      /^<__main__\.Point at 0x[0-9a-f]+> \(the object's only representation is its name: print its attributes, or give it a __repr__\)$/,
    );
  });

  it("a DataFrame keeps its plain table; a display() of HTML in the middle of a cell's output is in its place", async () => {
    const frame = await cell("import pandas as pd\npd.DataFrame({'a': [1, 2], 'b': ['x', 'y']})");
    expect(frame).toBe("   a  b\n0  1  x\n1  2  y");
    expect(
      await cell(
        "from IPython.display import HTML, display\nprint('before')\ndisplay(HTML('<p>shown</p>'))\nprint('after')",
      ),
    ).toBe("before\nshown\nafter");
  });

  it("JavaScript: an HTML display from runbound's Node kernel", async () => {
    expect(await cell("display.html('<b>bold</b> text')", "javascript")).toBe("bold text");
  });

  it("what each representation becomes, by the rules alone", () => {
    expect(displayText({ "text/plain": "<X object>", "application/javascript": "alert(1)" }, false)).toBe(
      "(a JavaScript display, not run here)",
    );
    expect(
      displayText({ "text/plain": "<X object>", "application/vnd.jupyter.widget-view+json": {} }, false),
    ).toBe("(an interactive widget: it shows nothing outside a notebook)");
    expect(
      displayText({ "text/plain": "<IPython.core.display.Image object>", "image/png": "…" }, true),
    ).toBeUndefined();
    expect(displayText({ "text/html": "<div><style>p{}</style><script>x()</script></div>" }, false)).toBe(
      "(an HTML display with no text)",
    );
    // A cell's displays together convert at most HTML_BUDGET characters on the host's thread.
    const budget = { chars: HTML_BUDGET };
    expect(displayText({ "text/html": `<p>${"a".repeat(100_000)}</p>` }, false, [], budget)).toMatch(
      /\n\(the HTML was cut at 64,000 of 100,007 characters\)$/,
    );
    expect(displayText({ "text/html": "<p>more</p>" }, false, [], budget)).toBe(
      "(an HTML display of 11 characters, not converted: this cell's displays already used the 64,000 characters of HTML an answer converts)",
    );
  });
});
