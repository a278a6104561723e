"""The report model: everything the published report says, built from a Release alone.

A Release holds only released (DP) values and public context, so a report built from it
cannot disclose more; the report adds explanations, the plain-language reading of the
guarantee (``risk``), and pictures (``figures``). The HTML and PDF renderers only lay
this model out, so the two formats cannot say different things.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from workbench.core.privacy import Guarantee, risk, spent_in_words
from workbench.core.release import Flag, Release, ReleasedStatistic, software_in_words
from workbench.core.report import figures as report_figures
from workbench.core.report.numbers import error_words, released_number, reliability_words
from workbench.core.report.shown import ShownCells, shown_cells
from workbench.core.statistics import FIXED_WEIGHTS_WORDS, SAMPLING_ERROR_WORDS
from workbench.core.synthetic import synthetic_quality_lines

REFERENCES = {
    "dwork-roth": "C. Dwork and A. Roth. The Algorithmic Foundations of Differential Privacy. Foundations and "
    "Trends in Theoretical Computer Science 9(3–4), 2014.",
    "cks20": "C. Canonne, G. Kamath and T. Steinke. The Discrete Gaussian for Differential Privacy. NeurIPS 2020.",
    "bun-steinke": "M. Bun and T. Steinke. Concentrated Differential Privacy: Simplifications, Extensions, and "
    "Lower Bounds. TCC 2016.",
    "pf": "R. McKenna and D. Sheldon. Permute-and-Flip: A new mechanism for differentially private selection. "
    "NeurIPS 2020.",
    "pld": "S. Doroshenko, B. Ghazi, P. Kamath, R. Kumar and P. Manurangsi. Connect the Dots: Tighter Discrete "
    "Approximations of Privacy Loss Distributions. PETS 2022 (dp-accounting).",
    "kov": "P. Kairouz, S. Oh and P. Viswanath. The Composition Theorem for Differential Privacy. ICML 2015.",
    "casacuberta": "S. Casacuberta, M. Shoemate, S. Vadhan and C. Wagaman. Widespread Underestimation of "
    "Sensitivity in Differentially Private Libraries and How to Fix It. CCS 2022.",
    "bbg18": "B. Balle, G. Barthe and M. Gaboardi. Privacy Amplification by Subsampling: Tight Analyses via "
    "Couplings and Divergences. NeurIPS 2018.",
    "opendp": "The OpenDP Library, version 0.16 (opendp.org): every noise value is drawn by its samplers.",
    "mst": "R. McKenna, G. Miklau and D. Sheldon. Winning the NIST Contest: A scalable and general approach to "
    "differentially private synthetic data. Journal of Privacy and Confidentiality 11(3), 2021 (MST).",
    "aim": "R. McKenna, B. Mullins, D. Sheldon and G. Miklau. AIM: An Adaptive and Iterative Mechanism for "
    "Differentially Private Synthetic Data. VLDB 2022.",
    "pgm": "R. McKenna, D. Sheldon and G. Miklau. Graphical-model based estimation and inference for differential "
    "privacy. ICML 2019 (Private-PGM).",
}

MECHANISM_WORDS = {
    "laplace": "discrete Laplace noise (pure ε-DP)",
    "gaussian": "discrete Gaussian noise ((ε, δ)-DP through zero-concentrated DP)",
    "exponential": "permute-and-flip selection among public candidate points (pure ε-DP)",
}


@dataclass(frozen=True)
class Picture:
    caption: str
    png: bytes


@dataclass(frozen=True)
class ReportRow:
    cell: str
    value: str
    error: str
    note: str
    reliability: str = ""  # its flag and CV ("use with caution (CV 21%)"); a suppressed cell shows no value


@dataclass(frozen=True)
class StatisticSection:
    label: str
    epsilon: float
    delta: float
    mechanism: str
    noise: str  # the noise scale of each query, with its sensitivity
    method: str
    post_processing: tuple[str, ...]
    rows: tuple[ReportRow, ...]
    pictures: tuple[Picture, ...]
    columns: str = ""  # the file's labels of the columns it reads: "wage: Weekly wage (USD)"
    quality: tuple[str, ...] = ()  # a synthetic table: what it holds, how to read its distances, what it does not keep
    folded: str = ""  # how many '(other)' groups are not shown, and that results.json holds them (shown.shown_cells)


@dataclass(frozen=True)
class Report:
    title: str
    dataset: str
    description: str
    created: str
    software: str
    privacy_unit: str
    neighbouring: str
    confidence: float
    total: Guarantee
    budget_lines: tuple[str, ...]  # what this and earlier releases spent, against the dataset's budget
    sampling_lines: tuple[str, ...]
    reading: tuple[str, ...]  # the plain-language reading of the total
    statistics: tuple[StatisticSection, ...]
    profile: Picture
    methodology: tuple[str, ...]
    not_covered: tuple[str, ...]
    references: tuple[str, ...]


def build_report(release: Release, title: str | None = None, show_other: bool = False, how: str = "") -> Report:
    """The report of one release. ``title`` defaults to the dataset's name. A statistic by group shows its
    '(other)' groups only with ``show_other``; else one line says how many are not shown (and ``how`` how to show
    them), and that results.json holds them."""
    substitute = "substitut" in release.neighbouring.lower() or "replac" in release.neighbouring.lower()
    total = release.guarantee
    count = _released_row_count(release)
    sections = tuple(_section(s, release.confidence, count, shown_cells(s, show_other, how))
                     for s in release.statistics)
    events = [event for statistic in release.statistics for event in statistic.noise]
    points = risk.privacy_profile(events)
    unbounded = [d for d, e in points if d > 0 and e == float("inf")]
    profile = Picture(
        "Every pair (ε′, δ′) that this release satisfies, by privacy-loss-distribution accounting: a smaller ε′ "
        "holds with a larger δ′. The stated guarantee is marked."
        + (f" For δ′ ≤ {max(unbounded):.0e} no finite ε′ is proven (the statistics' own δ is larger)." if unbounded else ""),
        report_figures.privacy_profile(points, (total.epsilon, total.delta)),
    )
    used = {"dwork-roth", "opendp", "kov", "casacuberta", "pld"}
    mechanisms = {s.mechanism for s in release.statistics}
    if "gaussian" in mechanisms:
        used |= {"cks20", "bun-steinke"}
    if "exponential" in mechanisms:
        used.add("pf")
    if release.sampling:
        used.add("bbg18")
    for statistic in release.statistics:
        if statistic.synthetic:
            used |= {"pgm", statistic.synthetic.get("algorithm", "mst")}
    return Report(
        title=title or release.dataset_name,
        dataset=release.dataset_name,
        description=release.dataset_description,
        created=release.created,
        software=software_in_words(release.software_version, release.libraries),
        privacy_unit=release.privacy_unit,
        neighbouring=release.neighbouring,
        confidence=release.confidence,
        total=total,
        budget_lines=_budget_lines(release),
        sampling_lines=_sampling_lines(release),
        reading=risk.reading(total.epsilon, total.delta).sentences(substitute),
        statistics=sections,
        profile=profile,
        methodology=_methodology(release, mechanisms),
        not_covered=_not_covered(release),
        references=tuple(REFERENCES[k] for k in REFERENCES if k in used),
    )


def _released_row_count(release: Release) -> float | None:
    """The released count of all rows, if the release has one: used only to draw quantile
    errors on the level axis (post-processing of released values)."""
    for statistic in release.statistics:
        if (statistic.type == "count" and not statistic.by and not statistic.weighted_by and statistic.column is None
                and statistic.cells):
            value = statistic.cells[0].value
            return value if value is not None and value > 0 else None
    return None


def _section(statistic: ReleasedStatistic, confidence: float, count: float | None,
             shown: ShownCells) -> StatisticSection:
    rows = tuple(
        ReportRow(
            cell=c.label or "—",
            value=_published_value(c),
            error="" if c.error is None or c.flag == SUPPRESSED else error_words(c.error, c.error_unit, c.lower, c.upper),
            note=c.note,
            reliability=reliability_words(c.flag, c.cv),
        )
        for c in shown.cells
    )
    noise = "; ".join(
        f"{n.label}: scale {n.scale:.4g} (sensitivity {n.sensitivity:.4g})" for n in statistic.noise
    ) or "no noise"
    return StatisticSection(
        label=statistic.label,
        epsilon=statistic.epsilon,
        delta=statistic.delta,
        mechanism=MECHANISM_WORDS.get(statistic.mechanism, statistic.mechanism),
        noise=noise,
        method=statistic.method,
        post_processing=statistic.post_processing,
        rows=rows,
        pictures=_pictures(replace(statistic, cells=shown.cells), confidence, count),
        columns="; ".join(f"{name}: {label}" for name, label in statistic.column_labels),
        quality=synthetic_quality_lines(statistic.synthetic) if statistic.synthetic else (),
        folded=shown.words,
    )


QUALITY_SHOWN = 4  # bar charts of a synthetic table: its worst one-way marginals and first measured relationship


SUPPRESSED = Flag.SUPPRESS.value  # as results.json writes it


def _published_value(cell) -> str:
    """What the report prints for a cell: its value, or why there is none (a cell too unreliable to publish is
    suppressed; results.json still holds its noisy value for the curator)."""
    if cell.value is None:
        return "not released"
    if cell.flag == SUPPRESSED:
        return "suppressed"
    if not cell.reliable:
        return "not reliable"
    return released_number(cell.value, None if cell.error_unit else cell.error)


def _pictures(statistic: ReleasedStatistic, confidence: float, count: float | None) -> tuple[Picture, ...]:
    pictures = []
    cells = [c for c in statistic.cells if c.value is not None and c.flag != SUPPRESSED]  # as the table prints them
    if statistic.type in ("histogram", "crosstab", "proportion") and cells:
        left_out = len(statistic.cells) - len(cells)
        what = "shares" if statistic.type == "proportion" else "counts"
        pictures.append(Picture(
            f"{statistic.label}: released {what} with their {confidence:.0%} error bounds."
            + (f" {left_out} suppressed or unreleased cell{'s are' if left_out > 1 else ' is'} not drawn." if left_out else ""),
            report_figures.bars_with_errors(
                [c.label for c in cells], [c.value for c in cells], [c.error or 0.0 for c in cells], statistic.label
            ),
        ))
    if statistic.type == "quantiles" and cells and not statistic.by:
        levels = _levels(statistic)
        if len(levels) == len(cells):
            bound = max((c.error or 0.0) for c in cells)
            level_error = bound / count if count else None
            intervals = None
            if all(c.lower is not None and c.upper is not None for c in cells):
                intervals = [(c.lower, c.upper) for c in cells]
            bars = "The sideways bars" if intervals else "The bars"
            sideways = (
                f" {bars} show ±{bound:,.0f} ranks as a share of the released count of rows: each value is the "
                "true quantile of a level within the bar." if level_error else
                f" Their error is ±{bound:,.0f} ranks (rows), which cannot be drawn on the value axis."
            )
            if intervals:
                sideways += f" The upright bars are the {confidence:.0%} intervals in the column's units."
            pictures.append(Picture(
                f"{statistic.label}: released values by level.{sideways}",
                report_figures.quantiles_with_errors(levels, [c.value for c in cells], level_error, statistic.label,
                                                     statistic.column or "value", intervals),
            ))
    if statistic.type == "synthetic" and statistic.synthetic:
        pictures.extend(_synthetic_pictures(statistic))
    elif statistic.noise:
        pictures.append(Picture(
            f"{statistic.label}: the distribution of the noise of each query (public: it depends on the scale only).",
            report_figures.noise_distributions(statistic.noise, confidence, f"Noise of {statistic.label}"),
        ))
    return tuple(pictures)


def _synthetic_pictures(statistic: ReleasedStatistic) -> list[Picture]:
    """A few marginals, synthetic shares next to the noisy measured ones: the one-way marginals farthest apart, and
    the first relationship measured (at most 40 cells drawn, the rest said)."""
    marginals = statistic.synthetic.get("marginals", []) if statistic.synthetic else []
    one_way = sorted((m for m in marginals if m["one_way"]), key=lambda m: -m["total_variation_distance"])
    chosen = one_way[: QUALITY_SHOWN - 1] + [m for m in marginals if not m["one_way"]][:1]
    pictures = []
    for m in chosen:
        shown = 40
        name = " × ".join(m["columns"])
        pictures.append(Picture(
            f"{name}: shares of the synthetic rows beside the noisy measured shares (total variation distance "
            f"{100 * m['total_variation_distance']:.2g}% of rows)." + (f" The first {shown} of {len(m['labels'])} cells are drawn."
                                                         if len(m["labels"]) > shown else ""),
            report_figures.paired_bars(m["labels"][:shown], m["synthetic"][:shown], m["measured"][:shown],
                                       f"{name}: synthetic and measured"),
        ))
    return pictures


LEVEL_WORDS = {"median": 0.5}  # other levels are written "25th percentile" (statistics.quantiles.level_words)


def _levels(statistic: ReleasedStatistic) -> list[float]:
    """The levels of a quantile statistic, read back from its cell labels (e.g. "median", "90th percentile")."""
    levels = []
    for cell in statistic.cells:
        words = cell.label.split(" / ")[-1].strip()
        if words in LEVEL_WORDS:
            levels.append(LEVEL_WORDS[words])
            continue
        digits = "".join(ch for ch in words.split(" ")[0] if ch.isdigit() or ch == ".")
        try:
            levels.append(float(digits) / 100)
        except ValueError:
            return []
    return levels


def _budget_lines(release: Release) -> tuple[str, ...]:
    total = release.guarantee
    lines = [f"This release: ε = {total.epsilon:.4g}, δ = {total.delta:.3g}, by {total.method}."]
    ledger = release.ledger or {}
    before, after, budget = (ledger.get(k) for k in ("spent_before_this_release", "spent_including_this_release", "dataset_budget"))
    if before is not None:
        earlier = ledger.get("releases_before_this_one", 0)
        lines.append(
            f"Earlier releases of '{release.dataset_name}' ({earlier}) had spent ε = {before['epsilon']:.4g}, "
            f"δ = {before['delta']:.3g}." if earlier else f"No earlier release of '{release.dataset_name}' is recorded."
        )
    if after is not None and budget is not None:
        lines.append(
            f"All releases of this dataset together, including this one ({after['method']}): the dataset has "
            f"{spent_in_words(Guarantee.from_json(after), Guarantee.from_json(budget))}. Recorded in the privacy "
            f"ledger as entry {ledger.get('entry')}."
        )
    return tuple(lines)


def _sampling_lines(release: Release) -> tuple[str, ...]:
    if not release.sampling:
        return ()
    s = release.sampling
    this, every = s["this_release"], s["all_releases"]
    return (
        f"The data are claimed to be a sample drawn with probability {s['rate']:g} per person. For a person of the "
        f"population, this release is (ε = {this['epsilon']:.4g}, δ = {this['delta']:.3g})-DP and all releases of "
        f"the sample together (ε = {every['epsilon']:.4g}, δ = {every['delta']:.3g})-DP.",
        s["conditions"],
    )


def _methodology(release: Release, mechanisms: set[str]) -> tuple[str, ...]:
    lines = [
        "Differential privacy (Dwork & Roth 2014) limits how much the results can depend on any one person: "
        f"here a person is {release.privacy_unit}, and two datasets are neighbours when {release.neighbouring}. "
        "Each statistic's sensitivity (how far one person can move it) follows from the public bounds and "
        "categories and from the most rows one person can have; noise scaled to it is added.",
        "Sums are computed exactly on integers (values clamped to their bounds and scaled to a public grid), so "
        "floating-point rounding cannot enlarge the sensitivity (Casacuberta et al. 2022). Every noise value is "
        "drawn by OpenDP's exact samplers on integers.",
    ]
    words = [MECHANISM_WORDS[m] for m in ("laplace", "gaussian", "exponential") if m in mechanisms]
    if words:
        lines.append("Mechanisms used: " + "; ".join(words) + ".")
    if "exponential" in mechanisms:
        lines.append(
            "Quantiles are chosen among 10,001 evenly spaced points of the public bounds by permute-and-flip "
            "(McKenna & Sheldon 2020). Their error is stated in ranks (rows between the released value and the "
            "best point), which holds whatever the data; in the column's units it depends on how dense the data "
            "are, which is private."
        )
    if any(statistic.weighted_by for statistic in release.statistics):
        lines.append(
            "Weighted statistics sum each row's survey weight (or weight times value), clamped into the weight's "
            "public bounds, so one person's rows move them by at most their number times the largest product. "
            + FIXED_WEIGHTS_WORDS + " " + SAMPLING_ERROR_WORDS
        )
    if any(statistic.type == "synthetic" for statistic in release.statistics):
        lines.append(
            "Synthetic microdata: OpenDP's contingency table (make_contingency_table) measured, with noise, every "
            "column's one-way marginal over its public cells (half of its budget), then chose pairs of columns "
            "(MST: a tree that connects every column, by noisy selection; AIM: adaptively, by how poorly the model "
            "fits them) and measured them with the rest; relationships the plan asked to keep are measured first. "
            "Private-PGM fitted a graphical model to all measured marginals, and the rows were drawn from it "
            "(post-processing, which costs no ε). The privacy analysis is OpenDP's own map of the whole measurement. "
            "The quality figures compare the synthetic rows with the noisy measurements only: the real rows are "
            "never compared with anything."
        )
    if any(statistic.type == "proportion" for statistic in release.statistics):
        lines.append(
            "Proportions and percentages are each group's noisy counts divided by their noisy total: they add up "
            "to the whole and cost what the counts cost. A share's error bound comes from the noise of its own "
            "count and of the group's other counts at the released share and total, as the ratio combines them."
        )
    lines.append(
        f"Error bounds: with {release.confidence:.0%} probability the noise in a released value is within the stated "
        "bound. They are exact for the noise distributions (or computed from public inputs by simulation where "
        "post-processing combines two noises) and cover the noise only."
    )
    if release.reliability:
        caution, suppress = release.reliability["caution_above"], release.reliability["suppress_above"]
        lines.append(
            "Reliability: each cell's coefficient of variation (CV) is its noise's standard error (the error bound "
            "divided by the normal quantile of the confidence level, as agencies derive one from a margin of error) "
            f"over the released value. A cell with a CV up to {caution:.1%} is reliable, up to {suppress:.1%} to be "
            "used with caution, and above that too unreliable to publish: it is shown as suppressed (thresholds as "
            "in Statistics Canada's Labour Force Survey unless the plan sets others). The CV counts the DP noise "
            "only, not sampling error."
        )
    lines.append(
        "Composition: the guarantees of the statistics are combined by the tightest valid accountant: basic "
        "composition, zero-concentrated DP (Bun & Steinke 2016) or privacy loss distributions (dp-accounting). "
        "A statistic by group spends its ε once: each person is in one group (parallel composition)."
    )
    lines.append(
        "Reading of the guarantee: the bounds on belief, testing and guessing follow from the definition "
        "(Dwork & Roth 2014, §2.3; Kairouz, Oh & Viswanath 2015)."
    )
    return tuple(lines)


def _not_covered(release: Release) -> tuple[str, ...]:
    total = release.guarantee
    groups = ", ".join(
        f"{k} persons: ε = {e:.3g}" + (f", δ = {d:.2g}" if total.delta else "")
        for k, (e, d) in ((k, risk.group_guarantee(total.epsilon, total.delta, k)) for k in (2, 4))
    )
    lines = [
        "The public inputs are not protected: the column names, the bounds, the categories, the choice of "
        "statistics and this report's description are published as they are.",
        "Values outside the public bounds were clamped to them, and rows outside the public categories counted "
        "as '(other)' or left out, as the plan chose. This moves the statistics by an amount no error bound "
        "computed without the data can state.",
        f"The guarantee is for one privacy unit ({release.privacy_unit}). A group of k such units, e.g. a "
        f"household of k persons, is protected only with k·ε (group privacy): {groups}.",
        "Differential privacy protects what is particular to a person, not what is true of a group: conclusions "
        "about a population that are true with or without any one person can be drawn from the results, and "
        "that is their purpose.",
        "Values released earlier by other means, or other releases of the same people outside this ledger, "
        "are not accounted for here.",
    ]
    if total.delta > 0:
        lines.append(
            f"δ = {total.delta:.2g} allows results that the ε bounds do not cover, with probability up to about δ."
        )
    return tuple(lines)

