# Two commands do all set-up on a fresh machine:
#   make run   - Sawbones on http://127.0.0.1:8000 (SQLite, in-process tasks, demo logins)
#   make test  - lint, type-check, check the import layers, and run the whole suite
# Both honour DATABASE_URL and REDIS_URL when set.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: run test lint browser clean

$(BIN)/.installed: requirements.txt requirements-dev.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -r requirements-dev.txt
	touch $@

run: $(BIN)/.installed
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

test: $(BIN)/.installed browser lint
	$(BIN)/python manage.py makemigrations --check --dry-run
	$(BIN)/pytest

clean:
	rm -rf $(VENV) db.sqlite3 staticfiles
