# Lifeguard: `make run` sets everything up on a fresh Debian machine and starts the referee;
# `make test` sets up the same and runs the whole suite. Each step is skipped when already done.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# Debian packages the referee needs at run time and in tests: speech out (espeak-ng), audio
# conversion and noise for the voice benchmark (sox), a real terminal for end-to-end tests (tmux),
# the audio player (aplay, in alsa-utils), a real browser for the phone page's tests and its
# screenshot (chromium, headless), and the voice benchmark's held-out synthesisers, never tuned
# on: flite (its voices are built in) and festival with its English voices (kal and ked diphones,
# the US "slt" HTS voice). Barge-in: SpeexDSP's echo canceller (libspeexdsp1, loaded through ctypes)
# and PortAudio for one full-duplex stream (libportaudio2, under sounddevice); libraries with no
# command, so SYSTEM_LIBRARIES is checked for them.
SYSTEM_COMMANDS := espeak-ng sox tmux aplay chromium flite festival
SYSTEM_LIBRARIES := libspeexdsp.so.1 libportaudio.so.2
SYSTEM_PACKAGES := espeak-ng libespeak-ng1 sox tmux alsa-utils chromium flite festival \
	festvox-kallpc16k festvox-kdlpc16k festvox-us-slt-hts libspeexdsp1 libportaudio2
# A font with Hangul for chromium: the phone page of a Korean table is drawn and measured in it
# (tests/web/test_page_lang_layout.py); without one Hangul is empty boxes.
SYSTEM_PACKAGES += fonts-nanum
# axe-core's own packaged script (axe.min.js, MPL-2.0), from the npm registry into build/ (not
# committed): tests/web/test_a11y.py runs it in chromium on the phone page. Pinned, so a new
# release's new rules change the suite only when we choose to. npm is installed from Debian only
# where there is none: Debian's npm conflicts with a Node.js from elsewhere that brings its own.
AXE_VERSION := 4.14.1
AXE := build/npm/node_modules/axe-core/axe.min.js

.PHONY: run test check setup system-packages lint complexity bench bench-voice clean messages

run: setup
	$(BIN)/lifeguard

# The suite in parallel (pytest-xdist): one worker more than cores, at most 4 (each worker loads
# its own Whisper model, ~350 MB). The voice tests play their audio in at real-time pace and
# wait more than they compute: on 2 cores, 3 workers ran the suite in 225-228 s, 2 in 296-305 s.
# `make test TEST_JOBS=0` runs it in one process. Work stealing (--dist worksteal): a worker that
# runs out takes tests queued for another, so a worker left with the real-time audio tests does
# not keep the others idle at the end (2026-12-03, 3 workers on 2 busy cores: 437 s at load 4-6
# against 586 s at load 6-7 with xdist's default split).
# Compiled modules are cached even where PYTHONDONTWRITEBYTECODE is set: the tests start a few
# hundred `lifeguard` processes, and each one compiled the project's modules anew (about 0.9 s of
# a core per process importing the table); pytest caches its rewritten test modules likewise.
TEST_JOBS ?= $(shell n=$$(( $$(nproc 2>/dev/null || echo 1) + 1 )); [ "$$n" -gt 4 ] && n=4; echo $$n)

test: lint $(AXE)
	PYTHONDONTWRITEBYTECODE= $(BIN)/pytest -q -n $(TEST_JOBS) --dist worksteal

# Fast feedback while working (issue 37): the lint and the tests not marked slow (real-time
# audio, Whisper, tmux, chromium, many process starts), under a minute on 2 cores. `make test`
# (and CI) runs everything.
check: lint
	PYTHONDONTWRITEBYTECODE= $(BIN)/pytest -q -n $(TEST_JOBS) --dist worksteal -m "not slow"

$(AXE): Makefile | system-packages
	@command -v npm >/dev/null 2>&1 || { echo "Installing npm"; \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm; \
	  else sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm; fi; }
	npm install --prefix build/npm --no-save --no-package-lock --no-audit --no-fund \
		axe-core@$(AXE_VERSION)
	@test -s $@ && touch $@

# The message catalogs (issue 39): gettext's .po files, in git, compiled by Babel to the .mo files
# the table reads through the standard library's gettext (not in git: built here from the .po).
LANGUAGES := de ko
CATALOGS := $(foreach l,$(LANGUAGES),assistant/locale/$(l)/LC_MESSAGES/lifeguard.mo)

setup: system-packages $(STAMP) $(CATALOGS)

assistant/locale/%/LC_MESSAGES/lifeguard.mo: assistant/locale/%/LC_MESSAGES/lifeguard.po $(STAMP)
	$(BIN)/pybabel compile -d assistant/locale -D lifeguard -l $* --statistics

# What a language's catalog lacks, as .po entries to fill in: `make messages LANG_CODE=de`.
messages:
	$(BIN)/python -m assistant.i18n --missing $(LANG_CODE)

system-packages:
	@missing=""; for c in $(SYSTEM_COMMANDS); do command -v $$c >/dev/null 2>&1 || missing="$$missing $$c"; done; \
	for l in $(SYSTEM_LIBRARIES); do ldconfig -p 2>/dev/null | grep -q "$$l" || missing="$$missing $$l"; done; \
	fc-list :lang=ko 2>/dev/null | grep -q . || missing="$$missing a-font-for-Korean"; \
	if [ -n "$$missing" ]; then \
	  echo "Installing system packages (missing:$$missing)"; \
	  if ! command -v apt-get >/dev/null 2>&1; then \
	    echo "No apt-get here: please install $(SYSTEM_PACKAGES) (or your system's equivalents) and run make again."; exit 1; \
	  elif [ "$$(id -u)" = 0 ]; then \
	    DEBIAN_FRONTEND=noninteractive apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(SYSTEM_PACKAGES); \
	  else \
	    sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(SYSTEM_PACKAGES); \
	  fi; \
	fi

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test]'
	@touch $(STAMP)

# Style (ruff), the layers (import-linter's contracts in pyproject.toml), the types (mypy,
# [tool.mypy] in pyproject.toml) and each function's complexity (radon, below).
lint: setup complexity
	$(BIN)/ruff check engine assistant tests bench
	$(BIN)/lint-imports
	$(BIN)/mypy

# No production function above 15 by radon's count (issue 37). radon's grade C spans 11 to 20,
# so its listing from C up is filtered on the number itself (the last field, "(16)").
complexity: setup
	@$(BIN)/radon cc -s -n C engine assistant | awk '/^[^ ]/ { file = $$0; next } \
	  { n = $$NF; gsub(/[()]/, "", n); if (n + 0 > 15) { print file ": " $$0; bad = 1 } } \
	  END { if (bad) { print "radon: the functions above count more than 15: split them"; exit 1 } }'

bench: setup
	$(BIN)/python bench/engine_games.py

# The voice benchmark: 1,800 synthesised files (half a minute), then each engine in turn (12 to 35
# minutes each, depending on how busy the cores are), then three whole games by voice through the
# listener at real-time pace (21 minutes of audio, so about 25 minutes per engine: see
# bench/voice_game.py), then the real table's memory through the 4-player game (tmux, about 8
# minutes: bench/table_memory.py), then barge-in in a simulated room (bench/room_echo.py, about
# 5 minutes). One engine at a time, so each step uses at most the 2 cores.
# First, how long the referee talks against the players in each [voice] speech setting (espeak-ng,
# half a minute: bench/talk_time.py). After the English engines, German and Korean speech in with
# Whisper base (bench/voice_languages.py: 52 utterances a language in held-out voices, clean and in
# pink noise, 4 to 8 minutes).
bench-voice: setup
	$(BIN)/python bench/talk_time.py
	$(BIN)/python bench/voice_corpus.py --jobs 2
	$(BIN)/python bench/voice_run.py --engine both --voices --intents
	$(BIN)/python bench/voice_languages.py --commands 40 --talk 12
	$(BIN)/python bench/voice_game.py --engine both
	$(BIN)/python bench/table_memory.py
	$(BIN)/python bench/room_echo.py

clean:
	rm -rf $(VENV) build *.egg-info
