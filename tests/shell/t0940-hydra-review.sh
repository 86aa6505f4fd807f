#!/bin/sh
# hydra-review: --help and the man page agree, usage errors; on games the
# rule bot played (hydra-sp, no shared data needed) the review has exactly
# the decisions hydra-encode makes samples of, rulebot reviewing them agrees
# on every one, baseline does not; a tiny checkpoint's review has
# probabilities summing to 1, values, top actions in order, marks and
# figures consistent with the decisions, and the page is one file with no
# network resource, its JSON the same as --json's; --seat by number and by
# name, --game, -o; a broken log and a missing game fail with a message.
. tests/shell/lib.sh
R="$BIN/hydra-review"
need_cmd jq
[ -x "$BIN/hydra-sp" ] || skip "hydra-sp not built (skipped)"

# --help, man page, -V
expect_exit 0 "$R" --help
grep -q '^usage: hydra-review \[--model POLICY\] \[options\] LOG\.\.\.' "$T/out" || fail "--help usage line"
grep -A3 '^\.B hydra-review' "$TOP/man/hydra-review.1" | grep -q 'model' || fail "man SYNOPSIS"
sed 's/\\-/-/g' "$TOP/man/hydra-review.1" > "$T/man.txt"
for o in model reader threat seat game json output threads device help version; do
	grep -q -- "--$o" "$T/out" || fail "--help lacks --$o"
	grep -q -- "--$o" "$T/man.txt" || fail "man page lacks --$o"
done
expect_exit 0 "$R" -V
grep -q '^hydra-review (hydra-c) ' "$T/out" || fail "-V"

# two games of the rule teacher
expect_exit 0 "$BIN/hydra-sp" --games 2 --seed 5 --policy rulebot --log-dir "$T/logs" --no-samples
G="$T/logs/game-00000000.json.gz"

# usage errors
expect_exit 2 env HYDRA_MODELS="$T/no-models" "$R" "$G"
expect_err "no reviewer named, and no shipped policy.h5 \(looked in $T/no-models\)"
expect_exit 2 "$R" --model rulebot --threat 2 "$G"
expect_exit 3 "$R" --model rulebot --reader "$G" "$G"
expect_exit 2 "$R" --model rulebot
expect_err "no LOG"
expect_exit 2 "$R" --model nonsense "$G"
expect_err "unknown policy 'nonsense'"
expect_exit 2 "$R" --model 'mjai:cat' "$G"
expect_exit 2 "$R" --model rulebot --game 0 "$G"
expect_exit 2 "$R" --model rulebot --threads x "$G"
expect_exit 2 "$R" --model rulebot --bogus "$G"
expect_err "try 'hydra-review --help'"

# the decisions are the encoder's samples; rulebot agrees with itself
for g in "$T"/logs/*.json.gz; do
	expect_exit 0 "$R" --model rulebot --json "$g"
	mv "$T/out" "$T/rb.json"
	n=$("$BIN/hydra-encode" -s "$g" -o /dev/null 2>&1 | sed -n 's/.* \([0-9]*\) samples$/\1/p')
	[ -n "$n" ] && [ "$n" -gt 50 ] || fail "hydra-encode counted '$n' samples"
	jq -e --argjson n "$n" '.summary.decisions == $n and (.decisions | length) == $n' "$T/rb.json" \
		> /dev/null || fail "$(basename "$g"): $(jq .summary.decisions "$T/rb.json") decisions, $n samples"
	jq -e '.summary.agreement == 1 and .summary.mean_prob == 1 and .summary.low == 0 and
		(.summary.costliest | length) == 0 and .seats == [0,1,2,3]' "$T/rb.json" > /dev/null ||
		fail "rulebot does not agree with its own games: $(jq -c '.summary | del(.per_seat)' "$T/rb.json")"
done
# every action class is there, and the decisions are in game order
jq -e '[.decisions[].played.type] | unique | (index("dahai") and index("none"))' "$T/rb.json" > /dev/null ||
	fail "played types"
jq -e '[.decisions[].event] | . == sort' "$T/rb.json" > /dev/null || fail "decisions out of order"
jq -e '[.kyoku[].decisions] | add == (input.decisions | length)' "$T/rb.json" "$T/rb.json" > /dev/null ||
	fail "kyoku do not cover the decisions"
jq -e '.decisions | all(((.hand | length) + (if .drawn then 1 else 0 end)) |
	. % 3 != 0 and . <= 14)' "$T/rb.json" > /dev/null || fail "hand sizes"

# baseline reviewing rulebot: departures, listed costliest first
expect_exit 0 "$R" --model baseline --json "$G"
jq -e '.summary.agreement < 1 and .summary.low > 0 and (.summary.costliest | length) > 0' "$T/out" \
	> /dev/null || fail "baseline agrees with rulebot everywhere"

# a tiny checkpoint
[ -x "$BIN/hydra-fit" ] || skip "hydra-fit not built (model part skipped)"
expect_exit 0 "$BIN/hydra-sp" --games 1 --seed 3 -o "$T/s.bin"
"$BIN/hydra-fit" --arch tiny --steps 2 --batch 32 --out "$T/run" "$T/s.bin" 2> "$T/fit" ||
	{ cat "$T/fit" >&2; fail "hydra-fit"; }
M="$T/run/latest"
expect_exit 0 "$R" --model "$M" --json "$G"
mv "$T/out" "$T/m.json"
jq -e '.has_value and (.decisions | all(
	(([.probs[][1]] | add) - 1 | fabs) < 1e-4 and .value != null and
	([.top[].prob] | . == (sort | reverse)) and
	(.top[0].prob == ([.probs[][1]] | max)) and
	(.agree == (.top[0].index == .played.index)) and
	(.low == (.played.prob < 0.1))))' "$T/m.json" > /dev/null || fail "a checkpoint's decisions"
# the played action's probability is its entry in probs
jq -e '.decisions | all(. as $d | $d.played.prob == ([$d.probs[] | select(.[0] == $d.played.index)][0][1]))' \
	"$T/m.json" > /dev/null || fail "played probabilities"
# the summary from the decisions
jq -e '(.decisions | length) as $n | .summary.decisions == $n and
	.summary.agree == ([.decisions[] | select(.agree)] | length) and
	.summary.low == ([.decisions[] | select(.low)] | length) and
	((.summary.mean_prob - ([.decisions[].played.prob] | add / $n)) | fabs) < 1e-5 and
	((.summary.agreement - .summary.agree / $n) | fabs) < 1e-5' "$T/m.json" > /dev/null ||
	fail "summary figures"
jq -e '[.summary.costliest[].cost] | . == (sort | reverse)' "$T/m.json" > /dev/null || fail "costliest order"

# the page: one file, no network resource, its data the --json object
expect_exit 0 "$R" --model "$M" "$G" -o "$T/review.html"
[ ! -s "$T/out" ] || fail "-o wrote to stdout too"
grep -q '^<!doctype html>' "$T/review.html" || fail "not an HTML page"
grep -Eiq '(src|href)=.(https?:|//)|@import|url\(' "$T/review.html" && fail "the page loads a network resource"
[ "$(grep -c '</script>' "$T/review.html")" -eq 2 ] || fail "a </script> inside the data"
sed -n "s|^<script type='application/json' id='data'>\(.*\)</script>\$|\1|p" "$T/review.html" |
	jq -S . > "$T/page.json" || fail "the page's data is not JSON"
jq -S . "$T/m.json" > "$T/m.sorted.json"
same_file "$T/page.json" "$T/m.sorted.json"
ls "$T"/review.html* | grep -v 'review.html$' && fail "temporaries left"

# --seat by number, by name (sample game: Hydra, Alice, Bob, Carol), --game
expect_exit 0 "$R" --model rulebot --seat 2 --json "$G"
jq -e '.seats == [2] and (.decisions | all(.seat == 2)) and .summary.decisions > 0' "$T/out" > /dev/null ||
	fail "--seat 2"
S="$TOP/pipelines/demo/sample.jsonl"
expect_exit 0 "$R" --model rulebot --seat Alice --seat 0 --json "$S"
jq -e '.seats == [0,1] and .names[1] == "Alice"' "$T/out" > /dev/null || fail "--seat Alice --seat 0"
expect_exit 1 "$R" --model rulebot --seat Nobody "$S"
expect_err "no player named 'Nobody'"
cat "$T/logs/game-00000000.json.gz" "$T/logs/game-00000001.json.gz" > "$T/two.json.gz"
expect_exit 0 "$R" --model rulebot --game 2 --json "$T/two.json.gz"
jq -S . "$T/out" > "$T/g2.json"
expect_exit 0 "$R" --model rulebot --json "$T/logs/game-00000001.json.gz"
jq -S 'del(.source, .game)' "$T/out" > "$T/g1.json"
jq -S 'del(.source, .game)' "$T/g2.json" | cmp -s - "$T/g1.json" || fail "--game 2 is not the second game"
expect_exit 1 "$R" --model rulebot --game 3 "$T/two.json.gz"
expect_err "holds 2 games: no game 3"

# a player's own log (the others' hands hidden): that seat alone by default
gzip -dc "$G" | jq -c 'if .type == "start_kyoku" then .tehais |= [.[0], (.[1:][] | map("?"))]
	elif .type == "tsumo" and .actor != 0 then .pai = "?" else . end' > "$T/own.jsonl"
expect_exit 0 "$R" --model rulebot --json "$T/own.jsonl"
jq -e '.seats == [0] and .summary.agreement == 1' "$T/out" > /dev/null || fail "a player's own log"
expect_exit 0 "$R" --model rulebot --seat 0 --json "$G"
jq -c '.summary' "$T/out" > "$T/full0"
expect_exit 0 "$R" --model rulebot --json "$T/own.jsonl"
jq -c '.summary' "$T/out" | cmp -s - "$T/full0" || fail "the seat's review depends on hidden hands"

# a broken log: the event is named
gzip -dc "$G" | awk 'NR == 8 { sub(/"type":"dahai"/, "\"type\":\"reach\"") } { print }' > "$T/bad.jsonl"
expect_exit 1 "$R" --model rulebot -o "$T/bad.html" "$T/bad.jsonl"
expect_err "^hydra-review: .*bad.jsonl"
[ -e "$T/bad.html" ] && fail "an output after a failure"
exit 0
