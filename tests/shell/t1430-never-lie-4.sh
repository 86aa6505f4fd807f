#!/bin/sh
# Never lie, round four (issue 57), one part each:
# 1. an empty path is a usage error before any work, for every option and
#    operand that takes one (hydra-eval --log-dir '' wrote its logs into /);
# 2. hydra-export --reference reads its inputs to their end: an aborted
#    stream, or one whose checksum fails after the first --limit samples,
#    is refused; so is a game hydra-review takes from an aborted stream; a
#    version mismatch exits 3, as the README's table says;
# 3. hydra-tune --reader opens the reader once: a link that goes away in
#    the middle of the search changes nothing;
# 4. bench/learn/reader.sh stops when a scoring arena fails, appending no row;
# 5. the kind of a model file is checked for its role, in one message: a
#    wait reader as the PPO anchor or as a player, a policy as reader=;
# 6. --mode reader refuses inputs with no opponent labels;
# 7. anchor_kl is a number in every metrics line of a run with --anchor,
#    also when the last pass of a rollout batch ran no step;
# 8. hydra-hand names the option it does not know inside a cluster;
# 9. reader= and read= given twice, or in the wrong place, say so;
# 10. what is not a checkpoint says what it is, with status 3;
# 11. messages: a truncated shard in words, no notice about inputs that
#     are missing, a full disk under --help, --seat's range;
# 12. bench/play/selfplay.sh's checkpoints record their observation version.
. tests/shell/lib.sh
need_cmd python3
S="$BIN/hydra-sp" F="$BIN/hydra-fit" X="$BIN/hydra-export" V="$BIN/hydra-eval"
cd "$T"
"$S" --policy rulebot --games 4 -o g.bin -q || fail "hydra-sp"
"$F" --mode reader --arch tiny --steps 4 -b 32 -q --out rr g.bin 2>/dev/null || fail "reader"
"$F" --arch tiny --steps 4 -b 32 -q --out pp g.bin 2>/dev/null || fail "policy"
R=rr/ckpt-00000004.h5 P=pp/ckpt-00000004.h5
"$S" --policy rulebot --games 1 -q --no-samples --log-dir L || fail "hydra-sp logs"
LOG=L/game-00000000.json.gz

# ---- 1. empty paths: status 2 and "empty --NAME" before any work
empty() { # the option's name as the message gives it, then the command
	name=$1; shift
	expect_exit 2 "$@"
	expect_err "empty $name"
}
mkdir e && cd e
empty --log-dir "$V" --challenger rulebot --opponent rulebot --seeds 1 --log-dir ''
[ -z "$(ls / | grep '^seed-')" ] || fail "hydra-eval --log-dir '' wrote into /"
empty --table-out "$V" --challenger rulebot --opponent rulebot --seeds 1 --table-out ''
empty --model "$V" --model '' --data ../g.bin
empty "--data path" "$V" --model "../$P" --data ''
empty --output "$BIN/hydra-tune" --seeds 3 --sweeps 0 -o ''
empty --reader "$BIN/hydra-tune" --seeds 3 --sweeps 0 --reader '' -o x
empty --output "$S" --games 1 -o ''
empty --log-dir "$S" --games 1 --no-samples --log-dir ''
empty --reward-state "$S" --games 1 --reward-state '' -o x
empty --start "$S" --games 1 --start '' -o x
empty --output "$BIN/hydra-encode" -o '' ../g.bin
empty --val-output "$BIN/hydra-encode" --val-output '' ../g.bin
empty "input path" "$BIN/hydra-encode" -o x ''
empty --output "$BIN/hydra-augment" -o '' ../g.bin
empty "input path" "$BIN/hydra-augment" -o x ''
empty --output "$X" -o '' "../$P"
empty "path" "$X" -o x ''
empty "path" "$X" --reference -o x "../$P" ''
empty --output "$BIN/mjai-parse" -o '' "../$LOG"
empty "input path" "$BIN/mjai-parse" ''
empty --output "$BIN/hydra-review" --model rulebot -o '' "../$LOG"
empty "LOG path" "$BIN/hydra-review" --model rulebot ''
empty --out "$F" --arch tiny --steps 1 -o '' ../g.bin
empty "input path" "$F" --arch tiny --steps 1 -o r ''
empty "--val path" "$F" --arch tiny --steps 1 -o r --val '' ../g.bin
empty --init "$F" --arch tiny --steps 1 -o r --init '' ../g.bin
empty --resume "$F" --resume ''
empty --anchor "$F" --mode ppo --steps 1 -o r --anchor '' ../g.bin
empty --out "$F" --mode grp -o '' ../L
empty "input path" "$F" --mode grp -o gr ''
[ -z "$(ls -A)" ] || fail "left after usage errors: $(ls -A)"
cd ..

# ---- 2. hydra-export --reference reads to the end
# the first 100 samples of g.bin, then its producer's ABORT record (far
# past the first batch that --limit 1 needs)
python3 - g.bin ab.bin <<'PY'
import sys
RS = 5888
b = open(sys.argv[1], 'rb').read()
assert b[32 + 99 * RS] == 1, 'fewer than 100 samples'
reason = b'hydra-sp: made to fail'
abort = bytes([4]) + bytes(7) + b'HYABORT\0' + len(reason).to_bytes(4, 'little') + reason
open(sys.argv[2], 'wb').write(b[:32 + 100 * RS] + abort + bytes(RS - len(abort)))
PY
expect_exit 1 "$X" --reference --limit 1 -o ref.jsonl "$P" ab.bin
expect_err "ab.bin:101: input stream was aborted by its producer: hydra-sp: made to fail"
[ ! -e ref.jsonl ] || fail "outputs of an aborted stream"
# a damaged record (the 20th) after the first ten: the frame's CRC fails
cp g.bin bad.bin
printf '\377' | dd of=bad.bin bs=1 seek=$((32 + 19 * 5888 + 100)) conv=notrunc 2>/dev/null
expect_exit 1 "$X" --reference --limit 10 -o ref.jsonl "$P" bad.bin
expect_err "bad.bin.*(CRC|checksum)"
[ ! -e ref.jsonl ] || fail "outputs of a stream whose checksum fails"
expect_exit 0 "$X" --reference --limit 10 -o ref.jsonl "$P" g.bin
[ "$(wc -l < ref.jsonl)" -eq 10 ] || fail "--limit 10: $(wc -l < ref.jsonl) lines"
# the same class: hydra-review reads past the game it reviews to the end of
# an event stream whose producer failed on a later log
echo '{"type":"start_game"}{bad' > bad.json
"$BIN/mjai-parse" "$LOG" bad.json > ev.bin 2>/dev/null && fail "mjai-parse of a bad log: exit 0"
expect_exit 1 "$BIN/hydra-review" --model rulebot --game 1 -o rv1.html ev.bin
expect_err "ev.bin:[0-9]+: input stream was aborted by its producer"
[ ! -e rv1.html ] || fail "a review of a game from an aborted stream"
cp g.bin v1.bin
printf '\001' | dd of=v1.bin bs=1 seek=17 conv=notrunc 2>/dev/null # version 1
expect_exit 3 "$X" --reference -o ref1.jsonl "$P" v1.bin
expect_err "samples of observation version 1, the model 4"

# ---- 3. the tuner's reader, opened once
FROZEN=$("$BIN/hydra-tune" -o - --sweeps 0 --seeds 3 -q | awk -F= '!/^#/ { print $1 }' |
	grep -v -e '^push_wall$' -e '^score_danger$' | paste -sd, -)
tune() { "$BIN/hydra-tune" -v --reader lnk.h5 --seeds 4 --seed 5 --sweeps 1 --step 0.5 \
	--margin 0 --freeze "$FROZEN" -j 2 -o "$1"; }
ln -s "$R" lnk.h5
tune a.params 2> a.err || { cat a.err >&2; fail "hydra-tune --reader"; }
[ "$(grep -c 'rank' a.err)" -ge 3 ] || { cat a.err >&2; fail "fewer than 3 evaluations"; }
tune b.params 2> b.err &
pid=$!
i=0
until grep -q 'rank' b.err 2>/dev/null || [ $i -ge 600 ]; do sleep 0.1; i=$((i + 1)); done
rm lnk.h5 # the reader goes after the first evaluation
wait "$pid" || { cat b.err >&2; fail "hydra-tune failed when its reader's link went mid-search"; }
same_file a.params b.params

# ---- 5. a model's kind against its role
expect_exit 3 "$F" --mode ppo --init "$P" --anchor "$R" --steps 1 -b 32 -q -o k1 g.bin
expect_err "'$R' is a wait reader \(hydra-fit --mode reader\), and --anchor needs a policy network"
[ ! -e k1 ] || fail "a refused anchor left a run directory"
expect_exit 3 "$V" --challenger "$R" --opponent rulebot --seeds 1
expect_err "is a wait reader .*, and a player needs a policy network"
expect_exit 3 "$V" --challenger "rulebot:reader=$P" --opponent rulebot --seeds 1
expect_err "'$P' is a policy network, and reader= needs a wait reader"
expect_exit 3 "$BIN/hydra-tune" --reader "$P" --seeds 3 -o k.params
expect_err "is a policy network, and reader= needs a wait reader"
[ ! -e k.params ] || fail "hydra-tune wrote parameters for a policy as its reader"

# ---- 6. --mode reader on samples without opponent labels
python3 - g.bin nolab.bin <<'EOF'
import sys, zlib
b = bytearray(open(sys.argv[1], 'rb').read())
o = 0
while o < len(b):
    o += 32  # a frame's header
    crc = 0
    while True:
        t = b[o]
        if t == 1:  # SAMPLE: flags bit 0 (opponent labels valid) cleared
            b[o + 8] &= 0xfe
            crc = zlib.crc32(bytes(b[o:o + 5888]), crc)
        elif t == 3:  # TRAILER: the frame's CRC again
            b[o + 24:o + 28] = crc.to_bytes(4, 'little')
            o += 5888
            break
        o += 5888
open(sys.argv[2], 'wb').write(b)
EOF
"$BIN/hydra-augment" --perms 0 -o /dev/null nolab.bin || fail "the relabelled stream is not valid"
expect_exit 1 "$F" --mode reader --arch tiny --steps 2 -b 32 -q -o nr nolab.bin
expect_err "nolab.bin: no sample knows the opponents' hands"
[ ! -e nr ] || fail "a refused reader run left a directory"

# ---- 7. anchor_kl in every metrics line (32 samples, minibatches of 8:
# 12 steps a batch, so --steps 5 ends with a pass that runs none; no KL
# stop, which would end the passes first)
expect_exit 0 "$F" --mode ppo --init "$P" --anchor "$P" --steps 5 -b 32 --kl-stop 0 -q -o ak g.bin
n=$(grep -c '"anchor_kl":null' ak/metrics.jsonl)
[ "$n" -eq 0 ] || { cat ak/metrics.jsonl >&2; fail "anchor_kl null in $n metrics lines"; }
grep -q '"anchor_kl":[0-9]' ak/metrics.jsonl || fail "no anchor_kl"

# ---- 8. the unknown option of a cluster
expect_exit 2 "$BIN/hydra-hand" --json -xR 123m456p789s11z
expect_err "unknown option '-x'"
echo '-xR 123m456p789s11z' > q.txt
expect_exit 1 "$BIN/hydra-hand" --batch < q.txt
expect_err "unknown option '-x'"

# ---- 9. reader= and read= given twice or in the wrong place
spec() { # message, spec
	expect_exit 2 "$V" --challenger "$2" --opponent rulebot --seeds 1
	expect_err "$1"
}
spec "rulebot: reader= given twice" "rulebot:reader=$R,reader=$R"
spec "rulebot: read= given twice" "rulebot:reader=$R,read=all,read=danger"
spec "rulebot: empty reader=" "rulebot:reader="
spec "wait oracle: empty reader=" "rulebot-waits:0,reader="
spec "wait oracle: reader= given twice" "rulebot-waits:0,reader=$R,reader=$R"
spec "wait oracle: reader= comes before the rulebot parameters" \
	"rulebot-waits:0,push_wall=10,reader=$R"
spec "wait oracle: read= is rulebot's" "rulebot-waits:0,reader=$R,read=all"

# ---- 10. what is not a checkpoint
expect_exit 3 "$F" --init g.bin --arch tiny --steps 1 -q -o n1 g.bin
expect_err "'g.bin': not a checkpoint \(not an HDF5 file: a sample stream\)"
mkdir adir
expect_exit 3 "$F" --init adir --steps 1 -q -o n1 g.bin
expect_err "'adir': a directory, not a checkpoint"
mkfifo afifo
expect_exit 3 "$V" --challenger afifo --opponent rulebot --seeds 1
expect_err "'afifo': a FIFO, not a checkpoint"
head -c 3000 "$P" > cut.h5
expect_exit 1 "$V" --challenger cut.h5 --opponent rulebot --seeds 1
expect_err "'cut.h5': not a readable checkpoint \(a truncated or corrupt HDF5 file, 3000 bytes\)"
[ ! -e n1 ] || fail "a refused --init left a run directory"

# ---- 11. messages
"$BIN/hydra-augment" --perms 0 -o sh.h5 g.bin || fail "a shard"
head -c 30000 sh.h5 > cutsh.h5
expect_exit 1 "$BIN/hydra-augment" --perms 0 -o /dev/null cutsh.h5
expect_err "cutsh.h5: not a readable shard \(a truncated or corrupt HDF5 file, 30000 bytes\)"
grep -q 'H5Fopen\|\.c:[0-9]' "$T/err" && fail "the message shows source code: $(cat "$T/err")"
expect_exit 1 "$F" --arch tiny --steps 1 -o m1 missing.bin
expect_err "missing.bin"
grep -q "not recorded" "$T/err" && fail "a notice about a missing input: $(cat "$T/err")"
if [ -w /dev/full ]; then
	for p in hydra-fit hydra-sp hydra-eval mjai-parse; do
		"$BIN/$p" --help > /dev/full 2> "$T/err" && fail "$p --help > /dev/full: exit 0"
		expect_err "^$p: standard output: write error: No space left on device$"
	done
fi
expect_exit 1 "$BIN/hydra-review" --model rulebot --seat 4 -o rv.html "$LOG"
expect_err "--seat '4': a seat is 0-3"
[ ! -e rv.html ] || fail "a page for a seat that is not there"

# ---- 4. bench/learn/reader.sh with a scoring arena that fails: status 1, no row
mkdir fakebin
for p in "$BIN"/*; do ln -s "$p" fakebin/; done
rm fakebin/hydra-eval
printf '#!/bin/sh\necho "hydra-eval: made to fail" >&2\nexit 1\n' > fakebin/hydra-eval
chmod +x fakebin/hydra-eval
BIN="$T/fakebin" GAMES=2 VAL_GAMES=1 ARCH=tiny SCORE_SEEDS=2 LOGS=/nonexistent OUT=rb J=2 \
	sh "$TOP/bench/learn/reader.sh" > rb.out 2> rb.err && fail "bench/learn/reader.sh: exit 0 after a failed arena"
grep -q "made to fail" rb.err || { cat rb.err >&2; fail "the arena's message is not shown"; }
[ ! -s rb/curve.tsv ] || [ "$(wc -l < rb/curve.tsv)" -le 1 ] || fail "a row appended: $(cat rb/curve.tsv)"

# ---- 12. bench/play/selfplay.sh's model checkpoints play
SB="${HY_BUILD:-$TOP/build}/bench/selfplay_bench"
[ -x "$SB" ] || fail "$SB not built (make test-run builds the benchmarks)"
"$SB" ckpt tiny sb.h5 || fail "selfplay_bench ckpt"
expect_exit 0 "$S" --games 1 --policy sb.h5 -q --no-samples
"$SB" run sb.h5 2 4 1 > sbr.out 2>&1 || { cat sbr.out >&2; fail "selfplay_bench run on its own checkpoint"; }
