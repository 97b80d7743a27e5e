"""Multi-hop QA over documents: official-format readers, sampling, scoring and a shipped set.

- :mod:`textmem_gym.qa.data`: :class:`QAExample`, the readers of HotpotQA's and MuSiQue's official
  dev files, :func:`load_dataset` (``--data DIR`` / ``TEXTMEM_QA_DIR`` / cache, optional download); its
  errors, dataset names and paragraphs are imported from there.
- :mod:`textmem_gym.qa.sampling`: the papers' samples by name (``"arigraph"``: 200, ``"davis"``: 400).
- :mod:`textmem_gym.qa.scoring`: EM and F1 as the official scripts compute them.
- :mod:`textmem_gym.qa.synthetic`: the invented QA set shipped in both official formats.

Example:
    >>> from textmem_gym.qa import load_dataset, sample, score, shipped_data_dir
    >>> questions = sample(load_dataset("musique", shipped_data_dir()), "arigraph", limit=2)
    >>> score(questions[0].answers[0], questions[0])
    {'em': 1.0, 'f1': 1.0}
"""

from __future__ import annotations

from textmem_gym.qa.data import QAExample, load_dataset, read_hotpotqa, read_musique, shipped_data_dir
from textmem_gym.qa.sampling import PROTOCOLS, SamplingProtocol, sample
from textmem_gym.qa.scoring import SCORERS, mean_scores, normalize_answer, score

__all__ = ["PROTOCOLS", "SCORERS", "QAExample", "SamplingProtocol", "load_dataset", "mean_scores", "normalize_answer",
           "read_hotpotqa", "read_musique", "sample", "score", "shipped_data_dir"]
