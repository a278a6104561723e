"""Step 2: who is protected (a row, or a person with at most k rows) and which neighbours."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QRadioButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from workbench.core.data import IdentifierColumn, Neighbouring, PrivacyUnit
from workbench.gui.document import PlanDocument

ROW_WORDS = "Each row is a different person. Protects every row; choose this only if no person appears twice."
PERSON_WORDS = (
    "A person may have several rows, identified by an id column. Everything one person contributes is "
    "protected together; rows beyond the first k of a person are left out, so k bounds what one person can change."
)


class UnitPage(QWidget):
    def __init__(self, document: PlanDocument) -> None:
        super().__init__()
        self.document = document
        self.by_row = QRadioButton("One row is one person")
        self.by_row.setToolTip(ROW_WORDS)
        self.by_person = QRadioButton("A person is identified by a column and may have several rows")
        self.by_person.setToolTip(PERSON_WORDS)
        unit_group = QButtonGroup(self)
        unit_group.addButton(self.by_row)
        unit_group.addButton(self.by_person)
        self.id_column = QComboBox()
        self.id_column.setAccessibleName("identifier column")
        self.id_column.setToolTip("The column that says which person a row belongs to.")
        self.k = QSpinBox()
        self.k.setRange(1, 10_000)
        self.k.setAccessibleName("largest number of rows per person")
        self.k.setToolTip("At most this many rows of one person are used; later rows of that person are left out.")
        self.consequence = QLabel()
        self.consequence.setWordWrap(True)

        self.add_remove = QRadioButton("Adding or removing one person (the number of persons stays private)")
        self.add_remove.setToolTip(
            "The release must look almost the same whether or not any one person is in the data. "
            "The usual choice; even the number of persons is protected."
        )
        self.substitute = QRadioButton("Replacing one person by another (the number of persons is public)")
        self.substitute.setToolTip(
            "The release must look almost the same if one person's records are replaced by someone else's. "
            "Only if the number of persons is already public, e.g. a census count."
        )
        relation_group = QButtonGroup(self)
        relation_group.addButton(self.add_remove)
        relation_group.addButton(self.substitute)
        self.public_size = QSpinBox()
        self.public_size.setRange(0, 2_000_000_000)
        self.public_size.setSpecialValueText("not public")
        self.public_size.setAccessibleName("public number of persons")
        self.public_size.setToolTip("The number of persons, when it is public (required for 'replacing one person').")

        person_row = QHBoxLayout()
        person_row.addWidget(QLabel("Id column:"))
        person_row.addWidget(self.id_column)
        person_row.addWidget(QLabel("at most k rows per person, k ="))
        person_row.addWidget(self.k)
        person_row.addStretch()
        form = QFormLayout()
        form.addRow("Public number of persons:", self.public_size)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("<h3>Who is protected?</h3>"))
        layout.addWidget(self.by_row)
        layout.addWidget(self.by_person)
        layout.addLayout(person_row)
        layout.addWidget(self.consequence)
        layout.addSpacing(16)
        layout.addWidget(QLabel("<h3>Which datasets must look alike?</h3>"))
        layout.addWidget(self.add_remove)
        layout.addWidget(self.substitute)
        layout.addLayout(form)
        layout.addStretch()

        for button in (self.by_row, self.by_person, self.add_remove, self.substitute):
            button.toggled.connect(self._edited)
        self.id_column.currentIndexChanged.connect(self._edited)
        self.k.valueChanged.connect(self._edited)
        self.public_size.valueChanged.connect(self._edited)
        document.changed.connect(self.refresh)
        self._refreshing = False
        self.refresh()

    def focus_first(self) -> None:
        """The focus on the choice of who is protected (a problem with it was clicked in step 6)."""
        (self.by_person if self.by_person.isChecked() else self.by_row).setFocus()

    def refresh(self) -> None:
        self._refreshing = True
        schema = self.document.plan.schema
        ids = [s.name for s in schema.columns if isinstance(s, IdentifierColumn)]
        others = [s.name for s in schema.columns if not isinstance(s, IdentifierColumn)]
        self.id_column.clear()
        self.id_column.addItems(ids + others)
        per_person = schema.unit.id_column is not None
        self.by_person.setChecked(per_person)
        self.by_row.setChecked(not per_person)
        if per_person:
            self.id_column.setCurrentText(schema.unit.id_column)
        self.k.setValue(schema.unit.max_rows_per_person)
        self.id_column.setEnabled(per_person)
        self.k.setEnabled(per_person)
        self.add_remove.setChecked(schema.neighbouring is Neighbouring.ADD_REMOVE)
        self.substitute.setChecked(schema.neighbouring is Neighbouring.SUBSTITUTE)
        self.public_size.setValue(schema.public_size or 0)
        self.consequence.setText(PERSON_WORDS if per_person else ROW_WORDS)
        self._refreshing = False

    def _edited(self) -> None:
        if self._refreshing:
            return
        plan = self.document.plan
        per_person = self.by_person.isChecked() and self.id_column.currentText()
        unit = PrivacyUnit(self.id_column.currentText(), self.k.value()) if per_person else PrivacyUnit()
        relation = Neighbouring.SUBSTITUTE if self.substitute.isChecked() else Neighbouring.ADD_REMOVE
        schema = replace(plan.schema, unit=unit, neighbouring=relation, public_size=self.public_size.value() or None)
        self.document.update(replace(plan, schema=schema))
