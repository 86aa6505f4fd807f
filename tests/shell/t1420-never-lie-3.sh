#!/bin/sh
# Never lie, round three (issue 46), one part each:
# 1. hydra-sp commits every output together: a --reward-state it cannot
#    write leaves no -o file, and a stream on standard output without its
#    trailer (the next stage fails);
# 2. non-finite models: tests/unit/test_nn_ckpt.c (a NaN or an infinity in a
#    parameter or a moment is refused at load, naming the file and the
#    dataset) and test_play.c (an output that overflows is an error naming
#    the model, never the first legal action);
# 3. a policy that reads the hidden tiles is refused (status 2, saying why)
#    by every program that has none to give: hydra-review, hydra-bot;
# 4. a signal between the creation of a temporary and its registration
#    (io/cleanup.h's test hook raises it there) leaves no temporary;
# 5. hydra-export --reference refuses samples of another observation
#    version than its checkpoint's, as hydra-eval does, and writes nothing;
# 6. messages that name the problem: a full disk (hydra-export, hydra-fit
#    --mode grp, which also leaves no directory it made), a checkpoint's
#    wrong format attribute, a rulebot parameter file that is not there
#    (rulebot:FILE, hydra-tune --start), a parameter given twice, a review
#    --seat name several seats share; the man pages say --seeds' range and
#    what the Tenhou writers do not carry (a ryukyoku's scores).
. tests/shell/lib.sh
need_cmd python3
S="$BIN/hydra-sp" F="$BIN/hydra-fit" X="$BIN/hydra-export"
cd "$T"
"$S" --games 20 --policy rulebot --log-dir L20 --no-samples -S 5 -q || fail "hydra-sp L20"
"$F" --mode grp --epochs 2 -q -o grp L20 2>/dev/null || fail "hydra-fit --mode grp"
G=grp/grp.h5
"$S" --games 2 --seed 3 -q -o s.bin || fail "hydra-sp samples"
"$F" --arch tiny --steps 1 --batch 16 -q --out run s.bin 2>/dev/null || fail "hydra-fit"
CK=run/latest

# ---- 1. the reward state and the samples: both or neither
: > afile # (a path under a file: cannot be created, also by root)
expect_exit 1 "$S" --games 2 -t 2 -q --reward grp:$G --reward-state afile/rs -o s1.bin
expect_err "afile/rs"
[ ! -e s1.bin ] || fail "-o written although the reward state was not"
ls | grep -q 's1.bin.tmp' && fail "a temporary of -o left"
"$S" --games 2 -t 2 -q --reward grp:$G --reward-state afile/rs > s2.bin 2>/dev/null &&
	fail "hydra-sp to standard output: exit 0 with an unwritable state"
expect_exit 1 "$BIN/hydra-augment" --perms 0 -o s2a.bin s2.bin
[ ! -e s2a.bin ] || fail "the stream of a failed run was read as complete"
# and with a state it can write, both appear
expect_exit 0 "$S" --games 2 -t 2 -q --reward grp:$G --reward-state st -o s3.bin
[ -s s3.bin ] && [ -s st ] || fail "the samples and the state after a good run"

# ---- 3. the hidden tiles: only self-play and the arena deal them
LOG=L20/game-00000000.json.gz
for m in "search:$G,2,oracle" "search:$G,2,oracle-tenpai" "qlabel:$G"; do
	expect_exit 2 "$BIN/hydra-review" --model "$m" -o r.html $LOG
	expect_err "reads the hidden tiles"
	[ ! -e r.html ] || fail "hydra-review --model $m wrote a page"
	echo '[{"type":"start_game","id":0}]' > line.jsonl
	expect_exit 2 "$BIN/hydra-bot" --meta "$m" < line.jsonl
	expect_err "reads the hidden tiles"
	[ ! -s "$T/out" ] || fail "hydra-bot $m answered"
done
# (the lookahead without an oracle reads no hidden tile: it plays)
expect_exit 0 "$BIN/hydra-review" --model "search:$G,2" --json $LOG

# ---- 4. a signal between a temporary's creation and its registration
# (SIGINT, unless this shell was started with it ignored, as a background
# job of a non-interactive shell is: the programs keep an ignored signal
# ignored, io/cleanup.c, so SIGTERM stands in for it)
INT=2 INT_RC=130
ign=$(awk '/^SigIgn:/ { print $2 }' /proc/$$/status 2>/dev/null)
[ -n "$ign" ] && [ $((0x$ign & 2)) -ne 0 ] && INT=15 INT_RC=143
HY_TEST_SIGNAL_IN_STAGING=$INT "$X" $CK -o m.onnx 2>/dev/null
rc=$?
[ $rc -eq $INT_RC ] || [ $rc -eq 1 ] || fail "hydra-export with signal $INT in the window: exit $rc"
ls | grep -q '^m.onnx' && fail "left: $(ls | grep '^m.onnx')"
HY_TEST_SIGNAL_IN_STAGING=15 "$S" --games 1 -q -o sig.bin 2>/dev/null
[ $? -ne 0 ] || fail "hydra-sp with SIGTERM in the window: exit 0"
ls | grep -q '^sig.bin' && fail "left: $(ls | grep '^sig.bin')"
HY_TEST_SIGNAL_IN_STAGING=$INT "$F" --mode grp --epochs 1 -q -o g2 L20 2>/dev/null
[ $? -ne 0 ] || fail "hydra-fit --mode grp with SIGINT in the window: exit 0"
[ -z "$(ls g2 2>/dev/null)" ] || fail "left in g2: $(ls g2)"

# ---- 5. a model meets samples of another observation version
"$BIN/hydra-augment" --perms 0 --format stream -o v1.bin s.bin || fail "to a stream"
printf '\001' | dd of=v1.bin bs=1 seek=17 conv=notrunc 2>/dev/null # version 1
expect_exit 3 "$BIN/hydra-eval" --model $CK --data v1.bin --device cpu
expect_err "v1.bin: samples of observation version 1, the model 4"
expect_exit 3 "$X" --reference -o ref.json $CK v1.bin
expect_err "v1.bin: samples of observation version 1, the model 4"
[ ! -e ref.json ] || fail "hydra-export --reference wrote outputs for another version"
expect_exit 0 "$X" --reference -o ref.json $CK s.bin

# ---- 6. messages
# a full disk (root can mount a small tmpfs here; skipped where it cannot)
if [ "$(id -u)" = 0 ] && mkdir full && mount -t tmpfs -o size=64k tmpfs full 2>/dev/null; then
	trap 'umount "$T/full" 2>/dev/null; rm -rf "$T"' EXIT
	expect_exit 1 "$X" $CK -o full/m.onnx
	expect_err "cannot write 'full/m.onnx': No space left on device"
	[ -z "$(ls full)" ] || fail "hydra-export left $(ls full)"
	expect_exit 1 "$F" --mode grp --epochs 1 -q -o full/g L20
	expect_err "No space left on device"
	[ ! -e full/g ] || fail "hydra-fit --mode grp left full/g: $(ls -a full/g)"
	umount full
fi
# a checkpoint's format attribute that is there but another: says which
"$BIN/hydra-encode" L20 -o sh.h5 2>/dev/null || fail "hydra-encode"
expect_exit 3 "$BIN/hydra-eval" --challenger sh.h5 --opponent random --seeds 1 -q
expect_err "not a hydra checkpoint \\(format attribute 'hydra-samples', not 'hydra-checkpoint'\\)"
# a parameter file that is not there; a name given twice
expect_exit 1 "$BIN/hydra-eval" --challenger rulebot:/nonexistent --opponent random --seeds 1 -q
expect_err "'/nonexistent': No such file or directory"
expect_exit 1 "$BIN/hydra-tune" --start /nonexistent --seeds 4 -o t.params
expect_err "'/nonexistent': No such file or directory"
expect_exit 2 "$BIN/hydra-eval" --challenger rulebot:push_wall=3,push_wall=4 --opponent random --seeds 1 -q
expect_err "'push_wall' given twice"
printf 'push_wall=3\npush_wall=4\n' > twice.params
expect_exit 2 "$BIN/hydra-tune" --start twice.params --seeds 4 -o t.params
expect_err "twice.params:2: rulebot parameter 'push_wall' given twice"
[ ! -e t.params ] || fail "hydra-tune wrote parameters after a refused start"
# --seeds' range in --help and the man page
expect_exit 0 "$BIN/hydra-tune" --help
grep -q -- '--seeds N .* 3 to 1000000' "$T/out" || fail "hydra-tune --help: no range of --seeds"
sed 's/\\-/-/g' "$TOP/man/hydra-tune.1" | grep -A1 -- '^\.BR --seeds' | grep -q '3 to 1000000' ||
	fail "hydra-tune(1): no range of --seeds"
# a seat name that several seats share (self-play names every seat rulebot)
expect_exit 1 "$BIN/hydra-review" --model random --seat rulebot -o r.html $LOG
expect_err "several players named 'rulebot': give the seat"
[ ! -e r.html ] || fail "hydra-review wrote a page for an ambiguous seat"
# the Tenhou writers do not carry a ryukyoku's scores: as the man page says
"$BIN/mjai-parse" --format tenhou6 -o t6.json L20 2>/dev/null || fail "mjai-parse --format tenhou6"
"$BIN/mjai-parse" --json t6.json > back.mjson 2>/dev/null || fail "mjai-parse --json t6.json"
zcat L20/*.json.gz | grep '"type":"ryukyoku"' | grep -q '"scores"' ||
	fail "no ryukyoku with scores in the 20 games: the check below means nothing"
grep '"type":"ryukyoku"' back.mjson | grep -q . || fail "no ryukyoku read back"
grep '"type":"ryukyoku"' back.mjson | grep -q '"scores"' &&
	fail "a ryukyoku read back with scores: the man page says the writers drop them"
sed 's/\\f[BIR]//g; s/\\-/-/g' "$TOP/man/mjai-parse.1" | tr '\n' ' ' |
	grep -q 'no scores on reach_accepted, hora and ryukyoku, no actor on the nine-terminals' ||
	fail "mjai-parse(1) does not say what the Tenhou writers drop"
exit 0
