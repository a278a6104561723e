"""Tools > Randomised response designer: probabilities, expected errors and the local-model cost
for a sensitive survey question, and estimates from collected answers (core/randomized_response)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (
    QDialog,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from workbench.core.errors import WorkbenchError
from workbench.core.privacy import ResponseDesign, design_table, estimate_shares
from workbench.core.privacy.randomized_response import MAX_EPSILON, epsilon_text, probability_text

SHARES = (0.05, 0.2, 0.5)


class RandomizedResponseDialog(QDialog):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Randomised response designer")
        self.epsilon = QDoubleSpinBox()
        self.epsilon.setRange(0.01, MAX_EPSILON)  # the core's cap: beyond it an answer is all but the truth
        self.epsilon.setDecimals(4)
        self.epsilon.setValue(1.0)
        self.epsilon.setToolTip(
            f"ε for one respondent's answer, at most {MAX_EPSILON:g}: smaller protects more and needs more respondents."
        )
        self.categories = QLineEdit("yes, no")
        self.categories.setToolTip("The answer categories, separated by commas.")
        self.respondents = QSpinBox()
        self.respondents.setRange(1, 100_000_000)
        self.respondents.setValue(1000)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.table = QTableWidget(0, 4)
        self.table.setAccessibleName("Answers and their probabilities")
        self.table.setHorizontalHeaderLabels(["True share", "± randomised response", "± trusted curator", "Ratio"])
        self.table.horizontalHeaderItem(2).setToolTip(
            "The central model: one trusted party counts the true answers and adds Laplace noise at the same ε."
        )
        # each column as wide as its heading and numbers: at Qt's default width the headings were cut short
        # ("ındomised respo", "± trusted curato")
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.estimate_button = QPushButton("Estimate from collected answers…")
        self.estimate_button.setToolTip("A text file with one randomised answer per line.")
        self.estimates = QLabel()
        self.estimates.setWordWrap(True)
        form = QFormLayout()
        form.addRow("ε per respondent:", self.epsilon)
        form.addRow("Answer categories:", self.categories)
        form.addRow("Respondents:", self.respondents)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.summary)
        layout.addWidget(self.table)
        layout.addWidget(self.estimate_button)
        layout.addWidget(self.estimates)
        self.epsilon.valueChanged.connect(self.refresh)
        self.categories.editingFinished.connect(self.refresh)
        self.respondents.valueChanged.connect(self.refresh)
        self.estimate_button.clicked.connect(self.choose_answers)
        self.resize(640, 420)
        self.refresh()

    def design(self) -> ResponseDesign:
        names = tuple(c.strip() for c in self.categories.text().split(",") if c.strip())
        return ResponseDesign(names, self.epsilon.value())

    def refresh(self) -> None:
        try:
            design = self.design()
            rows = design_table(design, self.respondents.value(), SHARES)
        except WorkbenchError as exc:
            self.summary.setText(f"⚠ {exc}")
            self.table.setRowCount(0)
            return
        self.summary.setText(
            f"Each respondent's answer is ε-DP with ε = {epsilon_text(design.epsilon)} (checked by OpenDP's privacy "
            f"map). A respondent reports their true answer with probability p = "
            f"{probability_text(design.truth_probability)} and each other answer with q = "
            f"{probability_text(design.other_probability, up=True)}. The share of an answer is estimated as "
            "(share of reports − q) / (p − q), without bias. 95% margins of error:"
        )
        self.table.setRowCount(len(rows))
        for r, row in enumerate(rows):
            texts = [f"{row['share']:g}", f"± {row['randomised_response']:.4f}", f"± {row['central']:.4f}",
                     f"{row['ratio']:.1f}×"]
            for c, text in enumerate(texts):
                self.table.setItem(r, c, QTableWidgetItem(text))

    def choose_answers(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Collected randomised answers", "", "Text (*.txt *.csv);;All files (*)")
        if path:
            self.estimate_from(Path(path))

    def estimate_from(self, path: Path) -> None:
        try:
            lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
            estimates, n = estimate_shares(self.design(), lines)
        except (OSError, UnicodeDecodeError) as exc:
            self.estimates.setText(f"⚠ {path.name} cannot be read ({exc}). Give a UTF-8 text file, one answer per line.")
            return
        except WorkbenchError as exc:
            self.estimates.setText(f"⚠ {exc}")
            return
        lines_out = [f"<b>{n:,} answers</b>, 95% intervals:"] + [
            f"{e.category}: {e.share:.4f} [{e.low:.4f}, {e.high:.4f}]" for e in estimates
        ]
        self.estimates.setText("<br>".join(lines_out))
