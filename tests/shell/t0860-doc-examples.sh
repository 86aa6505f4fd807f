#!/bin/sh
# Every example in README.md and in the EXAMPLES section of every man page
# runs as written, with the programs on PATH (the README's documented
# `export PATH=$PWD/build/bin:$PATH`), in a scratch directory holding the
# files the examples name:
#
#   logs/          two short games: pipelines/demo/sample.jsonl and a Tenhou
#                  mjlog (2017040900gm-00a9-0000-af5434e3.mjlog, a game that
#                  falls in a 5% validation split)
#   logs.tar.zst   the same logs as an archive
#   events.bin     mjai-parse logs/
#   train.bin train.h5 val.h5   samples of the two games
#   model.h5       a trained tiny checkpoint
#   pipelines/     a copy of the checkout's (README: make -f pipelines/...)
#
# README blocks are the ```sh blocks, except the lines that run `make demo`
# or `make check` (this test runs under make check). Man pages: each
# .nf/.fi block of EXAMPLES is one bash script (set -e -o pipefail); in
# .EX/.EE blocks every "$ command" line runs and must print exactly the
# lines shown after it.
. tests/shell/lib.sh
need_data
command -v bash >/dev/null || skip "bash not installed"
GAME="$DATA/logs/mjx-project_mjx/tests_py/resources/mjlog/2017040900gm-00a9-0000-af5434e3.mjlog"
[ -f "$GAME" ] || skip "$GAME not found (skipped)"
PATH="$BIN:$PATH"
export PATH

# the fixture, built once and copied for every document
F="$T/fixture"
mkdir -p "$F/logs"
cp "$TOP/pipelines/demo/sample.jsonl" "$GAME" "$F/logs/"
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
cp -R "$TOP/pipelines" "$F/pipelines"  # a copy: the programs come from PATH

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
	cp -R "$F" "$T/w"
	case $doc in
	*.md) split_readme "$doc" ;;
	*) split_man "$doc" ;;
	esac
	for b in "$T"/blocks/*; do
		[ -f "$b" ] || continue
		case $b in
		*.ex) (cd "$T/w" && run_transcript "$b") || exit 1 ;;
		*.sh)
			grep -q '[^[:space:]]' "$b" || continue
			(cd "$T/w" && timeout 600 bash -e -o pipefail "$b") > "$T/out" 2>&1 || {
				tail -n 30 "$T/out"
				echo "--- the example:"; cat "$b"
				fail "an example of $(basename "$doc") failed"
			}
			;;
		esac
		ran=$((ran + 1))
	done
done
echo "$ran example blocks ran"
[ "$ran" -ge 15 ] || fail "only $ran example blocks found"
exit 0
