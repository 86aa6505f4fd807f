#!/bin/sh
# The shipped models (models/README.md) keep loading: every file in models/
# is a weights-only checkpoint with its provenance beside it, of the
# observation version the encoder writes now (a change of the observation
# or of the checkpoint format that would leave them unreadable fails here,
# and so comes with new files: models/build.sh), and plays a game — the
# policy at a seat against rulebot, the wait reader as rulebot's reader and
# in a review. With none named, hydra-bot answers with the shipped policy,
# hydra-eval's arena takes it as the challenger and hydra-review reviews
# with it and shows the reader's danger, each saying so once on stderr (-q:
# not); an installed tree (PREFIX/bin, PREFIX/share/hydra/models) finds
# them too.
. tests/shell/lib.sh
need_cmd h5dump
need_cmd jq
M="$TOP/models"
[ -f "$M/policy.h5" ] && [ -f "$M/reader.h5" ] ||
	fail "models/ lacks policy.h5 or reader.h5 (models/README.md; models/build.sh makes them)"
attr() { h5dump -a "$1" "$2" 2>/dev/null | sed -n 's/.*(0): \([0-9-]*\).*/\1/p' | head -n 1; }

# the encoder's observation version: that of fresh samples, as a shard
"$BIN/hydra-sp" --games 1 --seed 3 --policy rulebot -q -o "$T/s.bin" || fail "hydra-sp"
"$BIN/hydra-augment" --perms 0 -q -o "$T/s.h5" "$T/s.bin" || fail "hydra-augment"
enc=$(attr obs_version "$T/s.h5")
[ -n "$enc" ] || fail "no obs_version in a fresh shard"

n=0
for f in "$M"/*.h5; do
	n=$((n + 1))
	b=$(basename "$f" .h5)
	[ -s "$M/$b.provenance" ] || fail "$f has no provenance file (models/$b.provenance)"
	ov=$(attr obs_version "$f")
	[ "$ov" = "$enc" ] || fail "$f was trained on observation version ${ov:-?}, the encoder writes $enc:" \
		"ship new models with the change (models/build.sh)"
	[ "$(attr weights_only "$f")" = 1 ] || fail "$f is not weights-only (hydra-export --weights)"
	mode=$(attr train_mode "$f")
	case $mode in
	2) # a wait reader: rulebot reads with it for a whole game
		expect_exit 0 "$BIN/hydra-sp" --games 1 --seed 4 --policy "rulebot:reader=$f" \
			--log-dir "$T/r-$b" --no-samples
		;;
	*) # a policy: one game at seat 0 against three rulebot
		expect_exit 0 "$BIN/hydra-sp" --games 1 --seed 4 --seat0 "$f" --others rulebot \
			--log-dir "$T/p-$b" --no-samples
		[ -s "$T/p-$b/game-00000000.json.gz" ] || fail "$f: no game log"
		;;
	esac
done
echo "models/: $n files, observation version $enc"

# none named: the shipped policy, said once
LINE='[{"type":"start_game","id":0},{"type":"start_kyoku","bakaze":"E","dora_marker":"1p","kyoku":1,"honba":0,"kyotaku":0,"oya":0,"scores":[25000,25000,25000,25000],"tehais":[["1m","2m","3m","5p","6p","7p","2s","3s","4s","E","E","W","N"],["?","?","?","?","?","?","?","?","?","?","?","?","?"],["?","?","?","?","?","?","?","?","?","?","?","?","?"],["?","?","?","?","?","?","?","?","?","?","?","?","?"]]},{"type":"tsumo","actor":0,"pai":"9m"}]'
echo "$LINE" > "$T/line"
expect_exit 0 "$BIN/hydra-bot" < "$T/line"
jq -e 'select(.type == "dahai" and .actor == 0)' "$T/out" > /dev/null || fail "hydra-bot: no discard: $(cat "$T/out")"
[ "$(grep -c "no policy named: the shipped one, $M/policy.h5" "$T/err")" = 1 ] ||
	fail "hydra-bot did not say the shipped model once: $(cat "$T/err")"
expect_exit 0 "$BIN/hydra-bot" -q < "$T/line"
[ ! -s "$T/err" ] || fail "hydra-bot -q said: $(cat "$T/err")"

expect_exit 0 "$BIN/hydra-eval" --opponent rulebot --seeds 2 --json
jq -e '.rank.mean >= 1 and .rank.mean <= 4' "$T/out" > /dev/null || fail "hydra-eval: no rank"
jq -e --arg p "$M/policy.h5" '.challenger == $p' "$T/out" > /dev/null || fail "hydra-eval: challenger not the shipped one"
grep -q "no challenger named: the shipped one, $M/policy.h5" "$T/err" || fail "hydra-eval did not say it"

# a review with the shipped policy and reader of a game with a riichi
G=
for s in 5 6 7 8 9 10 11 12; do
	"$BIN/hydra-sp" --games 1 --seed $s --policy rulebot --log-dir "$T/g$s" --no-samples -q || fail "hydra-sp"
	if gzip -dc "$T/g$s/game-00000000.json.gz" | grep -q '"type":"reach_accepted"'; then
		G="$T/g$s/game-00000000.json.gz"
		break
	fi
done
[ -n "$G" ] || fail "no self-play game with a riichi in 8 seeds"
expect_exit 0 "$BIN/hydra-review" --json "$G"
grep -q "no reviewer named: the shipped one, $M/policy.h5" "$T/err" || fail "hydra-review: policy not said"
grep -q "no wait reader named: the shipped one, $M/reader.h5" "$T/err" || fail "hydra-review: reader not said"
mv "$T/out" "$T/r.json"
jq -e --arg p "$M/reader.h5" '.reader == $p' "$T/r.json" > /dev/null || fail "review: reader not the shipped one"
# every decision where an opponent is in riichi lists it, 34 probabilities in [0, 1]
jq -e '[.decisions[] | . as $x | [range(4)] | map(select(. != $x.seat and $x.players[.].riichi)) as $r |
	($r | all(. as $s | $x.threats | map(.seat) | index($s) != null))] | all' "$T/r.json" > /dev/null ||
	fail "a decision against a riichi lists no threat"
jq -e '[.decisions[].threats[]] | length > 0 and all(.deal_in | length == 34 and all(. >= 0 and . <= 1))' \
	"$T/r.json" > /dev/null || fail "threats: no deal-in probabilities"
expect_exit 0 "$BIN/hydra-review" -q --reader none --json "$G"
[ ! -s "$T/err" ] || fail "hydra-review -q said: $(cat "$T/err")"
jq -e '.reader == null and all(.decisions[]; has("threats") | not)' "$T/out" > /dev/null ||
	fail "--reader none still shows threats"
expect_exit 3 "$BIN/hydra-review" --reader "$M/policy.h5" "$G"
expect_err "is a policy network, and --reader needs a wait reader"

# an installed tree: PREFIX/bin beside PREFIX/share/hydra/models
P="$T/prefix"
mkdir -p "$P/bin" "$P/share/hydra/models"
cp "$BIN/hydra-bot" "$P/bin/"
cp "$M"/*.h5 "$P/share/hydra/models/"
expect_exit 0 "$P/bin/hydra-bot" < "$T/line"
grep -q "the shipped one, $P/share/hydra/models/policy.h5" "$T/err" ||
	fail "installed hydra-bot did not find PREFIX/share/hydra/models: $(cat "$T/err")"
expect_exit 0 env HYDRA_MODELS="$P/share/hydra/models" "$BIN/hydra-bot" < "$T/line"
grep -q "the shipped one, $P/share/hydra/models/policy.h5" "$T/err" || fail "HYDRA_MODELS not used"
exit 0
