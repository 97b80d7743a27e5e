"""Multi-hop QA examples read from the official HotpotQA and MuSiQue files.

One :class:`QAExample` per question, the same shape for both datasets, so a QA method or a
protocol never looks at which file a question came from. Only the official files are read:

- HotpotQA distractor dev, ``hotpot_dev_distractor_v1.json``: one JSON list of records with
  ``_id``, ``question``, ``answer``, ``context`` = ``[[title, [sentences]]]``, ``supporting_facts``
  = ``[[title, sentence index]]``, ``type`` and ``level`` (:func:`read_hotpotqa`);
- MuSiQue-Answerable dev, ``musique_ans_v1.0_dev.jsonl``: one JSON record per line with ``id``,
  ``question``, ``answer``, ``answer_aliases``, ``answerable``, ``paragraphs`` = ``[{idx, title,
  paragraph_text, is_supporting}]`` and ``question_decomposition`` (:func:`read_musique`).

:func:`load_dataset` finds the file in a folder: the ``data_dir`` argument (``--data DIR`` on the
command line), else the folder named by the environment variable ``TEXTMEM_QA_DIR``, else the
textmem_gym cache (``<cache>/qa``). With ``download=True`` a missing file is fetched from the
dataset's official address into that folder (see :data:`DATASETS`).

Checksums: the official files cannot be fetched where this library is built, so no sha256 is pinned
for them (``QADataset.sha256`` is ``None``). A download is then accepted when the whole file parses
with the dataset's reader (else file and record are removed again);
:func:`textmem_gym.downloads.fetch_cached` records its sha256 beside what it fetched
(``<file>.sha256``) and every later download is checked against that record. A pinned value, when
given, is checked before anything is kept. A file you put in the folder yourself is read as is.

Example:
    >>> p = Paragraph("Vellmar Island", "A lighthouse stands here.", ("A lighthouse stands here.",), True)
    >>> ex = QAExample("q1", "hotpotqa", "What stands on Vellmar Island?", ("a lighthouse",), (p,),
    ...                (("Vellmar Island", 0),), 2, "bridge")
    >>> [g.title for g in ex.gold_paragraphs()]
    ['Vellmar Island']
    >>> examples = load_dataset("musique", shipped_data_dir())
    >>> examples[0].dataset, len(examples[0].paragraphs) >= 10
    ('musique', True)
"""

from __future__ import annotations

import json
import os
import zipfile
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from textmem_gym.downloads import DownloadError, fetch_cached
from textmem_gym.loading import lookup
from textmem_gym.paths import cache_dir

#: Environment variable naming the folder that holds the official QA files.
QA_DIR_ENV = "TEXTMEM_QA_DIR"


@dataclass(frozen=True)
class Paragraph:
    """One context paragraph of a question.

    Attributes:
        title: The paragraph's title (a Wikipedia page title in the official files).
        text: HotpotQA: its sentences, stripped, joined with ``" "``; MuSiQue: ``paragraph_text``.
        sentences: HotpotQA: its sentences as in the file; MuSiQue: ``(paragraph_text,)``.
        is_supporting: HotpotQA: the title appears in ``supporting_facts``; MuSiQue: ``is_supporting``.
    """

    title: str
    text: str
    sentences: tuple[str, ...]
    is_supporting: bool


@dataclass(frozen=True)
class QAExample:
    """One multi-hop question with its paragraphs, read from an official file.

    Attributes:
        id: HotpotQA ``_id``; MuSiQue ``id``.
        dataset: ``"hotpotqa"`` or ``"musique"``.
        question: The question text.
        answers: The answer first, then MuSiQue's ``answer_aliases`` (HotpotQA: just the answer).
        paragraphs: The context paragraphs in file order.
        supporting_facts: HotpotQA ``(title, sentence index)`` pairs; MuSiQue ``(title, 0)`` per
            supporting paragraph.
        hops: MuSiQue ``len(question_decomposition)``; HotpotQA the number of distinct titles in
            ``supporting_facts`` (2 in the official files; 3 for the shipped synthetic set's
            three-hop items).
        kind: HotpotQA ``type`` (``"bridge"``/``"comparison"``); MuSiQue the id prefix
            (``"2hop"``, ``"3hop1"``, ...).
    """

    id: str
    dataset: str
    question: str
    answers: tuple[str, ...]
    paragraphs: tuple[Paragraph, ...]
    supporting_facts: tuple[tuple[str, int], ...]
    hops: int | None
    kind: str | None

    def gold_paragraphs(self) -> tuple[Paragraph, ...]:
        """The supporting paragraphs, in file order."""
        return tuple(p for p in self.paragraphs if p.is_supporting)


class QADataError(ValueError):
    """A QA file is not in the official format (the message names the file and the record)."""


class QADataNotFoundError(FileNotFoundError):
    """The official QA file is not where textmem_gym looked and could not be downloaded."""


def shipped_data_dir() -> Path:
    """The folder holding the shipped synthetic QA files (written by :mod:`textmem_gym.qa.synthetic`
    under the official file names, so ``load_dataset(name, shipped_data_dir())`` reads them).

    Example:
        >>> sorted(p.name for p in shipped_data_dir().iterdir() if p.suffix in (".json", ".jsonl"))
        ['hotpot_dev_distractor_v1.json', 'musique_ans_v1.0_dev.jsonl']
    """
    return Path(__file__).resolve().parent / "data" / "synthetic"


# --- readers -----------------------------------------------------------------------------------


def _hotpot_example(record: Mapping[str, Any]) -> QAExample:
    facts = tuple((str(title), int(index)) for title, index in record["supporting_facts"])
    gold_titles = {title for title, _ in facts}
    paragraphs = tuple(_hotpot_paragraph(title, sentences, gold_titles) for title, sentences in record["context"])
    return QAExample(id=str(record["_id"]), dataset="hotpotqa", question=str(record["question"]),
                     answers=(str(record["answer"]),), paragraphs=paragraphs, supporting_facts=facts,
                     hops=len(gold_titles) or None, kind=record.get("type"))


def _hotpot_paragraph(title: str, sentences: list[str], gold_titles: set[str]) -> Paragraph:
    if not isinstance(sentences, list) or not all(isinstance(s, str) for s in sentences):
        raise TypeError(f"context entry {title!r} must be [title, [sentences]]")
    text = " ".join(s.strip() for s in sentences if s.strip())
    return Paragraph(title=str(title), text=text, sentences=tuple(sentences), is_supporting=title in gold_titles)


def _musique_example(record: Mapping[str, Any]) -> QAExample:
    paragraphs = tuple(Paragraph(title=str(p["title"]), text=str(p["paragraph_text"]),
                                 sentences=(str(p["paragraph_text"]),), is_supporting=bool(p["is_supporting"]))
                       for p in record["paragraphs"])
    example_id = str(record["id"])
    return QAExample(id=example_id, dataset="musique", question=str(record["question"]),
                     answers=(str(record["answer"]), *(str(a) for a in record["answer_aliases"])),
                     paragraphs=paragraphs, supporting_facts=tuple((p.title, 0) for p in paragraphs if p.is_supporting),
                     hops=len(record["question_decomposition"]), kind=example_id.split("__")[0])


def _converted(path: Path, records: Iterator[tuple[str, Any]],
               convert: Callable[[Mapping[str, Any]], QAExample]) -> Iterator[tuple[Any, QAExample]]:
    for where, record in records:
        try:
            if not isinstance(record, Mapping):
                raise TypeError(f"expected a JSON object, got {type(record).__name__}")
            yield record, convert(record)
        except (KeyError, TypeError, ValueError) as error:
            detail = f"missing key {error}" if isinstance(error, KeyError) else str(error)
            raise QADataError(f"{path}: {where} is not in the official format: {detail}") from None


def read_hotpotqa(path: str | Path) -> list[QAExample]:
    """Reads HotpotQA's ``hotpot_dev_distractor_v1.json`` (or a file in its format).

    Args:
        path: The JSON file: a list of records with ``_id``, ``question``, ``answer``, ``context``,
            ``supporting_facts``, ``type``.

    Returns:
        One example per record, in file order.

    Raises:
        QADataError: The file is not JSON or a record misses a field; names the file and the record.

    Example:
        >>> ex = read_hotpotqa(shipped_data_dir() / "hotpot_dev_distractor_v1.json")[0]
        >>> ex.dataset, len(ex.paragraphs), ex.kind in ("bridge", "comparison")
        ('hotpotqa', 10, True)
    """
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise QADataError(f"{path}: not a HotpotQA JSON file ({error})") from None
    if not isinstance(data, list):
        raise QADataError(f"{path}: not a HotpotQA file (expected a JSON list of records, got {type(data).__name__})")
    records = ((f"record {i} (_id {r.get('_id', '?') if isinstance(r, dict) else '?'})", r) for i, r in enumerate(data))
    return [example for _, example in _converted(path, records, _hotpot_example)]


def _jsonl_records(path: Path) -> Iterator[tuple[str, Any]]:
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as error:
                raise QADataError(f"{path}: line {number} is not JSON ({error})") from None
            yield f"line {number} (id {record.get('id', '?') if isinstance(record, dict) else '?'})", record


def read_musique(path: str | Path) -> list[QAExample]:
    """Reads MuSiQue's ``musique_ans_v1.0_dev.jsonl`` (or a file in its format).

    Records with ``answerable`` false (only MuSiQue-Full files have them; the official script scores
    answers only for answerable ones) are left out; MuSiQue-Answerable files keep every line.

    Args:
        path: The JSON-lines file, one record per line.

    Returns:
        One example per answerable record, in file order.

    Raises:
        QADataError: A line is not JSON or misses a field; names the file and the line.

    Example:
        >>> ex = read_musique(shipped_data_dir() / "musique_ans_v1.0_dev.jsonl")[0]
        >>> ex.kind in ("2hop", "3hop1"), ex.hops in (2, 3), len(ex.answers) >= 1
        (True, True, True)
    """
    path = Path(path)
    return [example for record, example in _converted(path, _jsonl_records(path), _musique_example)
            if record.get("answerable", True)]


# --- the registry and the loader -----------------------------------------------------------------


@dataclass(frozen=True)
class QADataset:
    """Where an official QA file comes from and how to read it.

    Attributes:
        name: The dataset's name (a key of :data:`DATASETS`).
        file_name: The official file's name, looked for in the data folder.
        url: The official download address (the file itself, or the release archive holding it).
        reader: Reads the file into examples.
        archive: The archive's file name when ``url`` is an archive (zip), else ``None``.
        sha256: The pinned sha256 of what ``url`` serves, or ``None`` when unknown (then recorded on
            first download and checked afterwards).
        source: Where the address comes from, for people checking it.
    """

    name: str
    file_name: str
    url: str
    reader: Callable[[Path], list[QAExample]]
    archive: str | None = None
    sha256: str | None = None
    source: str = ""


#: Dataset name -> official file, address and reader.
DATASETS: dict[str, QADataset] = {
    "hotpotqa": QADataset(
        name="hotpotqa", file_name="hotpot_dev_distractor_v1.json",
        url="http://curtis.ml.cmu.edu/datasets/hotpot/hotpot_dev_distractor_v1.json", reader=read_hotpotqa,
        source="HotpotQA README (github.com/hotpotqa/hotpot), dev set, distractor setting"),
    "musique": QADataset(
        name="musique", file_name="musique_ans_v1.0_dev.jsonl",
        url="https://drive.usercontent.google.com/download?id=1tGdADlNjWFaHLeZZGShh2IRcpO6Lv24h&export=download"
            "&confirm=t",
        reader=read_musique, archive="musique_v1.0.zip",
        source="download_data.sh of github.com/StonyBrookNLP/musique (Google Drive file "
               "1tGdADlNjWFaHLeZZGShh2IRcpO6Lv24h, musique_v1.0.zip holding data/musique_ans_v1.0_dev.jsonl)"),
}


def dataset_info(name: str) -> QADataset:
    """The registry entry of ``name``.

    Raises:
        ValueError: ``name`` is not a key of :data:`DATASETS` (the message lists the known ones).
    """
    return lookup("QA dataset", name, DATASETS)


def qa_data_dir(data_dir: str | Path | None = None) -> Path:
    """The folder to look in: ``data_dir`` if given, else ``$TEXTMEM_QA_DIR``, else ``<cache>/qa``."""
    if data_dir is not None:
        return Path(data_dir).expanduser()
    setting = os.environ.get(QA_DIR_ENV)
    return Path(setting).expanduser() if setting else cache_dir("qa")


def load_dataset(name: str, data_dir: str | Path | None = None, *, download: bool = False,
                 timeout: float = 60.0) -> list[QAExample]:
    """Reads the official file of dataset ``name`` from the data folder, downloading it if allowed.

    Args:
        name: ``"hotpotqa"`` or ``"musique"`` (a key of :data:`DATASETS`).
        data_dir: The folder holding the official file; default ``$TEXTMEM_QA_DIR``, else ``<cache>/qa``.
        download: Whether a missing file may be fetched from its official address into that folder.
        timeout: Seconds to wait for the server.

    Returns:
        The file's examples in file order (sample them with :func:`textmem_gym.qa.sampling.sample`).

    Raises:
        ValueError: ``name`` is unknown.
        QADataNotFoundError: The file is missing and ``download`` is false, or the download failed;
            one line saying where it looked and how to point at the file.
        QADataError: The file (found or downloaded) is not in the official format.
        textmem_gym.downloads.ChecksumError: The file differs from its pinned or recorded sha256.

    Example:
        >>> len(load_dataset("hotpotqa", shipped_data_dir())) >= 30
        True
    """
    dataset = dataset_info(name)
    folder = qa_data_dir(data_dir)
    path = folder / dataset.file_name
    if not path.is_file():
        if not download:
            raise QADataNotFoundError(_missing(dataset, folder, "downloads are off: pass download=True "
                                                                "(--download) to fetch it"))
        _download(dataset, folder, timeout)
    return dataset.reader(path)


def _missing(dataset: QADataset, folder: Path, reason: str) -> str:
    return (f"{dataset.name}: {dataset.file_name} not found in {folder} ({reason}); point --data DIR or "
            f"{QA_DIR_ENV} at the folder holding it (official source: {dataset.url})")


def _download(dataset: QADataset, folder: Path, timeout: float) -> Path:
    target = folder / dataset.file_name
    fetched = folder / (dataset.archive or dataset.file_name)
    try:
        fetch_cached(dataset.url, fetched, dataset.sha256, what=f"{dataset.name}'s official file", timeout=timeout)
    except DownloadError as error:
        raise QADataNotFoundError(_missing(dataset, folder, str(error))) from None
    if dataset.archive:
        _extract(fetched, dataset.file_name, target)
    try:
        dataset.reader(target)
    except QADataError:
        for leftover in (target, fetched, fetched.with_name(fetched.name + ".sha256")):
            leftover.unlink(missing_ok=True)
        raise
    return target


def _extract(archive: Path, file_name: str, target: Path) -> None:
    try:
        with zipfile.ZipFile(archive) as zipped:
            members = [m for m in zipped.namelist() if Path(m).name == file_name and "__MACOSX" not in m]
            if not members:
                raise QADataError(f"{archive}: the archive holds no {file_name}")
            partial = target.with_name(target.name + ".part")
            partial.write_bytes(zipped.read(members[0]))
            os.replace(partial, target)
    except zipfile.BadZipFile:
        archive.unlink(missing_ok=True)
        archive.with_name(archive.name + ".sha256").unlink(missing_ok=True)
        raise QADataError(f"{archive}: the download is not a zip archive (a web page instead?); "
                          f"download it by hand and put {file_name} in {target.parent}") from None
