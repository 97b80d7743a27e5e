"""Readers of the official QA files, the data-folder settings, and downloads from a real local HTTP server."""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.file_server import Served, closed_port_url, serve_directory
from tests.qa.conftest import hotpot_records, musique_records, write_hotpot, write_musique
from textmem_gym.downloads import ChecksumError
from textmem_gym.qa.data import (
    DATASETS,
    QA_DIR_ENV,
    Paragraph,
    QADataError,
    QADataNotFoundError,
    dataset_info,
    load_dataset,
    qa_data_dir,
    read_hotpotqa,
    read_musique,
)

HOTPOT = "hotpot_dev_distractor_v1.json"
MUSIQUE = "musique_ans_v1.0_dev.jsonl"


# --- readers -------------------------------------------------------------------------------------


def test_read_hotpotqa_maps_every_field(tmp_path: Path):
    [example] = read_hotpotqa(write_hotpot(tmp_path / HOTPOT, hotpot_records(1)))
    assert (example.id, example.dataset, example.question) == ("h0", "hotpotqa", "Which town is river 0 in?")
    assert example.answers == ("Town 0",)
    assert [p.title for p in example.paragraphs] == ["River 0", "Other 0", "Town 0"]  # file order
    assert example.paragraphs[0] == Paragraph("River 0", "River 0 flows north. It floods in May.",
                                              ("River 0 flows north.", " It floods in May."), True)
    assert [p.is_supporting for p in example.paragraphs] == [True, False, True]
    assert [p.title for p in example.gold_paragraphs()] == ["River 0", "Town 0"]
    assert example.supporting_facts == (("River 0", 0), ("Town 0", 1))
    assert (example.hops, example.kind) == (2, "bridge")


def test_read_musique_maps_every_field_and_keeps_aliases(tmp_path: Path):
    [example] = read_musique(write_musique(tmp_path / MUSIQUE, musique_records(1)))
    assert (example.id, example.dataset, example.kind, example.hops) == ("2hop__0_1", "musique", "2hop", 2)
    assert example.answers == ("Ann 0", "Ann B. 0")
    assert example.paragraphs[1] == Paragraph("Noise", "Nothing here.", ("Nothing here.",), False)
    assert example.supporting_facts == (("Bell 0", 0), ("Firm 0", 0))
    assert [p.title for p in example.gold_paragraphs()] == ["Bell 0", "Firm 0"]


def test_read_musique_leaves_out_unanswerable_records(tmp_path: Path):
    records = musique_records(3)
    records[1] = {**records[1], "answerable": False}
    examples = read_musique(write_musique(tmp_path / MUSIQUE, records))
    assert [e.id for e in examples] == ["2hop__0_1", "2hop__2_3"]


def test_a_record_missing_a_field_names_the_file_and_the_record(tmp_path: Path):
    records = hotpot_records(5)
    del records[3]["answer"]
    path = write_hotpot(tmp_path / HOTPOT, records)
    with pytest.raises(QADataError) as error:
        read_hotpotqa(path)
    assert str(path) in str(error.value) and "record 3 (_id h3)" in str(error.value)
    assert "'answer'" in str(error.value) and "\n" not in str(error.value)


def test_a_malformed_musique_line_names_the_file_and_the_line(tmp_path: Path):
    path = write_musique(tmp_path / MUSIQUE, musique_records(3))
    lines = path.read_text().splitlines()
    path.write_text("\n".join([lines[0], lines[1], "{not json", lines[2]]) + "\n")
    with pytest.raises(QADataError, match=r"musique_ans_v1.0_dev.jsonl: line 3 is not JSON"):
        read_musique(path)
    bad = musique_records(2)
    bad[1]["paragraphs"] = "not a list"
    with pytest.raises(QADataError, match=r"line 2 \(id 2hop__1_2\) is not in the official format"):
        read_musique(write_musique(tmp_path / "bad.jsonl", bad))


@pytest.mark.parametrize(("content", "expected"), [
    ("{\"_id\": 1}", "expected a JSON list of records, got dict"),
    ("[1, 2]", "record 0 (_id ?) is not in the official format: expected a JSON object, got int"),
    ("[{\"_id\": \"x\", \"question\": \"q\", \"answer\": \"a\", \"supporting_facts\": [], \"context\": [[\"t\", \"s\"]]}]",
     "context entry 't' must be [title, [sentences]]"),
    ("not json", "not a HotpotQA JSON file"),
])
def test_malformed_hotpotqa_files_give_one_clear_error(tmp_path: Path, content: str, expected: str):
    path = tmp_path / HOTPOT
    path.write_text(content)
    with pytest.raises(QADataError, match=r"^" + str(path).replace("\\", "\\\\")) as error:
        read_hotpotqa(path)
    assert expected in str(error.value)


def test_both_readers_read_the_shipped_set(shipped_dir: Path):
    assert len(read_hotpotqa(shipped_dir / HOTPOT)) >= 30
    assert len(read_musique(shipped_dir / MUSIQUE)) >= 30


# --- where load_dataset looks ----------------------------------------------------------------------


def test_the_argument_wins_over_the_setting_and_the_setting_over_the_cache(
        tmp_path: Path, isolated_qa_env: Path, monkeypatch: pytest.MonkeyPatch):
    write_hotpot(tmp_path / "arg" / HOTPOT, hotpot_records(2))
    write_hotpot(tmp_path / "env" / HOTPOT, hotpot_records(3))
    write_hotpot(isolated_qa_env / "qa" / HOTPOT, hotpot_records(4))
    assert len(load_dataset("hotpotqa")) == 4
    assert qa_data_dir() == isolated_qa_env / "qa"
    monkeypatch.setenv(QA_DIR_ENV, str(tmp_path / "env"))
    assert len(load_dataset("hotpotqa")) == 3
    assert len(load_dataset("hotpotqa", tmp_path / "arg")) == 2
    assert len(load_dataset("hotpotqa", str(tmp_path / "arg"))) == 2


def test_a_missing_file_says_where_it_looked_and_how_to_point_at_it(tmp_path: Path, isolated_qa_env: Path):
    with pytest.raises(QADataNotFoundError) as error:
        load_dataset("musique", tmp_path / "empty")
    message = str(error.value)
    assert "\n" not in message
    for part in (MUSIQUE, str(tmp_path / "empty"), "--data DIR", QA_DIR_ENV, "download=True"):
        assert part in message


def test_an_unknown_dataset_lists_the_known_ones():
    with pytest.raises(ValueError, match=r"unknown QA dataset 'squad'; choose from \['hotpotqa', 'musique'\]"):
        load_dataset("squad")
    assert dataset_info("musique").archive == "musique_v1.0.zip"


def test_the_registry_keeps_the_official_addresses():
    assert DATASETS["hotpotqa"].url == "http://curtis.ml.cmu.edu/datasets/hotpot/hotpot_dev_distractor_v1.json"
    assert "1tGdADlNjWFaHLeZZGShh2IRcpO6Lv24h" in DATASETS["musique"].url
    assert {d.file_name for d in DATASETS.values()} == {HOTPOT, MUSIQUE}


# --- downloads against a real local HTTP server --------------------------------------------------


@pytest.fixture
def www(tmp_path: Path) -> Iterator[tuple[Path, Served]]:
    root = tmp_path / "www"
    root.mkdir()
    with serve_directory(root) as served:
        yield root, served


def _point(monkeypatch: pytest.MonkeyPatch, name: str, url: str, sha256: str | None = None) -> None:
    monkeypatch.setitem(DATASETS, name, dataclasses.replace(DATASETS[name], url=url, sha256=sha256))


def _musique_zip(records: list[dict[str, object]]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("__MACOSX/data/._musique_ans_v1.0_dev.jsonl", b"resource fork")
        archive.writestr("data/musique_full_v1.0_dev.jsonl", b"")
        archive.writestr("data/musique_ans_v1.0_dev.jsonl", "".join(json.dumps(r) + "\n" for r in records))
    return buffer.getvalue()


def test_hotpotqa_downloads_once_and_records_its_sha256(www, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    root, served = www
    source = write_hotpot(root / HOTPOT, hotpot_records(25))
    _point(monkeypatch, "hotpotqa", f"{served.url}/{HOTPOT}")
    examples = load_dataset("hotpotqa", tmp_path / "data", download=True)
    assert [e.id for e in examples] == [f"h{i}" for i in range(25)]
    assert (tmp_path / "data" / HOTPOT).read_bytes() == source.read_bytes()
    recorded = (tmp_path / "data" / (HOTPOT + ".sha256")).read_text().strip()
    assert recorded == hashlib.sha256(source.read_bytes()).hexdigest()
    assert len(load_dataset("hotpotqa", tmp_path / "data", download=True)) == 25
    assert served.requests == [f"/{HOTPOT}"]  # the second load reads the kept file


def test_a_later_download_must_match_the_recorded_sha256(www, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    root, served = www
    write_hotpot(root / HOTPOT, hotpot_records(3))
    _point(monkeypatch, "hotpotqa", f"{served.url}/{HOTPOT}")
    load_dataset("hotpotqa", tmp_path / "data", download=True)
    (tmp_path / "data" / HOTPOT).unlink()
    write_hotpot(root / HOTPOT, hotpot_records(4))  # the server now serves other content
    with pytest.raises(ChecksumError, match="nothing was saved"):
        load_dataset("hotpotqa", tmp_path / "data", download=True)
    assert not (tmp_path / "data" / HOTPOT).exists()


def test_a_pinned_sha256_is_checked_before_anything_is_kept(www, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    root, served = www
    write_hotpot(root / HOTPOT, hotpot_records(3))
    _point(monkeypatch, "hotpotqa", f"{served.url}/{HOTPOT}", sha256="0" * 64)
    with pytest.raises(ChecksumError, match="expected " + "0" * 64):
        load_dataset("hotpotqa", tmp_path / "data", download=True)
    assert sorted(p.name for p in (tmp_path / "data").iterdir() if not p.name.endswith(".lock")) == []


def test_musique_downloads_the_release_archive_and_extracts_the_dev_file(
        www, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    root, served = www
    (root / "musique_v1.0.zip").write_bytes(_musique_zip(musique_records(12)))
    _point(monkeypatch, "musique", f"{served.url}/musique_v1.0.zip")
    examples = load_dataset("musique", tmp_path / "data", download=True)
    assert [e.id for e in examples] == [f"2hop__{i}_{i + 1}" for i in range(12)]
    assert (tmp_path / "data" / MUSIQUE).is_file()
    assert (tmp_path / "data" / "musique_v1.0.zip.sha256").is_file()


def test_a_web_page_instead_of_the_archive_is_refused_and_removed(
        www, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    root, served = www
    (root / "page.html").write_text("<html>Google Drive can't scan this file for viruses</html>")
    _point(monkeypatch, "musique", f"{served.url}/page.html")
    with pytest.raises(QADataError, match="not a zip archive"):
        load_dataset("musique", tmp_path / "data", download=True)
    assert sorted(p.name for p in (tmp_path / "data").iterdir() if not p.name.endswith(".lock")) == []


def test_a_download_that_does_not_parse_is_removed(www, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    root, served = www
    (root / HOTPOT).write_text("<html>moved</html>")
    _point(monkeypatch, "hotpotqa", f"{served.url}/{HOTPOT}")
    with pytest.raises(QADataError, match="not a HotpotQA JSON file"):
        load_dataset("hotpotqa", tmp_path / "data", download=True)
    assert sorted(p.name for p in (tmp_path / "data").iterdir() if not p.name.endswith(".lock")) == []


def test_offline_gives_one_line_naming_the_url_and_the_setting(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    url = f"{closed_port_url()}/{HOTPOT}"
    _point(monkeypatch, "hotpotqa", url)
    with pytest.raises(QADataNotFoundError) as error:
        load_dataset("hotpotqa", tmp_path / "data", download=True, timeout=5)
    message = str(error.value)
    assert "\n" not in message and url in message and "--data DIR" in message and QA_DIR_ENV in message
    assert "refused" in message.lower()
