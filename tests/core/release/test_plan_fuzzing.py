"""Property-based tests: no plan file, however malformed, makes the parser or the validation raise
anything but a WorkbenchError (which the app shows as a dialog and the command line as a message).

Three kinds of input: arbitrary JSON; the sample plan with one value anywhere replaced by arbitrary
JSON, or one key deleted (the edits a person makes by hand); and arbitrary bytes as a plan file.
"""

import copy
import json
import os

import pytest
from bad_inputs import SAMPLE_PLAN
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workbench.core.data.schema import Schema
from workbench.core.errors import WorkbenchError
from workbench.core.release.plan import ReleasePlan

SAMPLE = json.loads(SAMPLE_PLAN.read_text(encoding="utf-8"))
# FUZZ_EXAMPLES=5000 searches harder (about two minutes); the default keeps the suite quick.
FUZZ = settings(max_examples=int(os.environ.get("FUZZ_EXAMPLES", 300)), deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Values a hand edit or a broken export produces: the awkward numbers included.
scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.sampled_from([0, -1, 1e-300, 1e300, 0.5, 2, 1e-7, 25000, "", "x", "laplace", "gaussian", "numeric",
                       "categorical", "identifier", "count", "mean", "histogram", "quantile", "age", "region",
                       "add_remove", "substitute", "drop", "impute", "other", "dp-workbench-plan"])
    | st.text(max_size=12)
)
json_values = st.recursive(
    scalars,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4),
    max_leaves=12,
)


def _paths(value, prefix=()):
    """Every place in a JSON document: a tuple of keys and indices."""
    yield prefix
    if isinstance(value, dict):
        for key, child in value.items():
            yield from _paths(child, (*prefix, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from _paths(child, (*prefix, index))


SAMPLE_PATHS = [p for p in _paths(SAMPLE) if p]


def _replace(document, path, value):
    edited = copy.deepcopy(document)
    *parents, last = path
    target = edited
    for key in parents:
        target = target[key]
    target[last] = value
    return edited


def _delete(document, path):
    edited = copy.deepcopy(document)
    *parents, last = path
    target = edited
    for key in parents:
        target = target[key]
    del target[last]
    return edited


def parse_and_validate(data) -> None:
    """What opening a plan does: parse it, then check everything that can be checked without data."""
    try:
        plan = ReleasePlan.from_json(data)
        plan.validate()
        plan.guarantee()
        ReleasePlan.from_json(json.loads(json.dumps(plan.to_json())))  # what saving and reopening does
    except WorkbenchError as error:
        assert str(error).strip(), "an error without a message"


@FUZZ
@given(json_values)
def test_arbitrary_json_is_refused_with_a_workbench_error(data):
    parse_and_validate(data)


@FUZZ
@given(st.sampled_from(SAMPLE_PATHS), json_values)
def test_the_sample_plan_with_any_value_replaced(path, value):
    parse_and_validate(_replace(SAMPLE, path, value))


@FUZZ
@given(st.lists(st.tuples(st.sampled_from(SAMPLE_PATHS), scalars), min_size=2, max_size=4))
def test_the_sample_plan_with_several_values_replaced(edits):
    document = SAMPLE
    for path, value in edits:
        try:
            document = _replace(document, path, value)
        except (KeyError, IndexError, TypeError):
            continue  # an earlier edit removed this place
    parse_and_validate(document)


@pytest.mark.parametrize("path", SAMPLE_PATHS, ids=lambda p: "/".join(map(str, p)))
def test_the_sample_plan_with_any_key_deleted(path):
    parse_and_validate(_delete(SAMPLE, path))


@FUZZ
@given(st.sampled_from([p for p in SAMPLE_PATHS if p[0] == "schema"]), json_values)
def test_schema_validation_alone(path, value):
    schema = _replace(SAMPLE, path, value)["schema"]
    try:
        Schema.from_json(schema).validate()
    except WorkbenchError as error:
        assert str(error).strip()


@FUZZ
@given(st.binary(max_size=400) | st.text(max_size=400).map(lambda t: t.encode("utf-8", "surrogatepass")))
def test_any_bytes_as_a_plan_file(tmp_path_factory, content):
    path = tmp_path_factory.mktemp("plans") / "plan.json"
    path.write_bytes(content)
    try:
        ReleasePlan.load(path).validate()
    except WorkbenchError as error:
        assert str(error).strip()


@FUZZ
@given(st.integers(min_value=1, max_value=len(json.dumps(SAMPLE)) - 1))
def test_a_plan_file_cut_off_anywhere(tmp_path_factory, length):
    path = tmp_path_factory.mktemp("plans") / "plan.json"
    path.write_text(json.dumps(SAMPLE, indent=1)[:length], encoding="utf-8")
    with pytest.raises(WorkbenchError, match="not a complete plan file"):
        ReleasePlan.load(path)


def test_the_fuzzer_would_see_a_non_workbench_error():
    """The property is not vacuous: an exception of another type escapes parse_and_validate."""
    with pytest.raises(TypeError):
        parse_and_validate(_replace(SAMPLE, ("statistics",), Unparseable()))


class Unparseable(list):
    def __iter__(self):
        raise TypeError("a bug in the parser")
