#!/bin/sh
# mjai-parse --check: every complete shared game replays with no illegal
# event and every score change reproduced; tampered logs are caught.
. tests/shell/lib.sh
need_data "the real game logs whose rules replay this test checks"
P="$BIN/mjai-parse"
L="$DATA/logs"

# all complete games, every format. Two convlog fixtures are hand-made and
# inconsistent with their own plays (mjai-reviewer uses them only to test
# call-order parsing): confusing_nakis_1 omits a riichi stick from the
# winner's delta; confusing_nakis_2 names a winner who had no ron chance.
find "$L" -type f \( -name '*.json' -o -name '*.jsonl' -o -name '*.mjson' -o -name '*.mjlog' -o -name '*.xml' \) |
	grep -v -e '-no-game-end' -e '-no-round-end' -e 'hello.input' -e 'suphx-reward-shaping' \
		-e 'confusing_nakis_1.json' -e 'confusing_nakis_2.json' | sort > "$T/files"
[ "$(wc -l < "$T/files")" -ge 100 ] || fail "too few logs"
expect_exit 0 "$P" --check $(cat "$T/files")
expect_err "check: 11[0-9] games, .* 0 illegal events, 0 score mismatches in 0 games"
[ ! -s "$T/out" ] || fail "--check alone wrote output"
expect_exit 1 "$P" --check "$L/Equim-chan_mjai-reviewer/convlog/tests/testdata/confusing_nakis_1.json"
expect_err "confusing_nakis_1.json:1: score change differs: hora seat 0: computed deltas \[2600 0 -1600 0\], logged \[1600 0 -1600 0\]"

# the embedded demo game checks
expect_exit 0 "$P" --check "$TOP/pipelines/demo/sample.jsonl"

# tampered deltas and an illegal discard are reported with the line
f="$L/smly_RiichiEnv/tests/data/126_204_0_mjai.jsonl"
ln=$(grep -n '"type":"hora"' "$f" | head -n 1 | cut -d: -f1)
awk -v n="$ln" 'NR == n { sub(/"deltas":\[[-0-9]+/, "\"deltas\":[12345") } { print }' "$f" > "$T/deltas.json"
expect_exit 1 "$P" --check "$T/deltas.json"
expect_err "deltas.json:$ln: score change differs: .*logged \[12345"
# the first discard of the first kyoku becomes a tile the player does not hold
ln=$(grep -n '"type":"dahai"' "$f" | head -n 1 | cut -d: -f1)
sed -n "${ln}p" "$f" | grep -q '"pai":"W"' || fail "fixture changed: line $ln"
awk -v n="$ln" 'NR == n { sub(/"pai":"W"/, "\"pai\":\"9m\"") } { print }' "$f" > "$T/illegal.json"
expect_exit 1 "$P" --check "$T/illegal.json"
expect_err "illegal.json:$ln: illegal event: .*dahai"
# --check with --json still writes the events
expect_exit 0 "$P" --check --json "$f"
python3 tests/shell/jsoneq.py "$T/out" "$f" || fail "--check --json output"
exit 0
