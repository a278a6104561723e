"""The DP itself: OpenDP mechanisms, sensitivity, error bounds, events and their accountants.
May import ``data`` (the schema's neighbouring relation) and ``errors``; computes no statistic."""

from workbench.core.privacy.accounting import BASIC
from workbench.core.privacy.accuracy import (
    SIMULATIONS,
    combined_halfwidth,
    noise_probability,
    simulated_halfwidth,
    simulated_noise,
    simulation_rng,
)
from workbench.core.privacy.composition import compose, compose_releases, overspend, spent_in_words
from workbench.core.privacy.events import Guarantee, MechanismEvent
from workbench.core.privacy.mechanisms import (
    QUANTILE_CANDIDATES,
    MechanismKind,
    Noise,
    bounds_candidates,
    calibrate,
    calibrate_quantile,
    check_delta,
    check_epsilon,
    person_distance,
    quantile_candidates,
    quantile_rank_halfwidth,
)
from workbench.core.privacy.randomized_response import ResponseDesign, design_table, estimate_shares
from workbench.core.privacy.risk import reading
from workbench.core.privacy.sampling import SAMPLING_CONDITIONS, amplified_by_sampling
from workbench.core.privacy.sensitivity import Sensitivity

__all__ = [
    "amplified_by_sampling", "BASIC", "bounds_candidates", "calibrate", "calibrate_quantile", "check_delta",
    "check_epsilon", "combined_halfwidth", "compose", "compose_releases", "design_table", "estimate_shares", "Guarantee",
    "MechanismEvent", "MechanismKind", "Noise", "noise_probability", "overspend", "person_distance",
    "QUANTILE_CANDIDATES", "quantile_candidates", "quantile_rank_halfwidth", "reading", "ResponseDesign",
    "SAMPLING_CONDITIONS", "Sensitivity", "simulated_halfwidth", "simulated_noise", "simulation_rng",
    "SIMULATIONS", "spent_in_words",
]
