#!/bin/sh
# hydra-bot and the external-bot policy (mjai:COMMAND): --help and the man
# page agree, usage errors; through hydra-sp, hydra-bot baseline at any
# seat plays exactly the games of the baseline (byte-identical logs but
# for the names), and so does hydra-eval's arena; a recorded seat-view
# session fed to hydra-bot directly gives the recorded answers; real
# third-party seat-view fragments (shared data) get the expected wins,
# riichi and no win in furiten; malformed
# input names its line; scripted bots that crash, hang, answer an illegal
# action or malformed JSON are reported with the game, the event and the
# line, and leave no process behind; a tiny checkpoint plays through
# hydra-bot as it plays in hydra-sp.
. tests/shell/lib.sh
H="$BIN/hydra-bot"
S="$BIN/hydra-sp"
[ -x "$S" ] || skip "hydra-sp not built (skipped)"

# --help, man page, -V
expect_exit 0 "$H" --help
grep -q '^usage: hydra-bot \[options\] \[CKPT.h5 | baseline | rulebot | random\]' "$T/out" || fail "--help usage line"
grep -A2 '^\.B hydra-bot' "$TOP/man/hydra-bot.1" | grep -q 'baseline' || fail "man SYNOPSIS"
sed 's/\\-/-/g' "$TOP/man/hydra-bot.1" > "$T/man.txt"
for o in temperature seed meta help version; do
	grep -q -- "--$o" "$T/out" || fail "--help lacks --$o"
	grep -q -- "--$o" "$T/man.txt" || fail "man page lacks --$o"
done
expect_exit 0 "$H" -V
grep -q '^hydra-bot (hydra-c) ' "$T/out" || fail "-V"

# usage errors
expect_exit 2 env HYDRA_MODELS="$T/no-models" "$H"
expect_err "no policy named, and no shipped policy.h5 \(looked in $T/no-models\)"
expect_exit 2 "$H" nonsense
expect_err "unknown policy 'nonsense'"
expect_exit 2 "$H" baseline random
expect_exit 2 "$H" --temperature -1 baseline
expect_exit 2 "$H" --seed x baseline
expect_exit 2 "$H" --bogus baseline
expect_err "try 'hydra-bot --help'"

# names stripped: the first line of a log names the policies
strip() { gzip -dc "$1" | tail -n +2; }
same_games() { # dir1 dir2
	n=0
	for f in "$1"/*.json.gz; do
		strip "$f" > "$T/x"
		strip "$2/$(basename "$f")" > "$T/y"
		cmp -s "$T/x" "$T/y" || fail "$(basename "$f"): the games differ"
		n=$((n + 1))
	done
	[ "$n" -gt 0 ] || fail "no games in $1"
}

# hydra-bot baseline plays the baseline's games, at seat 0 and rotating
expect_exit 0 "$S" --games 6 --seed 31 --tables 3 --policy baseline --log-dir "$T/A" --no-samples
expect_exit 0 "$S" --games 6 --seed 31 --tables 3 --seat0 "mjai:$H baseline" --others baseline \
	--log-dir "$T/B" --no-samples
same_games "$T/A" "$T/B"
gzip -dc "$T/B/game-00000000.json.gz" | head -n 1 | grep -q '"names":\["mjai:' || fail "bot name"
expect_exit 0 "$S" --games 4 --seed 31 --tables 2 --rotate "mjai:$H baseline,baseline" \
	--log-dir "$T/C" --no-samples
same_games "$T/C" "$T/A"
"$BIN/mjai-parse" --check "$T/B" > /dev/null 2>&1 || fail "mjai-parse --check of the bot's games"

# the arena: the same games and figures with the bot as challenger
if [ -x "$BIN/hydra-eval" ]; then
	E="$BIN/hydra-eval"
	expect_exit 0 "$E" --challenger baseline --opponent baseline --seeds 3 --seed 9 --json \
		--log-dir "$T/EA"
	sed 's/"challenger":"[^"]*",//; s/,"elapsed_s".*//' "$T/out" > "$T/ea.json"
	expect_exit 0 "$E" --challenger "mjai:$H baseline" --opponent baseline --seeds 3 --seed 9 \
		--json --log-dir "$T/EB"
	sed 's/"challenger":"[^"]*",//; s/,"elapsed_s".*//' "$T/out" > "$T/eb.json"
	same_file "$T/ea.json" "$T/eb.json"
	grep -q '"games":12,"aborted":0' "$T/eb.json" || fail "arena games"
	same_games "$T/EA" "$T/EB"
fi

# a recorded seat-view session, fed to hydra-bot directly
expect_exit 0 "$S" --games 1 --seed 77 --seat0 baseline \
	--others "mjai:tee -a $T/session.in | $H baseline | tee -a $T/session.out" --no-samples
[ -s "$T/session.in" ] || fail "no session recorded"
[ "$(wc -l < "$T/session.in")" -eq "$(wc -l < "$T/session.out")" ] || fail "one answer per line"
head -n 1 "$T/session.in" | grep -q '^\[{"type":"start_game".*"id":[123]}' || fail "start_game id"
grep -q '"tehais":\[\["?"' "$T/session.in" || fail "hidden hands"
grep -q '"type":"tsumo","actor":0,"pai":"?"' "$T/session.in" || fail "hidden draws"
grep -q '"seed"' "$T/session.in" && fail "the seed leaked to the bot"
# one seat's session, recorded and replayed
expect_exit 0 "$S" --games 1 --seed 78 --seat0 "mjai:tee $T/one.in | $H baseline | tee $T/one.out" \
	--others baseline --no-samples
expect_exit 0 "$H" baseline < "$T/one.in"
same_file "$T/out" "$T/one.out"
grep -q '"type":"dahai","actor":0' "$T/one.out" || fail "no discards answered"
grep -q '^{"type":"none"}$' "$T/one.out" || fail "no none answered"
# --meta: the same answers, each answer to a decision with Mortal's
# metadata (q_values over the legal actions of mask_bits, is_greedy,
# batch_size, eval_time_ns, shanten) and our probs; a rule bot has no value
expect_exit 0 "$H" --meta baseline < "$T/one.in"
mv "$T/out" "$T/meta.out"
jq -c 'del(.meta)' "$T/meta.out" > "$T/meta.ev"
same_file "$T/meta.ev" "$T/one.out"
# pop: the number of bits set in a mask
META_OK='def pop: [recurse(if . >= 2 then (. / 2 | floor) else empty end) | . % 2] | add;
	.meta | (.mask_bits | pop) as $n | (.q_values | length) == $n and (.probs | length) == $n and
	((.probs | add) - 1 | fabs) < 1e-4 and .batch_size == 1 and .eval_time_ns >= 0 and
	(.shanten >= -1 and .shanten <= 6) and (.is_greedy | type) == "boolean" and
	(([.q_values[] | exp] | add) - 1 | fabs) < 1e-3'
jq -e -s "map(select(.type != \"none\") | has(\"meta\")) | all" "$T/meta.out" > /dev/null ||
	fail "--meta: an action without meta"
[ "$(grep -c '"meta"' "$T/meta.out")" -gt "$(grep -vc '"type":"none"' "$T/meta.out")" ] ||
	fail "--meta: no pass decision with meta"
jq -e -s "map(select(has(\"meta\")) | ($META_OK) and .meta.is_greedy and (.meta | has(\"value\") | not)) | all" \
	"$T/meta.out" > /dev/null || fail "--meta: fields of a rule bot's answers"

# third-party seat-view fragments (mjai-manue-go's test inputs, one event
# per line): the wins, the double riichi, no ron in temporary furiten
M="$DATA/logs/Apricot-S_mjai-manue-go/internal/adapter/mjai/runtime/testdata/manue"
if [ -d "$M" ]; then
	answer_to() { # fragment, the answer expected to its last decision
		expect_exit 0 "$H" baseline < "$M/$1.input.mjson"
		[ "$(wc -l < "$T/out")" -eq "$(wc -l < "$M/$1.input.mjson")" ] || fail "$1: answers"
		tail -n 2 "$T/out" | head -n 1 | grep -qF "$2" || fail "$1: expected $2"
	}
	answer_to chiitoitsu_ron '{"type":"hora","actor":3,"target":0,"pai":"9s"}'
	answer_to kokushimusou_ron '{"type":"hora","actor":3,"target":0,"pai":"9s"}'
	answer_to chiihou '{"type":"hora","actor":3,"target":3,"pai":"9s"}'
	answer_to double_riichi '{"type":"reach","actor":3}'
	for f in temporary_furiten_continues_after_pon_skip temporary_furiten_self_turn_continues; do
		expect_exit 0 "$H" baseline < "$M/$f.input.mjson"
		grep -q '"hora"' "$T/out" && fail "$f: a win in furiten"
	done
fi

# malformed input names the line
printf '[{"type":"start_game","id":0}]\n{"type":\n' > "$T/bad1"
expect_exit 1 "$H" baseline < "$T/bad1"
expect_err "^hydra-bot: line 2: invalid JSON"
[ "$(wc -l < "$T/out")" -eq 1 ] || fail "answers before the bad line"
printf '[{"type":"tsumo","actor":0,"pai":"1m"}]\n' > "$T/bad2"
expect_exit 1 "$H" baseline < "$T/bad2"
expect_err "line 1: event 1 \(tsumo\) before start_game"
printf '[{"type":"start_game"}]\n' > "$T/bad3"
expect_exit 1 "$H" baseline < "$T/bad3"
expect_err "line 1: .*no seat \"id\""
head -n 2 "$T/one.in" > "$T/bad4"
printf '[{"type":"dahai","actor":2,"pai":"1m","tsumogiri":false}]\n' >> "$T/bad4"
expect_exit 1 "$H" baseline < "$T/bad4"
expect_err "line 3: event 1 \(dahai\): .*not this seat's turn"
printf '[1,2]\n' > "$T/bad5"
expect_exit 1 "$H" baseline < "$T/bad5"
expect_err "line 1: event 1:"

# scripted bots: each failure names the game, the event and the line
mkdir "$T/bots"
cp "$TOP"/tests/bots/*.sh "$T/bots/"
bad_bot() { # script, input line where it fails, timeout, patterns the message must match
	b=$1 line=$2 timeout=$3; shift 3
	expect_exit 1 "$S" --keep-going --games 2 --tables 1 --seed 5 --bot-timeout "$timeout" --no-samples \
		--seat0 "mjai:sh $T/bots/$b.sh $line $H baseline" --others baseline
	for g in 1 2; do # the diagnostic's game (1-based), seat, event and its type
		expect_err "game $g: seat 0, answering event [0-9]+ \((tsumo|dahai|chi|pon|daiminkan|kakan|ankan|reach|dora)\)"
	done
	for p in "$@"; do expect_err "$p"; done
}
bad_bot crash 20 60 "closed its output without answering \(it exited with status 3\)"
bad_bot hang 1 1 "gave no answer within 1 s"
bad_bot illegal 20 60 'answered an illegal action "\{\\"type\\":\\"kakan\\",\\"actor\\":0,' "not among"
bad_bot malformed 20 60 'answered malformed JSON "\{\\"type\\":\\"dahai\\",\\"actor\\":"' "invalid JSON"
sleep 1
ps -eo args | grep -F "$T/bots" | grep -v grep && fail "bot processes left behind"

# a tiny checkpoint plays through hydra-bot as in hydra-sp (greedy)
[ -x "$BIN/hydra-fit" ] || skip "hydra-fit not built (model part skipped)"
expect_exit 0 "$S" --games 1 --seed 3 -o "$T/s.bin"
"$BIN/hydra-fit" --arch tiny --steps 1 --batch 32 --out "$T/run" "$T/s.bin" 2> "$T/fit" ||
	{ cat "$T/fit" >&2; fail "hydra-fit"; }
expect_exit 0 "$S" --games 2 --seed 8 --temperature 0 --seat0 "$T/run/latest" --others baseline \
	--log-dir "$T/MA" --no-samples
expect_exit 0 "$S" --games 2 --seed 8 --seat0 "mjai:$H $T/run/latest" --others baseline \
	--log-dir "$T/MB" --no-samples
same_games "$T/MA" "$T/MB"
# --meta with a checkpoint: the same answers, probabilities that are the
# softmax of q_values, greedy at temperature 0, a value
expect_exit 0 "$H" "$T/run/latest" < "$T/one.in"
mv "$T/out" "$T/m.out"
expect_exit 0 "$H" --meta "$T/run/latest" < "$T/one.in"
jq -c 'del(.meta)' "$T/out" | cmp -s - "$T/m.out" || fail "--meta changed a checkpoint's answers"
jq -e -s "map(select(has(\"meta\")) | ($META_OK) and .meta.is_greedy and (.meta.value | type) == \"number\" and
	(.meta.q_values as \$q | .meta.probs as \$p | ([\$q[] | exp] | add) as \$z |
	 [range(\$q | length)] | all((\$q[.] | exp) / \$z - \$p[.] | fabs < 1e-4))) | all" "$T/out" \
	> /dev/null || fail "--meta: fields of a checkpoint's answers"
# two bots failing in one batch (two tables): each game is reported with its
# own game and event, not the first failure's
printf '#!/bin/sh\nread l; exit 3\n' > "$T/die.sh"
"$BIN/hydra-sp" --keep-going --games 2 --tables 2 --seat0 "mjai:sh $T/die.sh" --others baseline \
	--no-samples > /dev/null 2> "$T/two.err" && fail "failing bots gave exit 0"
grep -q "game 1 (index 0) aborted: .*: game 1: seat 0" "$T/two.err" || { cat "$T/two.err"; fail "first game's report"; }
grep -q "game 2 (index 1) aborted: .*: game 2: seat 0" "$T/two.err" || { cat "$T/two.err"; fail "second game's report"; }
exit 0
