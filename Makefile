# Two commands do all set-up on a fresh machine:
#   make demo   type-check the example backend package and show what the tool catches
#   make test   run the whole test suite
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.device-types-installed
# A "strict" editable install links each source file into build/, so mypy and pyright
# (which cannot follow import hooks) find the packages; a new or changed file relinks.
SOURCES := $(shell find device_types mypy_plugin stubs -name '*.py' 2>/dev/null)

.PHONY: demo test bench clean editors

$(STAMP): pyproject.toml $(SOURCES)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]' --config-settings editable_mode=strict
	$(BIN)/device-types stubs install --quiet
	touch $(STAMP)

demo: $(STAMP)
	@$(BIN)/python examples/run_demo.py

test: $(STAMP) editors
	$(BIN)/device-types stubs install --quiet
	$(BIN)/python -m pytest

# The editor whose snippet docs/ci-and-ide.md prints runs it in the suite
# (tests/lsp/test_editors.py): Neovim, Debian's package (0.7). Installed through apt when
# missing (as root, as CI runs); a no-op once there. Elsewhere, install it yourself.
editors:
	@command -v nvim >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing Neovim (apt-get install neovim) for tests/lsp/test_editors.py"; \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq neovim >/dev/null \
	    || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq neovim >/dev/null; }; \
	  else \
	    echo "make: Neovim 0.7+ is needed by tests/lsp/test_editors.py: apt-get install neovim" >&2; \
	  fi; }

bench: $(STAMP)
	$(BIN)/python -m pip install --quiet '.[extra-checkers]'
	$(BIN)/python benchmarks/run.py

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache
