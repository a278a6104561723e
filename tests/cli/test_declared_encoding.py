"""A text file's encoding on the command line: inspect and plan-template guess it for the curator and say so, the
plan declares it, and a release reads the declared one or refuses, never guessing (issue 34)."""

import json

from workbench.cli import main

TOWNS = ("Köln", "Zürich", "Åre")


def _file(tmp_path):
    path = tmp_path / "towns.csv"
    rows = "".join(f"{i};{TOWNS[i % 3]};{20 + i % 50}\n" for i in range(300))
    path.write_bytes(("id;town;age\n" + rows).encode("cp1252"))
    return path


def _plan(tmp_path, data, capsys):
    plan = tmp_path / "towns.plan.json"
    assert main(["plan-template", str(data), "--out", str(plan), "--name", "Towns"]) == 0
    said = " ".join("".join(capsys.readouterr()).split())
    written = json.loads(plan.read_text(encoding="utf-8"))
    columns = {c["name"]: c for c in written["schema"]["columns"]}
    columns["town"].update(kind="categorical", categories=list(TOWNS), outside="other")
    columns["age"].update(kind="numeric", lower=0, upper=100)
    written["statistics"] = [{"type": "histogram", "column": "town", "mechanism": "laplace", "epsilon": 1.0}]
    written["total"] = {"epsilon": 1.0, "delta": 0.0}
    plan.write_text(json.dumps(written), encoding="utf-8")
    return plan, written, said


def test_plan_template_declares_the_encoding_it_guessed_and_says_so(tmp_path, capsys):
    data = _file(tmp_path)
    assert main(["inspect", str(data)]) == 0
    assert "guessed from the file's content" in " ".join("".join(capsys.readouterr()).split())
    _, written, said = _plan(tmp_path, data, capsys)
    assert written["dataset"]["encoding"] == "cp1252"
    assert "guessed from its content as cp1252" in said


def test_a_release_reads_the_declared_encoding_and_refuses_to_guess(tmp_path, capsys):
    data = _file(tmp_path)
    plan, written, _ = _plan(tmp_path, data, capsys)
    ledger = tmp_path / "ledger.sqlite"
    base = ["release", str(data), "--ledger", str(ledger), "--dataset-budget", "5"]
    assert main(base + ["--plan", str(plan), "--out", str(tmp_path / "declared")]) == 0
    results = json.loads((tmp_path / "declared" / "results.json").read_text(encoding="utf-8"))
    cells = {c["label"]: c for s in results["statistics"] for c in s["cells"]}
    assert set(TOWNS) <= set(cells)
    capsys.readouterr()

    del written["dataset"]["encoding"]  # the same plan without the declaration: refused, nothing charged
    undeclared = tmp_path / "undeclared.plan.json"
    undeclared.write_text(json.dumps(written), encoding="utf-8")
    before = ledger.read_bytes()
    assert main(base + ["--plan", str(undeclared), "--out", str(tmp_path / "guessed")]) == 2
    said = " ".join("".join(capsys.readouterr()).split())
    assert "is not UTF-8 text (it looks like cp1252)" in said and "--encoding cp1252" in said
    assert ledger.read_bytes() == before and not (tmp_path / "guessed").exists()
    assert main(base + ["--plan", str(undeclared), "--encoding", "cp1252", "--out", str(tmp_path / "given")]) == 0
