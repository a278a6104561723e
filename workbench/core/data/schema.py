"""The public description of a table: column kinds, bounds, categories, the privacy unit.

Everything in a Schema is public input supplied by the user, never read off the data
(DESIGN rule 2). Sensitivities are derived from it (rule 3), so it is validated before
any statistic is computed.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any, ClassVar

from workbench.core.errors import Place, SchemaError
from workbench.core.real import is_finite_real, is_whole_number


class Neighbouring(str, Enum):
    """Which pairs of datasets must be indistinguishable.

    ADD_REMOVE: one person's records added or removed (the size is private).
    SUBSTITUTE: one person's records replaced by another's (the number of persons is public).
    """

    ADD_REMOVE = "add_remove"
    SUBSTITUTE = "substitute"

    @property
    def in_words(self) -> str:
        if self is Neighbouring.ADD_REMOVE:
            return "adding or removing one person's records"
        return "replacing one person's records by another person's (the number of persons is public)"


class MissingAction(str, Enum):
    DROP = "drop"  # the row is left out of statistics on this column
    IMPUTE = "impute"  # the missing value is replaced by a public value


@dataclass(frozen=True)
class MissingPolicy:
    """What to do with a missing value in one column; a public choice."""

    action: MissingAction = MissingAction.DROP
    value: float | str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"action": self.action.value}
        if self.action is MissingAction.IMPUTE:
            out["value"] = self.value
        return out

    @classmethod
    def from_json(cls, data: Any, where: str) -> "MissingPolicy":
        if data is None:
            return cls()
        if not isinstance(data, dict):
            raise SchemaError(f"{where}: 'missing' must be an object like {{\"action\": \"drop\"}}.")
        action = _enum(MissingAction, data.get("action", "drop"), f"{where}: missing.action")
        return cls(action=action, value=data.get("value"))


class OutsideCategories(str, Enum):
    OTHER = "other"  # counted in an explicit "other" bin
    DROP = "drop"  # left out of this column's histogram


@dataclass(frozen=True)
class ColumnSpec:
    """Base of the four column kinds; ``kind`` names it in plan files."""

    name: str
    # the file's description of the column ("Weekly wage (USD)"), public metadata shown beside the name
    label: str = field(default="", kw_only=True)
    kind: ClassVar[str] = ""

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, **({"label": self.label} if self.label else {})}

    def validate(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise SchemaError("Every column needs a name.")


MAX_BOUND = 1e15  # beyond it sums of a few million values round to steps larger than the noise


@dataclass(frozen=True)
class NumericColumn(ColumnSpec):
    """A number with public bounds; values are clamped into [lower, upper] before any statistic."""

    lower: float | None = None
    upper: float | None = None
    missing: MissingPolicy = field(default_factory=MissingPolicy)
    kind: ClassVar[str] = "numeric"

    def to_json(self) -> dict[str, Any]:
        return {**super().to_json(), "lower": self.lower, "upper": self.upper, "missing": self.missing.to_json()}

    def validate(self) -> None:
        super().validate()
        where = f"Column '{self.name}'"
        for label, bound in (("lower", self.lower), ("upper", self.upper)):
            if bound is None:
                raise SchemaError(
                    f"{where} has no {label} bound yet. Enter a {label} bound you know without looking "
                    "at the data (for example from the questionnaire or a previous publication).",
                    place=Place("columns", "bounds", self.name),
                )
            if not is_finite_real(bound):
                raise SchemaError(f"{where}: the {label} bound must be a finite number, not {bound!r}.",
                                  place=Place("columns", "bounds", self.name))
            if abs(bound) > MAX_BOUND:
                raise SchemaError(
                    f"{where}: the {label} bound {bound:g} is beyond ±{MAX_BOUND:g}, where sums lose precision and "
                    "noise cannot be calibrated. Rescale the column (for example to thousands) and its bounds.",
                    place=Place("columns", "bounds", self.name),
                )
        assert self.lower is not None and self.upper is not None
        if self.lower > self.upper:
            raise SchemaError(
                f"{where}: the lower bound {self.lower:g} is above the upper bound {self.upper:g}. Swap them.",
                place=Place("columns", "bounds", self.name),
            )
        if self.lower == self.upper:
            raise SchemaError(
                f"{where}: the lower and upper bounds are both {self.lower:g}, so every value would be "
                "clamped to that constant. Enter a range that contains the plausible values.",
                place=Place("columns", "bounds", self.name),
            )
        if self.missing.action is MissingAction.IMPUTE:
            value = self.missing.value
            if not is_finite_real(value):
                raise SchemaError(f"{where}: the value that replaces a missing one must be a number, not {value!r}.",
                                  place=Place("columns", "missing", self.name))
            if not self.lower <= value <= self.upper:
                raise SchemaError(
                    f"{where}: the value {value:g} that replaces missing ones lies outside the bounds "
                    f"[{self.lower:g}, {self.upper:g}]. Choose a value within them.",
                    place=Place("columns", "missing", self.name),
                )


@dataclass(frozen=True)
class CategoricalColumn(ColumnSpec):
    """A column with a public list of categories; every category is released, empty or not."""

    categories: tuple[str, ...] = ()
    outside: OutsideCategories = OutsideCategories.OTHER
    missing: MissingPolicy = field(default_factory=MissingPolicy)
    kind: ClassVar[str] = "categorical"

    def to_json(self) -> dict[str, Any]:
        return {
            **super().to_json(),
            "categories": list(self.categories),
            "outside": self.outside.value,
            "missing": self.missing.to_json(),
        }

    def validate(self) -> None:
        super().validate()
        where = f"Column '{self.name}'"
        if not self.categories:
            raise SchemaError(
                f"{where} has no categories yet. List the categories that exist publicly (for example "
                "the answer options of the questionnaire); they must not be read off the data.",
                place=Place("columns", "categories", self.name),
            )
        if any(not isinstance(c, str) or not c.strip() for c in self.categories):
            raise SchemaError(f"{where}: every category must be a non-empty piece of text.",
                              place=Place("columns", "categories", self.name))
        repeated = len(set(self.categories)) < len(self.categories) and sorted(
            c for c, count in Counter(self.categories).items() if count > 1
        )
        if repeated:
            raise SchemaError(f"{where}: the categories {', '.join(map(repr, repeated))} are listed twice.",
                              place=Place("columns", "categories", self.name))
        if self.outside is OutsideCategories.OTHER and OTHER_BIN in self.categories:
            raise SchemaError(
                f"{where}: a category is called '{OTHER_BIN}', which is the name of the bin for values "
                "outside the list. Rename that category, or choose to drop values outside the list.",
                place=Place("columns", "categories", self.name),
            )
        if self.missing.action is MissingAction.IMPUTE and not isinstance(self.missing.value, str):
            raise SchemaError(f"{where}: the category that replaces missing values must be text.",
                              place=Place("columns", "missing", self.name))

    @property
    def bins(self) -> tuple[str, ...]:
        """The released bins: every public category, then 'other' if values outside are kept."""
        if self.outside is OutsideCategories.OTHER:
            return (*self.categories, OTHER_BIN)
        return self.categories


OTHER_BIN = "(other)"


@dataclass(frozen=True)
class IdentifierColumn(ColumnSpec):
    """Identifies a person or a record; never released, may define the privacy unit."""

    kind: ClassVar[str] = "identifier"


@dataclass(frozen=True)
class IgnoredColumn(ColumnSpec):
    """Not used by any statistic."""

    kind: ClassVar[str] = "ignored"


COLUMN_KINDS: dict[str, type[ColumnSpec]] = {
    cls.kind: cls for cls in (NumericColumn, CategoricalColumn, IdentifierColumn, IgnoredColumn)
}


def column_from_json(data: Any, position: int) -> ColumnSpec:
    if not isinstance(data, dict) or not isinstance(data.get("name"), str):
        raise SchemaError(f"Column {position + 1} in the schema needs a 'name'.")
    label = data.get("label", "")
    if not isinstance(label, str):
        raise SchemaError(f"Column '{data['name']}': 'label' must be a piece of text describing the column.")
    return replace(_column_from_json(data), label=label.strip())


def _column_from_json(data: dict[str, Any]) -> ColumnSpec:
    name = data["name"]
    kind = data.get("kind")
    if not isinstance(kind, str) or kind not in COLUMN_KINDS:
        raise SchemaError(
            f"Column '{name}': kind {kind!r} is not one of {', '.join(COLUMN_KINDS)}. Choose one of them."
        )
    where = f"Column '{name}'"
    if kind == "numeric":
        return NumericColumn(
            name=name,
            lower=_number_or_none(data.get("lower"), f"{where}: lower"),
            upper=_number_or_none(data.get("upper"), f"{where}: upper"),
            missing=MissingPolicy.from_json(data.get("missing"), where),
        )
    if kind == "categorical":
        categories = data.get("categories", [])
        if not isinstance(categories, list) or any(isinstance(c, (bool, list, dict)) or c is None for c in categories):
            raise SchemaError(f"{where}: 'categories' must be a list of texts.")
        return CategoricalColumn(
            name=name,
            categories=tuple(str(c) if isinstance(c, (int, float)) and not isinstance(c, bool) else c for c in categories),
            outside=_enum(OutsideCategories, data.get("outside", "other"), f"{where}: outside"),
            missing=MissingPolicy.from_json(data.get("missing"), where),
        )
    return COLUMN_KINDS[kind](name=name)


@dataclass(frozen=True)
class PrivacyUnit:
    """Who is protected: one row, or one person identified by ``id_column`` with at most k rows.

    A person keeps their first k rows in file order, counted before anything else is done:
    a row later left out of a statistic for a missing value still counts among the k (and a
    row with no id is left out). So one person never contributes more than k rows to any
    statistic, whatever its columns (``prepare`` truncates first).
    """

    id_column: str | None = None
    max_rows_per_person: int = 1

    def to_json(self) -> dict[str, Any]:
        return {"id_column": self.id_column, "max_rows_per_person": self.max_rows_per_person}

    @classmethod
    def from_json(cls, data: Any) -> "PrivacyUnit":
        if data is None:
            return cls()
        if not isinstance(data, dict):
            raise SchemaError("'privacy_unit' must be an object with 'id_column' and 'max_rows_per_person'.")
        k = data.get("max_rows_per_person", 1)
        if not is_whole_number(k):
            raise SchemaError(f"max_rows_per_person must be a whole number of rows, not {k!r}.")
        id_column = data.get("id_column")
        if id_column is not None and (not isinstance(id_column, str) or not id_column):
            raise SchemaError(f"'id_column' must name the identifier column, or be null for one row; not {id_column!r}.")
        return cls(id_column=id_column, max_rows_per_person=k)

    @property
    def in_words(self) -> str:
        if self.id_column is None:
            return "one row of the table"
        return (
            f"one person, identified by '{self.id_column}', with at most "
            f"{self.max_rows_per_person} row{'s' if self.max_rows_per_person != 1 else ''}"
        )


@dataclass(frozen=True)
class Schema:
    """Columns, privacy unit and neighbouring relation: all that sensitivity depends on."""

    columns: tuple[ColumnSpec, ...]
    unit: PrivacyUnit = field(default_factory=PrivacyUnit)
    neighbouring: Neighbouring = Neighbouring.ADD_REMOVE
    public_size: int | None = None  # number of persons; required (and public) under SUBSTITUTE

    def __hash__(self) -> int:
        """Computed once: calibrations are cached by schema, and a preview asks for them on every slider move."""
        cached = self.__dict__.get("_hash")
        if cached is None:
            cached = hash((self.columns, self.unit, self.neighbouring, self.public_size))
            object.__setattr__(self, "_hash", cached)
        return cached

    def __getstate__(self) -> dict:
        """Pickled without the cached hash: text hashes differ from one process to the next."""
        return {k: v for k, v in self.__dict__.items() if k != "_hash"}

    def column(self, name: str) -> ColumnSpec:
        for spec in self.columns:
            if spec.name == name:
                return spec
        raise SchemaError(f"There is no column '{name}' in the schema. Check the spelling or add the column.")

    @property
    def k(self) -> int:
        return self.unit.max_rows_per_person

    def min_rows_per_person(self, columns: tuple[str, ...]) -> int:
        """Fewest rows a person can have in a statistic on ``columns``: 0 if a row can be left out
        (a missing value that is dropped, or a category outside the list that is dropped)."""
        for name in columns:
            spec = self.column(name)
            missing = getattr(spec, "missing", None)
            if missing is not None and missing.action is MissingAction.DROP:
                return 0
            if isinstance(spec, CategoricalColumn) and spec.outside is OutsideCategories.DROP:
                return 0
        return 1

    def validate(self) -> None:
        names = [spec.name for spec in self.columns]
        repeated = sorted(n for n, count in Counter(names).items() if count > 1)
        if repeated:
            raise SchemaError(f"The schema describes {', '.join(map(repr, repeated))} more than once.",
                              place=Place("columns", "kind"))
        for spec in self.columns:
            spec.validate()
        k = self.unit.max_rows_per_person
        if k < 1:
            raise SchemaError(f"At most {k} rows per person is impossible; enter 1 or more.",
                              place=Place("unit", "unit"))
        if self.unit.id_column is None and k != 1:
            raise SchemaError(
                "Without an id column every row is its own person, so 'max rows per person' must be 1. "
                "Choose the id column, or set it to 1.",
                place=Place("unit", "unit"),
            )
        if self.unit.id_column is not None:
            spec = self.column(self.unit.id_column)
            if not isinstance(spec, IdentifierColumn):
                raise SchemaError(
                    f"The privacy unit is identified by '{spec.name}', which is described as {spec.kind}. "
                    "Mark it as an identifier.",
                    place=Place("unit", "unit", spec.name),
                )
        if self.neighbouring is Neighbouring.SUBSTITUTE:
            size = self.public_size
            if not is_whole_number(size) or size < 1:
                raise SchemaError(
                    "Under 'substitute one person' the number of persons is public: enter it as the "
                    "public size (a whole number of at least 1).",
                    place=Place("unit", "public size"),
                )

    def to_json(self) -> dict[str, Any]:
        return {
            "columns": [spec.to_json() for spec in self.columns],
            "privacy_unit": self.unit.to_json(),
            "neighbouring": self.neighbouring.value,
            "public_size": self.public_size,
        }

    @classmethod
    def from_json(cls, data: Any) -> "Schema":
        if not isinstance(data, dict) or not isinstance(data.get("columns"), list):
            raise SchemaError("The schema must be an object with a list of 'columns'.")
        size = data.get("public_size")
        if size is not None and (not is_whole_number(size) or size < 1):
            raise SchemaError(f"The public size must be a whole number of persons (at least 1), not {size!r}.")
        return cls(
            columns=tuple(column_from_json(c, i) for i, c in enumerate(data["columns"])),
            unit=PrivacyUnit.from_json(data.get("privacy_unit")),
            neighbouring=_enum(Neighbouring, data.get("neighbouring", "add_remove"), "neighbouring"),
            public_size=size,
        )


def _enum(enum: type[Enum], value: Any, where: str) -> Any:
    try:
        return enum(value)
    except (ValueError, TypeError):
        options = ", ".join(repr(m.value) for m in enum)
        raise SchemaError(f"{where}: {value!r} is not one of {options}.") from None


def _number_or_none(value: Any, where: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise SchemaError(f"{where} must be a number, not {value!r}.")
    return value
