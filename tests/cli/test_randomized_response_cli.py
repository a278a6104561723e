"""``dp-workbench rr``: the ε it states is one OpenDP's privacy map proves, and a design that would
not randomise (ε above the cap, probabilities that round to 1) is refused with the reason."""

import pytest

from workbench.cli import main


def test_design_states_an_epsilon_checked_by_openDPs_map(capsys):
    assert main(["rr", "design", "--epsilon", "1", "--categories", "yes,no", "--respondents", "1000"]) == 0
    printed = capsys.readouterr().out
    assert "at ε = 1 (each respondent's own answer is ε-DP, checked by OpenDP's privacy map" in printed
    assert "p = 0.7310" in printed and "q = 0.2690" in printed  # p down, q up: no less private than shown


@pytest.mark.parametrize("epsilon", ["40", "25", "101"])
@pytest.mark.parametrize("action", ["design", "estimate"])
def test_an_epsilon_whose_answers_would_all_be_the_truth_is_refused(action, epsilon, tmp_path, capsys):
    """``rr design --epsilon 40`` printed "each respondent's own answer is ε-DP" with p = 1.0000."""
    answers = tmp_path / "answers.txt"
    answers.write_text("yes\nno\n")
    extra = ["--respondents", "1000"] if action == "design" else [str(answers)]
    assert main(["rr", action, "--epsilon", epsilon, "--categories", "yes,no", *extra]) == 2
    captured = capsys.readouterr()
    error = " ".join(captured.err.split())  # the message is wrapped to the terminal
    assert "ε-DP" not in captured.out and "too large for randomised response" in error and "at most 20" in error


def test_the_largest_epsilon_shows_probabilities_that_are_not_one(capsys):
    assert main(["rr", "design", "--epsilon", "20", "--categories", "yes,no", "--respondents", "1000"]) == 0
    printed = capsys.readouterr().out
    assert "p = 1 − 2.07e-09" in printed and "q = 2.07e-09" in printed and "1.0000" not in printed
