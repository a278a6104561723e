"""The command line end to end on the sample data, user errors, and what it must not print."""

import csv
import json
import re
import subprocess
import sys

import pandas as pd
import pytest

from workbench.cli import main

SAMPLE_ROWS = 20000
BUDGET = ["--dataset-budget", "10", "1e-6"]


def test_inspect_lists_columns_and_proposed_kinds(sample_path, capsys):
    assert main(["inspect", str(sample_path)]) == 0
    out = capsys.readouterr().out
    assert "household_id" in out and "identifier" in out and "annual_income" in out and "numeric" in out


def test_plan_template_leaves_bounds_and_categories_for_the_user(sample_path, tmp_path, capsys):
    out = tmp_path / "start.plan.json"
    assert main(["plan-template", str(sample_path), "--out", str(out)]) == 0
    plan = json.loads(out.read_text())
    columns = {c["name"]: c for c in plan["schema"]["columns"]}
    assert columns["age"]["lower"] is None and columns["age"]["upper"] is None
    assert columns["region"]["categories"] == []  # never read off the data
    # Releasing it as is explains what to fill in, with exit status 2.
    assert main(["release", str(sample_path), "--plan", str(out), "--out", str(tmp_path / "r")]) == 2
    assert "has no lower bound yet" in capsys.readouterr().err
    assert not (tmp_path / "r").exists()
    assert main(["plan-template", str(sample_path), "--out", str(out)]) == 2  # no silent overwrite


def test_plan_template_with_delta_promises_approximate_dp(sample_path, tmp_path, capsys):
    out = tmp_path / "approximate.plan.json"
    assert main(["plan-template", str(sample_path), "--out", str(out), "--delta", "1e-7"]) == 0
    plan = json.loads(out.read_text())
    assert plan["total_budget"]["delta"] == 1e-7
    assert {s["mechanism"] for s in plan["statistics"]} == {"gaussian"}
    assert "(ε, δ)-DP with δ = 1e-07" in capsys.readouterr().out


def test_release_writes_results_and_prints_the_total(sample_path, sample_plan_path, tmp_path, capsys):
    out = tmp_path / "results"
    assert main(["release", str(sample_path), "--plan", str(sample_plan_path), "--out", str(out), *BUDGET]) == 0
    printed = capsys.readouterr().out
    assert "Total: ε = 1, δ = 2e-07 by " in printed

    rows = list(csv.DictReader((out / "results.csv").open()))
    assert {"statistic", "value", "error", "epsilon", "delta", "mechanism", "noise_scale"} <= set(rows[0])
    regions = [r for r in rows if r["statistic"] == "histogram of region"]
    assert [r["cell"] for r in regions] == [
        "North", "North East", "East", "South East", "South", "South West", "West", "Capital", "(other)"]
    assert all(float(r["error"]) > 0 for r in rows)

    result = json.loads((out / "results.json").read_text())
    assert result["format"] == "dp-workbench-results" and result["total"]["epsilon"] == pytest.approx(1.0)
    mean_income = next(s for s in result["statistics"] if s["label"] == "mean of annual_income")
    assert [n["query"] for n in mean_income["noise"]] == ["centred sum", "count"]
    assert 10_000 < mean_income["cells"][0]["value"] < 35_000  # the exact mean is about 21,000


def test_exact_row_count_appears_in_no_output_under_add_remove(sample_path, sample_plan_path, tmp_path, capsys):
    """The only place the exact count could appear is the noisy count itself, if the noise was 0."""
    out = tmp_path / "results"
    assert main(["release", str(sample_path), "--plan", str(sample_plan_path), "--out", str(out), *BUDGET]) == 0
    printed = capsys.readouterr().out
    result = json.loads((out / "results.json").read_text())
    noisy_count = result["statistics"][0]["cells"][0]["value"]
    texts = {"stdout": printed, "csv": (out / "results.csv").read_text(), "json": (out / "results.json").read_text()}
    exact = {str(SAMPLE_ROWS), f"{SAMPLE_ROWS:,}", f"{SAMPLE_ROWS:.1f}"}
    assert len(pd.read_csv(sample_path)) == SAMPLE_ROWS
    for name, text in texts.items():
        if noisy_count == SAMPLE_ROWS:
            text = text.replace(str(noisy_count), "").replace(f"{int(noisy_count):,}", "")
        for form in exact:  # as a whole number: 200000 (a bound) holds the digits 20000 but is not the count
            assert not re.search(rf"(?<![\d,.]){re.escape(form)}(?![\d,]|\.\d)", text), f"exact row count {form} found in {name}"


@pytest.mark.parametrize(
    "change,message",
    [
        (lambda d: d.update(version=99), "newer DP Workbench"),
        (lambda d: (d["schema"]["columns"][1].update(name="age_years"), d["statistics"][3].update(column="age_years")),
         "'age_years', which is not in household_survey.csv"),
        (lambda d: d["statistics"][0].update(epsilon=0, weight=None), "ε must be greater than 0"),
        (lambda d: d["schema"]["columns"][1].update(lower=10, upper=10), "bounds are both 10"),
    ],
)
def test_user_errors_exit_2_with_a_message_and_no_traceback(sample_path, sample_plan_path, tmp_path, change, message):
    data = json.loads(sample_plan_path.read_text())
    change(data)
    plan = tmp_path / "bad.plan.json"
    plan.write_text(json.dumps(data))
    before = plan.read_bytes()
    done = subprocess.run(
        [sys.executable, "-m", "workbench.cli", "release", str(sample_path), "--plan", str(plan), "--out", str(tmp_path / "o"), *BUDGET],
        capture_output=True, text=True,
    )
    assert done.returncode == 2
    assert message in " ".join(done.stderr.split())
    assert "Traceback" not in done.stderr + done.stdout
    assert plan.read_bytes() == before  # the user's plan is untouched
    assert not (tmp_path / "o").exists()


def test_broken_data_file_exits_2(tmp_path, sample_plan_path):
    data = tmp_path / "broken.csv"
    data.write_bytes(b"\x00\x01\x02" * 100)
    assert main(["release", str(data), "--plan", str(sample_plan_path), "--out", str(tmp_path / "o"), *BUDGET]) == 2


def test_plan_budget_fills_epsilon_from_targets_and_shows_expected_errors(sample_plan_path, tmp_path, capsys):
    data = json.loads(sample_plan_path.read_text())
    data["statistics"][0].update(target_error=400)
    plan = tmp_path / "targets.plan.json"
    plan.write_text(json.dumps(data))
    out = tmp_path / "budgeted.plan.json"
    assert main(["plan-budget", str(plan), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "at most ± (95%)" in printed and "Total: ε =" in printed
    budgeted = json.loads(out.read_text())
    assert budgeted["statistics"][0]["epsilon"] != data["statistics"][0]["epsilon"]
    assert budgeted["statistics"][0]["target_error"] == 400


@pytest.mark.parametrize("statistic", [
    {"type": "count", "by": "region"},
    {"type": "sum", "column": "annual_income", "by": "sex"},
    {"type": "mean", "column": "age", "by": "region"},
    {"type": "variance", "column": "weekly_hours"},
    {"type": "stddev", "column": "annual_income", "by": "employed"},
    {"type": "histogram", "column": "education", "by": "sex"},
    {"type": "histogram", "column": "age", "edges": [18, 30, 45, 65]},
    {"type": "quantiles", "column": "age", "levels": [0.9, 0.1, 0.5], "by": "sex"},
    {"type": "crosstab", "columns": ["sex", "employed", "education"]},
    {"type": "mean", "column": "annual_income", "by": ["region", "sex"]},  # issue 21, 2
    {"type": "quantiles", "column": "age", "levels": [0.5], "by": ["sex", "employed", "education"]},
    {"type": "crosstab", "columns": ["sex", "employed"], "by": ["region", "education"]},
    {"type": "proportion", "column": "employed", "by": "region", "percent": True},  # issue 21, 5
    {"type": "proportion", "column": "age", "edges": [18, 65]},
    {"type": "mean", "column": "annual_income", "by": "region", "weighted_by": "weight"},  # issue 21, 3
    {"type": "proportion", "column": "employed", "by": "sex", "weighted_by": "weight", "percent": True},
    {"type": "count", "weighted_by": "weight"},
    {"type": "quantiles", "column": "annual_income", "levels": [0.25, 0.5], "by": "region", "interval": True},  # 21, 1
])
def test_every_statistic_releases_end_to_end_from_the_command_line(statistic, sample_path, sample_plan_path, tmp_path, capsys):
    plan = json.loads(sample_plan_path.read_text())
    mechanism = "exponential" if statistic["type"] == "quantiles" else "laplace"
    plan["statistics"] = [{**statistic, "mechanism": mechanism, "epsilon": 0.5, "delta": 0.0}]
    if statistic.get("weighted_by"):  # the survey weight, described as in the tables example plan
        tables = json.loads(sample_plan_path.with_name("household_survey.tables.plan.json").read_text())
        plan["schema"]["columns"].append(next(c for c in tables["schema"]["columns"] if c["name"] == "weight"))
    plan_path = tmp_path / "one.plan.json"
    plan_path.write_text(json.dumps(plan))
    out = tmp_path / "results"
    assert main(["release", str(sample_path), "--plan", str(plan_path), "--out", str(out), *BUDGET]) == 0
    released = json.loads((out / "results.json").read_text())["statistics"][0]
    assert released["type"] == statistic["type"] and released["by"] == statistic.get("by")
    cells = released["cells"]
    assert cells and all(c["value"] is not None and c["error"] > 0 for c in cells if not c["note"])
    if statistic["type"] == "count" and statistic.get("weighted_by"):  # the weights sum to about 10.4 million
        assert 9e6 < cells[0]["value"] < 1.2e7, cells[0]["value"]
    if statistic["type"] == "stddev":
        assert released["label"] == "standard deviation of annual_income by employed"
        assert all(0 <= c["value"] <= 100_000 for c in cells if c["value"] is not None)  # at most half the range
    if statistic["type"] == "proportion":
        whole = 100 if statistic.get("percent") else 1
        groups = {}
        for c in cells:
            groups.setdefault(c["label"].rsplit(" / ", 1)[0] if " / " in c["label"] else "", []).append(c)
        for group in groups.values():  # each group's raw shares add up to the whole; published ones are clamped
            if all(c["value"] is not None for c in group):
                assert sum(c["raw_value"] for c in group) == pytest.approx(whole)
                assert all(0 <= c["value"] <= whole for c in group)
        if "edges" in statistic:
            assert [c["label"] for c in cells] == ["[0, 18)", "[18, 65)", "[65, 100]"]
            assert 0.5 < cells[1]["value"] < 0.7
    elif "edges" in statistic:
        assert [c["label"] for c in cells] == ["[0, 18)", "[18, 30)", "[30, 45)", "[45, 65)", "[65, 100]"]
        assert "between the public edges" in released["method"]
        assert sum(c["value"] for c in cells) == pytest.approx(20_000, rel=0.02)  # each of the 20,000 rows in one interval
    if statistic.get("interval"):
        from importlib import resources

        import jsonschema

        from workbench.core.release.run import Release
        results = json.loads((out / "results.json").read_text())
        jsonschema.validate(results, json.loads(resources.files("workbench").joinpath(
            "resources/results.schema.json").read_text()))
        assert all(0 <= c["lower"] <= c["upper"] <= 200_000 for c in cells)
        assert Release.from_json(results).statistics[0].cells[0].upper == cells[0]["upper"]
        assert "interval" in released["method"] and "lies in [" in cells[0]["note"]
        assert (out / "results.csv").read_text().splitlines()[0].endswith("interval_lower,interval_upper")
    if isinstance(statistic.get("by"), list):
        from importlib import resources

        import jsonschema

        from workbench.core.release.run import Release
        results = json.loads((out / "results.json").read_text())
        jsonschema.validate(results, json.loads(resources.files("workbench").joinpath(
            "resources/results.schema.json").read_text()))
        assert Release.from_json(results).statistics[0].by == tuple(statistic["by"])
        assert " by " + " and ".join(statistic["by"]).replace(" and ", ", ", len(statistic["by"]) - 2) in released["label"]
        first = {"region": "North", "sex": "female", "employed": "yes", "education": "none"}
        assert cells[0]["label"].startswith(" / ".join(first[c] for c in statistic["by"]))
        if statistic["type"] == "mean":
            assert len(cells) == 9 * 3 and cells[1]["label"] == "North / male"
    elif statistic["type"] == "crosstab":
        assert len(cells) == 3 * 2 * 6 and cells[0]["label"] == "female / yes / none"  # (other) kept for sex, not employed
    if statistic["type"] == "quantiles" and statistic["by"] == "sex":
        assert [c["label"] for c in cells[:3]] == ["female / 10th percentile", "female / median", "female / 90th percentile"]
        for group in range(0, len(cells), 3):
            values = [c["value"] for c in cells[group : group + 3]]
            assert values == sorted(values)  # released in the order of the levels
        assert all(c["error"] > 0 and c["error_unit"] == "ranks" for c in cells)
        assert "ranks" in capsys.readouterr().out


def test_randomised_response_design_and_estimate(tmp_path, capsys):
    assert main(["rr", "design", "--epsilon", "1.0986123", "--categories", "yes,no", "--respondents", "1000"]) == 0
    printed = capsys.readouterr().out
    assert "p = 0.7500" in printed and "q = 0.2500" in printed and "trusted curator" in printed
    answers = tmp_path / "answers.txt"
    answers.write_text("yes\n" * 40 + "no\n" * 60)
    assert main(["rr", "estimate", "--epsilon", "1.0986123", "--categories", "yes,no", str(answers)]) == 0
    assert "estimated share  0.3000" in capsys.readouterr().out
    answers.write_text("yes\nmaybe\n")
    assert main(["rr", "estimate", "--epsilon", "1", "--categories", "yes,no", str(answers)]) == 2
    assert "not categories of the design: 'maybe'" in capsys.readouterr().err


def test_a_claimed_sampling_rate_states_the_population_guarantee(sample_path, sample_plan_path, tmp_path, capsys):
    plan = json.loads(sample_plan_path.read_text())
    plan["dataset"]["sampling_rate"] = 0.05
    plan_path = tmp_path / "sampled.plan.json"
    plan_path.write_text(json.dumps(plan))
    out = tmp_path / "results"
    assert main(["release", str(sample_path), "--plan", str(plan_path), "--out", str(out), *BUDGET]) == 0
    printed = capsys.readouterr().out
    assert "Claimed sampling rate 0.05" in printed and "Poisson sampling" in printed
    sampling = json.loads((out / "results.json").read_text())["sampling"]
    total = json.loads((out / "results.json").read_text())["total"]
    assert sampling["this_release"]["epsilon"] < total["epsilon"]
    assert sampling["all_releases"]["epsilon"] >= sampling["this_release"]["epsilon"]


def test_bounds_are_estimated_with_dp_charged_and_written_into_the_plan(sample_path, sample_plan_path, tmp_path, capsys):
    plan = json.loads(sample_plan_path.read_text())
    income = next(c for c in plan["schema"]["columns"] if c["name"] == "annual_income")
    income["lower"] = income["upper"] = None  # not known yet
    plan_path = tmp_path / "open.plan.json"
    plan_path.write_text(json.dumps(plan))
    ledger = tmp_path / "ledger.sqlite"
    arguments = ["bounds", str(sample_path), "--plan", str(plan_path), "--column", "annual_income", "--epsilon", "2",
                 "--search", "0", "1e9", "--write", "--ledger", str(ledger), "--dataset-budget", "5"]
    assert main(arguments) == 0
    printed = capsys.readouterr().out
    assert "Suggested bounds for 'annual_income'" in printed and "charged to the ledger" in printed
    written = json.loads(plan_path.read_text())
    bounds = next(c for c in written["schema"]["columns"] if c["name"] == "annual_income")
    assert 0 <= bounds["lower"] < bounds["upper"] <= 1e9
    assert written["statistics"] == plan["statistics"]  # nothing else of the plan changed
    assert main(["ledger", "show", "--ledger", str(ledger)]) == 0
    assert "bounds search of annual_income" in capsys.readouterr().out


def test_version_names_the_libraries_the_guarantee_rests_on(capsys, sample_path, sample_plan_path, tmp_path):
    from importlib.metadata import version

    with pytest.raises(SystemExit):
        main(["--version"])
    out = capsys.readouterr().out
    assert out.count("\n") == 1, "one line, unfolded"
    checked = f"accountant checked against dp-accounting {version('dp-accounting')}"
    assert f"OpenDP {version('opendp')}" in out and checked in out
    assert main(["release", str(sample_path), "--plan", str(sample_plan_path), "--out", str(tmp_path), *BUDGET]) == 0
    software = json.loads((tmp_path / "results.json").read_text())["software"]
    assert software["libraries"] == {
        "OpenDP": version("opendp"), "accountant checked against dp-accounting": version("dp-accounting"),
    }


@pytest.mark.timeout(120)  # a cap that turns a hang into a failure (issue 19): no speed is asserted
def test_awkward_quantile_levels_and_bounds_coverage_do_not_hang(sample_path, sample_plan_path, tmp_path, capsys):
    plan = json.loads(sample_plan_path.read_text())
    plan["statistics"] = [{"type": "quantiles", "column": "age", "levels": [1 / 3, 0.123456789, 0.3333333],
                           "mechanism": "exponential", "epsilon": 0.5}]
    plan_path = tmp_path / "awkward.plan.json"
    plan_path.write_text(json.dumps(plan))
    # levels finer than the ten-thousandths OpenDP computes with are refused, naming the level (issue 41, 6)
    assert main(["release", str(sample_path), "--plan", str(plan_path), "--out", str(tmp_path / "r"), *BUDGET]) == 2
    assert "level 0.123456789 cannot be used as entered" in capsys.readouterr().err
    plan["statistics"][0]["levels"] = [0.3333, 0.1234, 0.0003]  # OpenDP truncated 0.0003 to 0.0002 before
    plan_path.write_text(json.dumps(plan))
    assert main(["plan-budget", str(plan_path)]) == 0
    assert main(["release", str(sample_path), "--plan", str(plan_path), "--out", str(tmp_path / "r"), *BUDGET]) == 0
    assert main(["bounds", str(sample_path), "--plan", str(plan_path), "--column", "annual_income", "--epsilon", "0.5",
                 "--coverage", "0.9", "--dataset-budget", "10", "1e-6"]) == 0
    assert "Suggested bounds for 'annual_income'" in capsys.readouterr().out


def test_the_console_table_fits_100_columns_with_notes_under_it(tmp_path, capsys):
    """Post-processing notes and cell notes go under the table, numbered; every line fits 100 columns (issue 19, 7)."""
    from realistic_tables import labour_force

    data = tmp_path / "labour.csv"
    labour_force().to_csv(data, index=False)
    plan = {"format": "dp-workbench-plan", "version": 1, "dataset": {"name": "Labour force extract, quarter 3"},
            "schema": {"columns": [
                {"name": "region", "kind": "categorical", "categories": ["northeast", "midwest", "south", "west", "islands"]},
                {"name": "wage", "kind": "numeric", "lower": 0, "upper": 5000}]},
            "statistics": [{"type": "mean", "column": "wage", "by": "region", "epsilon": 0.05},
                           {"type": "histogram", "column": "region", "epsilon": 0.5, "post_processing": {"round_to": 10}}],
            "total_budget": {"epsilon": 0.55}}
    (tmp_path / "p.json").write_text(json.dumps(plan))
    assert main(["release", str(data), "--plan", str(tmp_path / "p.json"), "--out", str(tmp_path / "o"),
                 "--dataset-budget", "3", "1e-6"]) == 0
    printed = capsys.readouterr().out
    assert max(len(line) for line in printed.splitlines() if not line.startswith("Wrote ")) <= 100, printed
    assert "Post-processing of mean of wage by region" in printed and "Rounded to the nearest 10" in printed


def test_a_zcdp_or_pld_total_is_not_read_as_all_of_delta_spent():
    from workbench.core.privacy.accounting import BASIC, ZCDP
    from workbench.core.privacy.composition import spent_in_words
    from workbench.core.privacy.events import Guarantee
    from workbench.core.privacy.privacy_loss import PLD

    budget = Guarantee(3.0, 1e-6, "total budget")
    for method in (ZCDP, PLD):
        words = spent_in_words(Guarantee(0.5988, 1e-6, method), budget)
        assert words.startswith("spent ε = 0.5988 of its total ε = 3;") and "not an amount used up" in words
        assert "δ = 1e-06 of its" not in words
    assert spent_in_words(Guarantee(0.5, 2e-7, BASIC), budget) == "spent ε = 0.5, δ = 2e-07 of its total ε = 3, δ = 1e-06"


def test_inspect_shows_missing_values_per_column(tmp_path, capsys):
    from realistic_tables import labour_force

    data = tmp_path / "labour.csv"
    frame = labour_force()
    frame.to_csv(data, index=False)
    assert main(["inspect", str(data)]) == 0
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if line.startswith("column"))
    assert "missing" in header
    wage = next(line for line in out.splitlines() if line.startswith("wage "))
    assert f" {int(frame['wage'].isna().sum()):,} " in wage


def test_release_out_of_core_reads_the_file_with_duckdb_and_charges_the_ledger(sample_path, sample_plan_path, tmp_path, capsys):
    """The sample plan (every statistic kind) through DuckDB on the file: same values' range, same charge."""
    out = tmp_path / "results"
    ledger = tmp_path / "ledger.sqlite"
    assert main(["release", str(sample_path), "--plan", str(sample_plan_path), "--out", str(out), "--engine",
                 "out-of-core", "--memory-limit", "500MB", "--ledger", str(ledger), *BUDGET]) == 0
    printed = capsys.readouterr().out
    assert "out of core (DuckDB on the file, as asked)" in printed and "Total: ε = 1" in printed
    result = json.loads((out / "results.json").read_text())
    mean_income = next(s for s in result["statistics"] if s["label"] == "mean of annual_income")
    assert 10_000 < mean_income["cells"][0]["value"] < 35_000  # the exact mean is about 21,000
    assert result["ledger"]["entry"] >= 1  # charged, as any release
    assert main(["ledger", "show", "--ledger", str(ledger)]) == 0
    assert "sample" in capsys.readouterr().out.lower()


def test_auto_reads_out_of_core_only_what_would_not_fit_in_half_the_memory(tmp_path):
    from workbench.core.data.engines import out_of_core_is_needed

    text = tmp_path / "table.csv"
    text.write_bytes(b"x\n" + b"1\n" * 500_000)  # 1 MB
    assert out_of_core_is_needed(text, memory=4 << 20)  # pandas would take about 3 MB of 4
    assert not out_of_core_is_needed(text, memory=8 << 20)
    workbook = tmp_path / "table.xlsx"
    workbook.write_bytes(b"PK" * 500_000)
    assert not out_of_core_is_needed(workbook, memory=1 << 20)  # only CSV, TSV and Parquet are read out of core


def test_plan_template_asks_about_the_identifier_it_proposes_and_writes_the_one_given(sample_path, tmp_path, capsys):
    """household_id looks like an identifier: the template says it protects one row and how to choose the
    identifier, instead of proposing it silently next to id_column null (issue 37, 4)."""
    assert main(["plan-template", str(sample_path), "--out", str(tmp_path / "a.json")]) == 0
    printed = capsys.readouterr().out
    assert "'household_id' looks like an identifier, but the plan protects one row" in " ".join(printed.split())
    assert json.loads((tmp_path / "a.json").read_text())["schema"]["privacy_unit"]["id_column"] is None
    assert max(len(line) for line in printed.splitlines() if not line.startswith("Wrote ")) <= 100, printed
    assert main(["plan-template", str(sample_path), "--out", str(tmp_path / "b.json"), "--id-column", "household_id",
                 "--max-rows", "6"]) == 0
    unit = json.loads((tmp_path / "b.json").read_text())["schema"]["privacy_unit"]
    assert unit == {"id_column": "household_id", "max_rows_per_person": 6}
    assert "protects each person identified by 'household_id'" in " ".join(capsys.readouterr().out.split())
    assert main(["plan-template", str(sample_path), "--out", str(tmp_path / "c.json"), "--id-column", "nope"]) == 2


def test_auto_counts_the_plans_columns_and_says_which_engine_it_chose(sample_path, sample_plan_path, tmp_path, capsys):
    """A release prepares a copy of each used column: a file whose reading fits may not fit with them; and
    AUTO says what it chose, and why, before anything is read (issue 37, 4)."""
    from workbench.core.data.engines import choose_engine

    text = tmp_path / "table.csv"
    text.write_bytes(b"x\n" + b"1\n" * 500_000)  # 1 MB, 500,000 rows
    assert not choose_engine(text, None, memory=16 << 20).out_of_core  # reading alone: about 3 MB of 16
    decision = choose_engine(text, 1, memory=16 << 20)  # and a prepared column of 500,000 values: 20 MB more
    assert decision.out_of_core and "the 1 column used" in decision.in_words()
    assert main(["release", str(sample_path), "--plan", str(sample_plan_path), "--out", str(tmp_path / "o"),
                 "--ledger", str(tmp_path / "l.sqlite"), *BUDGET]) == 0
    printed = " ".join(capsys.readouterr().out.split())
    assert "Reading the data file in memory (pandas): pandas would take about" in printed


def test_inspect_and_bounds_read_a_file_too_large_for_memory_by_its_first_rows_and_out_of_core(
        sample_path, sample_plan_path, tmp_path, capsys, monkeypatch):
    """On a machine with 4 MB, the sample (1 MB, about 3 MB in pandas) is too large: inspect reads its first
    rows as step 1 does, and says so; bounds counts ranks with DuckDB on the file, charged as ever (issue 37, 4)."""
    assert main(["inspect", str(sample_path)]) == 0
    printed = " ".join(capsys.readouterr().out.split())
    assert ": 20,000 rows, 9 columns. Read whole, in memory." in printed  # the rows step 1 shows
    monkeypatch.setattr("workbench.core.data.engines.physical_memory", lambda: 4 << 20)
    assert main(["inspect", str(sample_path)]) == 0
    printed = " ".join(capsys.readouterr().out.split())
    assert ": 20,000 rows read, 9 columns. The file is too large to read whole here" in printed
    assert "it was read as a sample of its first rows: all 20,000 of them" in printed
    ledger = tmp_path / "l.sqlite"
    assert main(["bounds", str(sample_path), "--plan", str(sample_plan_path), "--column", "annual_income", "--epsilon",
                 "2", "--search", "0", "1e9", "--ledger", str(ledger), *BUDGET]) == 0
    printed = " ".join(capsys.readouterr().out.split())
    assert "Reading the data file out of core (DuckDB on the file)" in printed
    assert "Suggested bounds for 'annual_income': 0 to" in printed
    assert main(["ledger", "show", "--ledger", str(ledger)]) == 0
    assert "bounds search of annual_income" in capsys.readouterr().out


def test_every_command_fits_100_columns_and_says_each_clamping_note_once_in_its_statistics_words(
        sample_path, tmp_path, capsys):
    """The tables plan: plan-budget was 177 columns wide, ledger show and inspect 170-190; the means' clamping
    note used the count's words and came once per mean (issue 37, 5)."""
    tables = sample_path.with_name("household_survey.tables.plan.json")
    plan = json.loads(tables.read_text())
    plan["schema"]["columns"].append({"name": "age", "kind": "numeric", "lower": 0, "upper": 100})
    plan["statistics"].append({"type": "mean", "column": "age", "by": "region", "epsilon": 0.5})
    plan["total_budget"]["epsilon"] += 0.5
    (tmp_path / "p.json").write_text(json.dumps(plan))
    ledger = ["--ledger", str(tmp_path / "l.sqlite")]
    runs = [["inspect", str(sample_path)], ["plan-budget", str(tmp_path / "p.json")],
            ["release", str(sample_path), "--plan", str(tmp_path / "p.json"), "--out", str(tmp_path / "o"), *ledger,
             "--dataset-budget", "9", "1e-5"], ["ledger", "show", *ledger]]
    for arguments in runs:
        assert main(arguments) == 0
        printed = capsys.readouterr().out
        wide = [line for line in printed.splitlines() if len(line) > 100 and not line.startswith("Wrote ")]
        assert not wide, (arguments[0], wide)
        if arguments[0] == "release":
            released = " ".join(printed.split())
    assert released.count("small counts come out slightly too large") == 1
    assert released.count("a mean close to one of its bounds comes out slightly nearer the middle") == 1
    assert "mean of age by region (values below 0 raised to 0 and above 100 lowered to 100)" in released
