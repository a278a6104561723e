"""What a release publishes: the report model, HTML, PDF, figures, exports, the number formatter.
May import every core layer before it; reads only released values and public context."""

from workbench.core.report.export import PAPER_SIZES, REPORT_FORMATS, write_report, write_results
from workbench.core.report.numbers import (
    coefficient_of_variation,
    error_words,
    interval_cost_words,
    interval_preview_words,
    released_error,
    released_number,
    reliability_words,
    reliable_from_words,
)

__all__ = [
    "coefficient_of_variation", "error_words", "interval_cost_words", "interval_preview_words", "PAPER_SIZES", "released_error", "released_number", "reliability_words", "reliable_from_words", "REPORT_FORMATS", "write_report", "write_results",
]
