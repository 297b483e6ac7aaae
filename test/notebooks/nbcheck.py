"""For test/notebook-*.test.ts: each notebook file read by nbformat (Jupyter's own library), validated against its
schema, and written back by nbformat's writer; prints per file whether it validates and whether the file's bytes are
exactly what nbformat writes. argv: files..."""
import json, sys
import nbformat

result = []
for name in sys.argv[1:]:
    text = open(name, encoding="utf-8").read()
    entry = {"file": name, "valid": True, "error": None}
    try:
        nb = nbformat.reads(text, as_version=nbformat.NO_CONVERT)
        nbformat.validate(nb)
        entry["as_nbformat_writes"] = nbformat.writes(nb) + "\n" == text
    except Exception as e:  # noqa: BLE001 - every failure is the answer
        entry.update(valid=False, error=f"{type(e).__name__}: {str(e)[:500]}", as_nbformat_writes=False)
    result.append(entry)
json.dump(result, sys.stdout)
