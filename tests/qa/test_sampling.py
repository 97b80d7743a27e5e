"""The papers' samples: the indices AriGraph's script draws, on generated files of the official sizes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.qa.conftest import (
    HOTPOT_DEV_SIZE,
    MUSIQUE_DEV_SIZE,
    hotpot_records,
    musique_records,
    write_hotpot,
    write_musique,
)
from textmem_gym.qa.data import load_dataset
from textmem_gym.qa.sampling import PROTOCOLS, SamplingProtocol, protocol_info, sample


def _paper_indices(n: int, size: int) -> list[int]:
    """AriGraph's musique_test_big.py get_data: ``np.random.RandomState(seed=42).permutation(len(tasks))[:200]``."""
    return [int(i) for i in np.random.RandomState(seed=42).permutation(n)[:size]]


@pytest.fixture(scope="module")
def official_size_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("qa")
    write_hotpot(folder / "hotpot_dev_distractor_v1.json", hotpot_records(HOTPOT_DEV_SIZE))
    write_musique(folder / "musique_ans_v1.0_dev.jsonl", musique_records(MUSIQUE_DEV_SIZE))
    return folder


def test_arigraph_sample_of_hotpotqa_is_the_scripts_indices(official_size_dir: Path):
    examples = load_dataset("hotpotqa", official_size_dir)
    assert len(examples) == HOTPOT_DEV_SIZE
    chosen = sample(examples, "arigraph")
    assert [e.id for e in chosen] == [f"h{i}" for i in _paper_indices(HOTPOT_DEV_SIZE, 200)]
    # Pinned start and end of RandomState(42).permutation(7405), so a change in numpy's legacy generator shows.
    assert [e.id for e in chosen[:4]] == ["h4367", "h1867", "h3504", "h5015"]
    assert [e.id for e in chosen[-2:]] == ["h6765", "h177"]


def test_arigraph_sample_of_musique_is_the_scripts_indices(official_size_dir: Path):
    examples = load_dataset("musique", official_size_dir)
    assert len(examples) == MUSIQUE_DEV_SIZE
    chosen = sample(examples, "arigraph")
    expected = _paper_indices(MUSIQUE_DEV_SIZE, 200)
    assert [e.id for e in chosen] == [f"2hop__{i}_{i + 1}" for i in expected]
    assert expected[:4] == [410, 199, 1672, 2335] and expected[-2:] == [2162, 1525]
    assert len({e.id for e in chosen}) == 200  # no question twice


def test_davis_sample_is_400_and_starts_with_arigraphs_200(official_size_dir: Path):
    for name in ("hotpotqa", "musique"):
        examples = load_dataset(name, official_size_dir)
        davis = sample(examples, "davis")
        assert len(davis) == 400 and len({e.id for e in davis}) == 400
        assert davis[:200] == sample(examples, "arigraph")
        assert [examples.index(e) for e in davis[:3]] == _paper_indices(len(examples), 3)
    assert PROTOCOLS["davis"].chosen and not PROTOCOLS["arigraph"].chosen


def test_limit_keeps_a_prefix_of_the_sample():
    records = list(range(MUSIQUE_DEV_SIZE))
    full = sample(records, "arigraph")
    assert sample(records, "arigraph", limit=17) == full[:17]
    assert sample(records, "arigraph", limit=0) == []
    assert sample(records, "arigraph", limit=10_000) == full
    with pytest.raises(ValueError, match="limit must be >= 0 or None, got -1"):
        sample(records, "arigraph", limit=-1)


def test_a_file_smaller_than_the_sample_is_asked_whole_in_permuted_order(shipped_dir: Path):
    examples = load_dataset("hotpotqa", shipped_dir)
    chosen = sample(examples, "davis")
    assert sorted(e.id for e in chosen) == sorted(e.id for e in examples)
    assert [examples.index(e) for e in chosen] == _paper_indices(len(examples), len(examples))


def test_unknown_protocols_list_the_known_ones_and_custom_protocols_work():
    with pytest.raises(ValueError, match=r"unknown QA sampling protocol 'graphreader'; choose from \['arigraph', 'davis'\]"):
        sample([1, 2, 3], "graphreader")
    mine = SamplingProtocol("mine", size=2, seed=0, known="a test")
    assert protocol_info(mine) is mine
    assert sample(list("abcde"), mine) == [list("abcde")[i] for i in np.random.RandomState(0).permutation(5)[:2]]
    with pytest.raises(ValueError, match="got -3"):
        mine.indices(-3)
