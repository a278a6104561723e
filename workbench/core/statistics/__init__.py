"""The statistics a plan can release, one module per family, each a recipe that draws no noise.
May import ``data`` and ``privacy``; ``release`` and ``report`` use the names below."""

from workbench.core.statistics.base import (
    Cell,
    Query,
    Statistic,
    count_is_public,
    grouping,
    grouping_json,
    grouping_words,
)
from workbench.core.statistics.counts import Count, CrossTab, Histogram
from workbench.core.statistics.grid import GRID_BITS, SumGrid, exact_sum
from workbench.core.statistics.kinds import STATISTIC_TYPES, statistic_from_json
from workbench.core.statistics.moments import Mean, StandardDeviation, Sum, Variance
from workbench.core.statistics.proportions import Proportion
from workbench.core.statistics.quantiles import BoundsSearch, Quantiles, level_words
from workbench.core.statistics.weights import FIXED_WEIGHTS_WORDS, SAMPLING_ERROR_WORDS, WEIGHTED_TYPES

__all__ = [
    "FIXED_WEIGHTS_WORDS", "SAMPLING_ERROR_WORDS", "WEIGHTED_TYPES",
    "BoundsSearch", "Cell", "Count", "CrossTab", "GRID_BITS", "Histogram", "Mean", "Proportion", "Query", "Quantiles",
    "STATISTIC_TYPES", "StandardDeviation", "Statistic", "Sum", "SumGrid", "Variance", "count_is_public",
    "exact_sum", "grouping", "grouping_json", "grouping_words", "level_words", "statistic_from_json",
]
