"""EM and F1 against hand-computed cases from the official definitions (hotpot_evaluate_v1.py; MuSiQue's
metrics/answer.py and evaluate_v1.0.py). Every expected number is worked out by hand in the comment beside it."""

from __future__ import annotations

import pytest

from textmem_gym.qa.data import QAExample
from textmem_gym.qa.scoring import SCORERS, exact_match, hotpot_f1, mean_scores, musique_f1, normalize_answer, score


def _example(dataset: str, *answers: str) -> QAExample:
    return QAExample("x", dataset, "q?", tuple(answers), (), (), 2, None)


@pytest.mark.parametrize(("text", "normalized"), [
    ("The Sarl River!", "sarl river"),                      # lower, drop "!", drop "the"
    ("  A  tale of  Two-Cities. ", "tale of twocities"),    # "-" and "." dropped, "a" dropped, spaces collapsed
    ("Anne's theatre", "annes theatre"),                    # "'" dropped; "an" inside a word stays
    ("An apple, an egg and THE end", "apple egg and end"),  # every a/an/the dropped as a whole word
    ("1786–1851", "1786–1851"),                             # the en dash is not in string.punctuation
    ("", ""),
])
def test_normalization_is_the_official_one(text: str, normalized: str):
    assert normalize_answer(text) == normalized


def test_exact_match_compares_normalized_strings():
    assert exact_match("the Keltrim Glassworks.", "Keltrim glassworks") == 1.0  # both -> "keltrim glassworks"
    assert exact_match("Keltrim", "Keltrim Glassworks") == 0.0
    assert exact_match("", "The") == 1.0  # both normalize to ""


def test_token_f1_by_hand():
    # pred tokens [sarl, river, in, ossen] (4), gold [sarl, river] (2), shared 2:
    # P = 2/4 = 0.5, R = 2/2 = 1, F1 = 2 * 0.5 * 1 / (0.5 + 1) = 1 / 1.5 = 2/3
    assert hotpot_f1("Sarl River in Ossen", "the Sarl River") == pytest.approx(2 / 3)
    assert musique_f1("Sarl River in Ossen", "the Sarl River") == pytest.approx(2 / 3)
    # shared counts are clipped: pred [river x3], gold [river, sarl] -> shared min(3, 1) = 1;
    # P = 1/3, R = 1/2, F1 = 2 * (1/6) / (5/6) = 2/5
    assert hotpot_f1("river river river", "river Sarl") == pytest.approx(0.4)
    # no shared token -> 0
    assert hotpot_f1("Ossen", "Sarl River") == 0.0 and musique_f1("Ossen", "Sarl River") == 0.0


def test_hotpotqa_yes_no_noanswer_must_match_exactly():
    assert hotpot_f1("Yes.", "yes") == 1.0  # both normalize to "yes"
    assert hotpot_f1("yes", "no") == 0.0
    # gold "yes" is special and pred "yes they were" differs from it -> 0 in HotpotQA,
    # where MuSiQue's rule gives P = 1/3, R = 1/1, F1 = 2 * (1/3) / (4/3) = 0.5
    assert hotpot_f1("yes, they were", "yes") == 0.0
    assert musique_f1("yes, they were", "yes") == pytest.approx(0.5)
    # pred "noanswer" is special too
    assert hotpot_f1("noanswer", "Ossen") == 0.0


def test_empty_answers_differ_between_the_two_scripts():
    # both sides normalize to no token: HotpotQA finds no shared token -> 0; MuSiQue: "1 if they agree" -> 1
    assert hotpot_f1("", "the") == 0.0
    assert musique_f1("", "the") == 1.0
    # one side empty: MuSiQue -> 0 (they do not agree)
    assert musique_f1("", "Ossen") == 0.0 and musique_f1("Ossen", "") == 0.0


def test_musique_takes_the_maximum_over_the_answer_and_its_aliases():
    example = _example("musique", "Port Ossen", "Ossenhaven")
    assert score("Ossenhaven", example) == {"em": 1.0, "f1": 1.0}  # the alias matches exactly
    # "the port" -> [port]: against "Port Ossen" [port, ossen]: P = 1/1, R = 1/2, F1 = 2 * 0.5 / 1.5 = 2/3;
    # against "Ossenhaven": 0. The maximum is 2/3; EM 0 against both.
    result = score("the port", example)
    assert result["em"] == 0.0 and result["f1"] == pytest.approx(2 / 3)


def test_score_uses_the_rule_of_the_examples_dataset():
    assert score("yes it is", _example("hotpotqa", "yes")) == {"em": 0.0, "f1": 0.0}
    # MuSiQue rule: [yes, it, is] vs [yes]: P = 1/3, R = 1, F1 = 2 * (1/3) / (4/3) = 0.5
    assert score("yes it is", _example("musique", "yes"))["f1"] == pytest.approx(0.5)
    assert set(SCORERS) == {"hotpotqa", "musique"}
    with pytest.raises(ValueError, match=r"unknown QA dataset 'squad': no answer scorer; choose from \['hotpotqa', 'musique'\]"):
        score("a", _example("squad", "a"))


def test_mean_scores_divides_by_the_number_of_questions():
    # EM: (1 + 0 + 0) / 3 = 1/3; F1: (1 + 2/3 + 0) / 3 = (5/3) / 3 = 5/9
    means = mean_scores([{"em": 1.0, "f1": 1.0}, {"em": 0.0, "f1": 2 / 3}, {"em": 0.0, "f1": 0.0}])
    assert means == pytest.approx({"em": 1 / 3, "f1": 5 / 9, "n": 3.0})
    assert mean_scores([]) == {"n": 0.0}
