"""Sphinx configuration of the textmem_gym documentation site (``make docs``; warnings are errors)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

project = "textmem_gym"
author = "the textmem_gym engineers"
copyright = "2026, the textmem_gym engineers"  # noqa: A001

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.viewcode",
]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
exclude_patterns = ["_build", "_scripts"]
myst_heading_anchors = 3
autodoc_member_order = "bysource"
autodoc_typehints = "description"
napoleon_google_docstring = True
napoleon_numpy_docstring = False
html_theme = "furo"
html_title = "textmem_gym"
# Code wraps inside its box and wide tables scroll inside theirs: no page scrolls sideways at 1,280 px.
html_static_path = ["_static"]
html_css_files = ["textmem.css"]
# Attributes sections as fields: dataclass fields documented by autodoc are not described twice.
napoleon_use_ivar = True
