"""``benchmarks/belief_accuracy.py`` on one small id per backend: the JSON it prints has precision and
recall per backend and relation class, and the rules extractor meets the benchmark's bar there."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "belief_accuracy.py"
ROMS = Path(os.environ.get("TEXTMEM_ROMS_DIR", "/nonexistent"))


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("belief_accuracy", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
@pytest.mark.parametrize(("env_id", "backend"), [
    pytest.param("TextMem/CookingRL-L1-v0", "textworld"),
    pytest.param("TextMem/TWX-CoinCollector-v0", "twx", marks=pytest.mark.java),
    pytest.param("TextMem/NetHack-RoomObs-v0", "nethack"),
    pytest.param("TextMem/Jericho-Zork1-v0", "jericho",
                 marks=pytest.mark.skipif(not (ROMS / "zork1.z5").is_file(), reason="TEXTMEM_ROMS_DIR needed")),
    pytest.param("TextMem/ScienceWorld-Boil-v0", "scienceworld", marks=pytest.mark.java),
])
def test_the_benchmark_prints_per_backend_and_class_numbers_that_meet_the_bar(env_id, backend, capsys):
    script = _script()
    kinds = "random" if backend == "scienceworld" else "walkthrough,random"  # its gold path costs ~30 s
    result = script.main(["--ids", env_id, "--game-seeds", "default", "--random-steps", "8", "--max-steps", "25",
                          "--kinds", kinds,
                          "--extractors", "rules,oracle", "--bench", ""])
    assert '"extractors"' in capsys.readouterr().out  # the JSON goes to stdout
    assert result["episodes"] >= 1 and result["steps"] > 0
    for extractor in ("rules", "oracle"):
        assert set(result["extractors"][extractor]) == {backend, "all"}
        classes = result["extractors"][extractor][backend]
        assert set(classes) == {"spatial", "containment", "state", "overall"}
        assert all({"precision", "recall", "tp", "fp", "fn"} <= set(counts) for counts in classes.values())
    overall = result["extractors"]["rules"][backend]["overall"]
    bar = result["targets"][backend]
    assert overall["tp"] > 0
    assert overall["precision"] >= bar["precision"] and overall["recall"] >= bar["recall"], overall
    assert result["extractors"]["oracle"][backend]["overall"]["f1"] >= 0.95  # the truth as the memory holds it
