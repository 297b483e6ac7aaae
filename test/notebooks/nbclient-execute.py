"""The reference of test/notebook-run.test.ts: each notebook executed by nbclient (Jupyter's own executor) in its
own folder, a fresh copy of the project, with errors allowed, and written back by nbformat as Jupyter stores it.
argv: project, out folder, notebooks... Prints a JSON map of notebook name → the folder it ran in."""
import json, os, shutil, sys, tempfile
import nbclient, nbformat

project, out, books = sys.argv[1], sys.argv[2], sys.argv[3:]
folders = {}
for book in books:
    name = os.path.basename(book)
    work = tempfile.mkdtemp(prefix="nbclient-run-")
    shutil.copytree(project, work, dirs_exist_ok=True)
    shutil.copy(book, os.path.join(work, name))
    nb = nbformat.read(os.path.join(work, name), as_version=4)
    client = nbclient.NotebookClient(
        nb, kernel_name="python3", timeout=120, allow_errors=True, resources={"metadata": {"path": work}}
    )
    client.execute()
    nbformat.write(nb, os.path.join(out, name))
    folders[name] = work
json.dump(folders, sys.stdout)
