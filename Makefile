# The two commands: `make run` and `make test`. Both set up everything they need and are idempotent.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
# Jericho ROMs: the shared suite beside the repo when present (see README, TEXTMEM_ROMS_DIR).
SHARED_ROMS := $(abspath ../shared/jericho-roms)
ifneq ($(wildcard $(SHARED_ROMS)),)
export TEXTMEM_ROMS_DIR ?= $(SHARED_ROMS)
endif
STAMP := $(VENV)/.installed-$(shell cat setup.cfg pyproject.toml | cksum | cut -d' ' -f1)

.PHONY: run test lint install java clean-venv

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

$(STAMP): $(PY) setup.cfg pyproject.toml
	# torch first, pinned to the CPU build: any other torch request pulls GBs of CUDA packages.
	$(PIP) install --quiet "torch==2.13.0"
	$(PIP) install --quiet -e ".[all,dev]"
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

install: $(STAMP) java

java:
	@command -v java >/dev/null 2>&1 || { \
		echo "Java not found: installing default-jre-headless (ScienceWorld needs it)"; \
		apt-get update && apt-get install -y default-jre-headless; }

run: install
	$(VENV)/bin/textmem-gym eval TextMem/Cooking-Hard-v0 --policy explorer --episodes 3 --seed 0 --out runs/make-run.jsonl

test: install
	$(PY) -m pytest -n 2 tests

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy

clean-venv:
	rm -rf $(VENV)
