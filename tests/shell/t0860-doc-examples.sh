#!/bin/sh
# Every example in README.md and in the EXAMPLES section of every man page
# runs as written, with the programs on PATH (the README's documented
# `export PATH=$PWD/build/bin:$PATH`).
#
# The games: three self-play games (hydra-sp, seed 18: one of them falls in
# a 5% validation split, which the examples ask for), each cut after its
# first kyoku so that the examples that train stay quick: one as a gzip'd
# mjai log, one as Tenhou mjlog, one as tenhou.net/6 JSON (mjai-parse
# --format); with the shared data, one real Tenhou mjlog besides.
#
# README.md runs as a user runs it in a fresh clone: its ```sh blocks in
# order, in one directory holding only logs/ and a copy of pipelines/ (the
# checkout's, which the README's `make -f pipelines/...` names), except the
# lines that run `make demo` or `make check` (this test runs under make
# check); whatever a block uses, an earlier block made.
#
# Man pages run in a directory that also holds the files they name:
#   logs/game.mjlog  a game as mjlog (mjai-parse(1))
#   logs.tar.zst     logs/ as an archive
#   events.bin       mjai-parse logs/
#   train.bin train.h5 val.h5   samples of the games
#   model.h5         a trained tiny checkpoint
# Each .nf/.fi block of EXAMPLES is one bash script (set -e -o pipefail); in
# .EX/.EE blocks every "$ command" line runs and must print exactly the
# lines shown after it.
#
# Tiers: the full tier runs every block. The fast tier runs every README
# block but those that run a pipeline (`make -f pipelines/...`: the pipeline
# tests t0800-t0816 run them at toy sizes in both tiers) and, of each man
# page, its blocks up to and including the first script: every program's
# first example, as written. Each block's seconds go to the test's log.
. tests/shell/lib.sh
command -v bash >/dev/null || skip "skipped: needs bash (the examples are bash)"
PATH="$BIN:$PATH"
export PATH

# the logs, any mix of formats
L="$T/logs"
mkdir -p "$L"
hydra-sp --games 3 --seed 18 --rotate rulebot,random,rulebot,baseline --no-samples \
	--log-dir "$T/sp" 2>"$T/err" || { cat "$T/err"; fail "hydra-sp"; }
for g in 0 1 2; do # each cut after its first kyoku: examples that train stay quick
	gzip -dc "$T/sp/game-0000000$g.json.gz" | awk '{ print } /"type":"end_kyoku"/ { exit }' > "$T/g$g.json"
done
gzip -c "$T/g0.json" > "$L/game-0.json.gz"
mjai-parse --format mjlog -o "$L/game.mjlog" "$T/g1.json" &&
	mjai-parse --format tenhou6 -o "$L/game.tenhou6.json" "$T/g2.json" || fail "mjai-parse --format"
REAL="$DATA/logs/mjx-project_mjx/tests_py/resources/mjlog/2017040900gm-00a9-0000-af5434e3.mjlog"
if [ -f "$REAL" ]; then
	cp "$REAL" "$L/"
else
	echo "shared logs not found at $DATA/logs: self-play games only"
fi

# README: logs/ and pipelines/ only
R="$T/readme"
mkdir -p "$R"
cp -R "$L" "$R/logs"
cp -R "$TOP/pipelines" "$R/pipelines"  # a copy: the programs come from PATH

# man pages: the files they name, made once and copied for every page
F="$T/fixture"
mkdir -p "$F"
cp -R "$L" "$F/logs"
(
	cd "$F" || exit 1
	tar -cf - logs | zstd -q > logs.tar.zst &&
	mjai-parse logs/ -o events.bin &&
	hydra-encode events.bin -o train.bin &&
	hydra-encode events.bin -o train.h5 &&
	hydra-encode events.bin -o val.h5 &&
	hydra-fit -q --arch tiny --steps 2 --batch 16 --out m train.h5 &&
	cp -L m/latest model.h5 && rm -rf m
) > "$T/fixture.log" 2>&1 || { cat "$T/fixture.log"; fail "fixture"; }
cp -R "$TOP/pipelines" "$F/pipelines"

unroff() { sed -e 's/\\-/-/g' -e 's/\\e/\\/g' -e "s/\\\\(aq/'/g" -e 's/\\&//g' -e 's/\\(sc/§/g'; }

# Splits a document into $T/blocks/NNN.sh (scripts) and NNN.ex (transcripts).
split_readme() {
	awk -v dir="$T/blocks" '
		/^```sh$/ { n++; f = sprintf("%s/%03d.sh", dir, n); inb = 1; next }
		/^```/ && inb { inb = 0; close(f); next }
		inb && !/^make (demo|check)([ \t]|$)/ { print > f }
	' "$1"
}
split_man() {
	awk '/^\.SH EXAMPLES/ { p = 1; next } /^\.SH/ { p = 0 } p' "$1" | unroff | awk -v dir="$T/blocks" '
		/^\.nf/ { n++; f = sprintf("%s/%03d.sh", dir, n); inb = 1; next }
		/^\.EX/ { n++; f = sprintf("%s/%03d.ex", dir, n); inb = 1; next }
		/^\.(fi|EE)/ { inb = 0; close(f); next }
		inb { print > f }
	'
}

run_transcript() { # file.ex: "$ cmd" lines and the output expected after each
	awk -v dir="$T" '
		/^\$ / { n++; print substr($0, 3) > sprintf("%s/tx%03d.cmd", dir, n); next }
		n { print > sprintf("%s/tx%03d.want", dir, n) }
	' "$1"
	for c in "$T"/tx*.cmd; do
		[ -f "$c" ] || continue
		w="${c%.cmd}.want"
		[ -f "$w" ] || : > "$w"
		bash -c "$(cat "$c")" > "$T/tx.got" 2>&1 ||
			{ cat "$T/tx.got"; fail "$doc: '$(cat "$c")' failed"; }
		cmp -s "$T/tx.got" "$w" ||
			{ diff "$w" "$T/tx.got"; fail "$doc: '$(cat "$c")' printed something else"; }
		rm -f "$c" "$w"
	done
}

ran=0
for doc in "$TOP/README.md" "$TOP"/man/*.1; do
	rm -rf "$T/blocks" "$T/w"
	mkdir "$T/blocks"
	case $doc in
	*.md) split_readme "$doc"; cp -R "$R" "$T/w" ;;
	*) split_man "$doc"; cp -R "$F" "$T/w" ;;
	esac
	first_done=""
	for b in "$T"/blocks/*; do
		[ -f "$b" ] || continue
		if ! in_full; then
			case $doc in
			*.md) grep -q '^make -f pipelines/' "$b" && continue ;;
			*) [ -n "$first_done" ] && break ;;
			esac
		fi
		case $b in
		*.ex) (cd "$T/w" && run_transcript "$b") || exit 1 ;;
		*.sh)
			grep -q '[^[:space:]]' "$b" || continue
			t0=$(date +%s.%N)
			(cd "$T/w" && timeout 600 bash -e -o pipefail "$b") > "$T/out" 2>&1 || {
				tail -n 30 "$T/out"
				echo "--- the example:"; cat "$b"
				fail "an example of $(basename "$doc") failed"
			}
			first_done=y
			echo "$(basename "$doc") block $(basename "$b"): $(echo "$t0 $(date +%s.%N)" | awk '{ printf "%.1f", $2 - $1 }')s"
			;;
		esac
		ran=$((ran + 1))
	done
done
echo "$ran example blocks ran"
[ "$ran" -ge 15 ] || fail "only $ran example blocks found"
exit 0
