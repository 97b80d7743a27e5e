"""The documentation site cannot rot: generated pages match the code, the guides' code runs, the
site builds with warnings as errors and opens in a real headless Chromium with no broken internal link."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import urldefrag, urlparse

import pytest

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
GUIDES = sorted((DOCS / "guides").glob("*.md"))
CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
CHROMIUM_FLAGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync")
_FENCE = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)


def python_blocks(page: Path) -> list[str]:
    """The ```python blocks of a guide, in order."""
    return _FENCE.findall(page.read_text(encoding="utf-8"))


#: Each page generator of docs/_scripts -> (the page it writes, a line the page must hold).
GENERATED = {
    "memories.py": ("memories.md", "| `arigraph` |"),
    "env_ids.py": ("env-ids.md", "| `TextMem/Cooking-v0` |"),
    "info_keys.py": ("info-keys.md", "| `admissible_commands` | always |"),
    "all_policies.py": ("policies.md", "| `top_k` | `int` | `2` |"),
    "cli.py": ("cli.md", "| `--policy` |"),
}


def test_every_generator_is_checked_and_in_make_docs() -> None:
    scripts = {path.name for path in (DOCS / "_scripts").glob("*.py") if not path.name.startswith("_")}
    assert scripts == set(GENERATED)
    makefile = (REPO / "Makefile").read_text()
    assert [script for script in scripts if f"docs/_scripts/{script}" not in makefile] == []
    index = (DOCS / "index.md").read_text()
    assert [page for page, _ in GENERATED.values() if f"reference/{page.removesuffix('.md')}\n" not in index] == []


@pytest.mark.parametrize(("script", "page", "sentinel"), [(script, *GENERATED[script]) for script in GENERATED])
def test_generated_reference_pages_match_the_code(script: str, page: str, sentinel: str, tmp_path: Path) -> None:
    out = tmp_path / page
    subprocess.run([sys.executable, str(DOCS / "_scripts" / script), str(out)], check=True, cwd=REPO)
    assert out.read_text() == (DOCS / "reference" / page).read_text(), \
        f"docs/reference/{page} is stale: run `python docs/_scripts/{script}`"
    assert sentinel in out.read_text()


def test_every_env_id_is_on_the_generated_page() -> None:
    from textmem_gym.envs.registration import ENV_IDS

    page = (DOCS / "reference" / "env-ids.md").read_text()
    assert [env_id for env_id in ENV_IDS if f"| `{env_id}` |" not in page] == []


def test_guides_are_in_the_index() -> None:
    index = (DOCS / "index.md").read_text()
    assert [page.stem for page in GUIDES if f"guides/{page.stem}\n" not in index] == []


@pytest.mark.parametrize("page", GUIDES, ids=[page.stem for page in GUIDES])
def test_guide_code_blocks_run(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every python block of a guide runs, in order, in one namespace (as a reader would paste them)."""
    blocks = python_blocks(page)
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": f"guide_{page.stem}"}
    for number, block in enumerate(blocks, 1):
        try:
            exec(compile(block, f"{page.name} block {number}", "exec", dont_inherit=True), namespace)  # noqa: S102
        except Exception as error:  # pragma: no cover - the failure message is the point
            pytest.fail(f"{page.name} block {number} fails: {type(error).__name__}: {error}")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", str(DOCS),
                           str(out)], capture_output=True, text=True, cwd=REPO)
    assert done.returncode == 0, done.stderr[-3000:]
    return out


@pytest.mark.slow
def test_site_builds_without_warnings(site: Path) -> None:
    assert (site / "index.html").exists()
    assert (site / "guides" / "own-memory.html").exists()
    assert "MemoryGraphWrapper" in (site / "index.html").read_text()


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.skipif(not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()),
                    reason="needs Debian's chromium and chromium-driver (make test installs them)")
def test_site_opens_in_headless_chromium(site: Path, tmp_path: Path) -> None:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'profile'}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        for page, heading in (("index.html", "textmem_gym"), ("guides/own-memory.html", "Writing your own memory"),
                              ("reference/api-memory.html", "API: memories"), ("reference/policies.html", "Policies"),
                              ("reference/cli.html", "Command line reference")):
            driver.get((site / page).as_uri())
            assert heading in driver.find_element(By.TAG_NAME, "h1").text
            links = [a.get_attribute("href") for a in driver.find_elements(By.CSS_SELECTOR, "a[href]")]
            internal = [link for link in links if link and urlparse(link).scheme == "file"]
            assert internal, page
            broken = [link for link in internal if not Path(urlparse(urldefrag(link)[0]).path).exists()]
            assert broken == [], f"{page} links to missing pages: {broken}"
    finally:
        driver.quit()
        shutil.rmtree(tmp_path / "profile", ignore_errors=True)


#: What a page scrolls sideways at the window's width: the page itself, each code block that does, and
#: each table wider than the page that is not inside a box scrolling on its own within the page.
_SIDEWAYS = """
const page = document.scrollingElement, width = page.clientWidth;
const code = [...document.querySelectorAll('pre')].filter(p => p.scrollWidth > p.clientWidth + 1)
    .map(p => p.textContent.trim().split('\\n')[0].slice(0, 80));
const scrolls = e => ['auto', 'scroll'].includes(getComputedStyle(e).overflowX);
const tables = [...document.querySelectorAll('table')].filter(t => t.getBoundingClientRect().right > width + 1)
    .filter(t => { let box = t.parentElement; while (box && !scrolls(box)) box = box.parentElement;
                   return !box || box.getBoundingClientRect().right > width + 1; })
    .map(t => t.textContent.trim().slice(0, 80));
return {page: page.scrollWidth - width, code: code, tables: tables};
"""


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.skipif(not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()),
                    reason="needs Debian's chromium and chromium-driver (make test installs them)")
def test_no_page_or_code_block_scrolls_sideways_at_1280_px(site: Path, tmp_path: Path) -> None:
    """At a laptop's 1,280 px, in a real Chromium: no page scrolls horizontally, every code block wraps its
    long lines inside its box (no flag hidden past its edge), and a table wider than the page (the
    memory-bench results) scrolls inside its own box."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (*CHROMIUM_FLAGS, "--window-size=1280,900", f"--user-data-dir={tmp_path / 'profile'}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    pages = sorted(path.relative_to(site).as_posix() for folder in ("guides", "results", "reference")
                   for path in (site / folder).glob("*.html"))
    assert {"guides/quickstart.html", "guides/own-memory.html", "results/memory-bench.html"} <= set(pages)
    try:
        driver.set_window_size(1280, 900)
        assert driver.execute_script("return window.innerWidth") == 1280
        sideways = {}
        for page in pages:
            driver.get((site / page).as_uri())
            found = driver.execute_script(_SIDEWAYS)
            if found["page"] > 0 or found["code"] or found["tables"]:
                sideways[page] = found
        assert sideways == {}, f"scrolls sideways at 1280 px: {sideways}"
        driver.get((site / "guides" / "own-memory.html").as_uri())  # the wrapping is CSS, not short lines
        assert driver.execute_script("return getComputedStyle(document.querySelector('.highlight pre')).whiteSpace") \
            == "pre-wrap"
    finally:
        driver.quit()
        shutil.rmtree(tmp_path / "profile", ignore_errors=True)
