"""Shared QA test fixtures: generated files in the official formats, the shipped synthetic folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from textmem_gym.qa.data import shipped_data_dir

#: Record counts of the official dev files (HotpotQA distractor dev; MuSiQue-Answerable dev).
HOTPOT_DEV_SIZE = 7405
MUSIQUE_DEV_SIZE = 2417


def hotpot_records(n: int) -> list[dict[str, object]]:
    """``n`` small records in HotpotQA's distractor format; record ``i`` has ``_id`` ``"h{i}"``."""
    return [{"_id": f"h{i}", "question": f"Which town is river {i} in?", "answer": f"Town {i}",
             "supporting_facts": [[f"River {i}", 0], [f"Town {i}", 1]],
             "context": [[f"River {i}", [f"River {i} flows north.", " It floods in May."]],
                         [f"Other {i}", ["Unrelated text."]],
                         [f"Town {i}", [f"Town {i} is old.", f" River {i} runs through it."]]],
             "type": "bridge", "level": "hard"} for i in range(n)]


def musique_records(n: int) -> list[dict[str, object]]:
    """``n`` small records in MuSiQue-Answerable's format; record ``i`` has id ``"2hop__{i}_{i+1}"``."""
    return [{"id": f"2hop__{i}_{i + 1}", "question": f"Who founded the maker of bell {i}?", "answer": f"Ann {i}",
             "answer_aliases": [f"Ann B. {i}"], "answerable": True,
             "paragraphs": [{"idx": 0, "title": f"Bell {i}", "paragraph_text": f"Bell {i} was cast by Firm {i}.",
                             "is_supporting": True},
                            {"idx": 1, "title": "Noise", "paragraph_text": "Nothing here.", "is_supporting": False},
                            {"idx": 2, "title": f"Firm {i}", "paragraph_text": f"Firm {i} was founded by Ann {i}.",
                             "is_supporting": True}],
             "question_decomposition": [
                 {"id": i, "question": f"Who cast bell {i}?", "answer": f"Firm {i}", "paragraph_support_idx": 0},
                 {"id": i + 1, "question": "Who founded #1?", "answer": f"Ann {i}", "paragraph_support_idx": 2}]}
            for i in range(n)]


def write_hotpot(path: Path, records: list[dict[str, object]]) -> Path:
    """Writes ``records`` as one JSON list (HotpotQA's layout)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(records), encoding="utf-8")
    return path


def write_musique(path: Path, records: list[dict[str, object]]) -> Path:
    """Writes ``records`` one JSON object per line (MuSiQue's layout)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


@pytest.fixture
def shipped_dir() -> Path:
    """The folder holding the shipped synthetic HotpotQA and MuSiQue files."""
    return shipped_data_dir()


@pytest.fixture
def isolated_qa_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No TEXTMEM_QA_DIR and a fresh cache root; returns the cache root."""
    monkeypatch.delenv("TEXTMEM_QA_DIR", raising=False)
    monkeypatch.setenv("TEXTMEM_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"
