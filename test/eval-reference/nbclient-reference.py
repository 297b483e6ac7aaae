"""The reference of test/eval-reference.test.ts: each notebook executed by nbclient (Jupyter's own executor) in a fresh
copy of the project, every cell's outputs summed up as a notebook shows them. argv: project, out.json, notebooks..."""
import html.parser, json, shutil, sys, tempfile, pathlib
import nbclient, nbformat

project, out, books = sys.argv[1], sys.argv[2], sys.argv[3:]


class Visible(html.parser.HTMLParser):
    """The text an HTML display shows (style and script left out)."""

    def __init__(self):
        super().__init__()
        self.parts, self.hidden = [], 0

    def handle_starttag(self, tag, attrs):
        self.hidden += tag in ("style", "script")

    def handle_endtag(self, tag):
        self.hidden -= tag in ("style", "script") and self.hidden > 0

    def handle_data(self, data):
        if not self.hidden:
            self.parts.append(data)


def shown(text):
    # A notebook shows a carriage return's redraw, not what it overwrote.
    # (\r\n is a line end: a terminal's, from `!cmd` through a pseudo-terminal, as JupyterLab reads it).
    text = text.replace("\r\n", "\n")
    return "\n".join(line.split("\r")[-1] for line in text.split("\n"))


def bundle_text(data):
    """The richest text representation a notebook renders."""
    if "text/markdown" in data:
        return data["text/markdown"]
    if "application/json" in data:
        return json.dumps(data["application/json"])
    if "text/html" in data:
        v = Visible()
        v.feed(data["text/html"])
        return " ".join(v.parts)
    if "text/latex" in data:
        return data["text/latex"]
    if any(k.startswith("image/") or k == "application/javascript" for k in data):
        return ""
    return data.get("text/plain", "")


result = {}
for book in books:
    work = tempfile.mkdtemp(prefix="nbclient-ref-")
    shutil.copytree(project, work, dirs_exist_ok=True)
    nb = nbformat.read(book, as_version=4)
    client = nbclient.NotebookClient(
        nb, kernel_name="python3", timeout=120, allow_errors=True, resources={"metadata": {"path": work}}
    )
    client.execute()
    cells = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        texts, images, error = [], 0, None
        for o in cell.outputs:
            kind = o.output_type
            if kind == "stream":
                texts.append(shown(o.text))
            elif kind in ("display_data", "execute_result"):
                images += sum(1 for k in o.data if k in ("image/png", "image/jpeg"))
                texts.append(bundle_text(o.data))
            elif kind == "error":
                error = {"name": o.ename, "value": o.evalue}
        # The kernel's environment is this process's (a layer over runbound's, as a run's kernel has one).
        text = "\n".join(texts).replace(work, "<workdir>").replace(sys.prefix, "<layer>")
        cells.append({"source": cell.source, "text": text, "images": images, "error": error})
    result[pathlib.Path(book).stem] = cells
    shutil.rmtree(work, ignore_errors=True)
json.dump(result, open(out, "w"), indent=1)
