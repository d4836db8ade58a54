# Two commands do all set-up on a fresh machine:
#   make run   - Sawbones on http://127.0.0.1:8000 (SQLite, in-process tasks, demo logins)
#   make test  - lint, type-check, check the import layers, and run the whole suite
# Both honour DATABASE_URL and REDIS_URL when set.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

# The suite runs on several workers (pytest-xdist): its tests wait on browsers, servers and
# subprocesses as much as they compute, so more workers than cores pays. The long tests
# go first, one at a time per worker (conftest.py, LONG_FIRST; --maxschedchunk 1).
PYTEST_WORKERS ?= 4
# Tests that run once (README): the drills start their own PostgreSQL and Redis whatever
# the configuration, so they run in the PostgreSQL configuration (DATABASE_URL set) only;
# the rules engine's tests (marker pure) touch no database nor broker, so they run in the
# default configuration only; of the browser tests, the page walks (marker walk: reading
# every page) run in the default configuration, the stories (acting through the pages)
# against PostgreSQL and Redis; the tests whose answer no configuration changes (marker
# once: the code, the docs, the schema, the catalogues, the embedded mode's own SQLite)
# run in the default configuration.
ONCE_IN_POSTGRES := -m "not pure and not walk and not once"
ONCE_IN_DEFAULT := -m "not drill and (walk or once or not browser)"
PYTEST_ONCE := $(if $(findstring postgres,$(DATABASE_URL)),$(ONCE_IN_POSTGRES),$(ONCE_IN_DEFAULT))

.PHONY: run test lint browser messages clean

$(BIN)/.installed: requirements.txt requirements-dev.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -r requirements-dev.txt
	touch $@

run: $(BIN)/.installed messages
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py seed_demo
	$(BIN)/python manage.py runserver 127.0.0.1:8000

lint: $(BIN)/.installed
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports

# Browser tests drive Debian's chromium; install it when missing (needs root).
browser:
	@command -v chromium >/dev/null 2>&1 || scripts/install-chromium

# The compiled catalogues (*.mo) are built from the committed .po files, never committed
# (docs/translating.md); GNU gettext's msgfmt does it, installed when missing (needs root).
messages: $(BIN)/.installed
	@command -v msgfmt >/dev/null 2>&1 || scripts/install-gettext
	$(BIN)/python manage.py compilemessages --ignore .venv --ignore node_modules

test: $(BIN)/.installed browser messages lint
	$(BIN)/python manage.py makemigrations --check --dry-run
	$(BIN)/pytest -n $(PYTEST_WORKERS) --maxschedchunk 1 --durations=25 $(PYTEST_ONCE)

clean:
	rm -rf $(VENV) db.sqlite3 staticfiles
