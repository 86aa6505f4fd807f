#!/bin/sh
# hydra-fit's provenance (train/prov.h) and its CPU default architecture: a checkpoint records the command
# line, the inputs (absolute path, size, time) and the device; --resume
# without inputs reads the recorded ones and gives the same losses as a
# resume that names them; a changed input is named; a run from standard
# input resumes from standard input. On games the project makes.
. tests/shell/lib.sh
need_cmd h5dump
gen_logs 4 3
cd "$T" || exit 1
"$BIN/mjai-parse" gen/mjai | "$BIN/hydra-encode" -o s.h5 2>enc.err || { cat enc.err; fail "encode"; }
"$BIN/mjai-parse" gen/mjai | "$BIN/hydra-encode" -o s.bin 2>enc.err || { cat enc.err; fail "encode"; }
F="$BIN/hydra-fit -q --arch tiny --threads 1 --batch 32"
$F --steps 4 --save-every 2 --out run s.h5 2>fit.err || { cat fit.err; fail "fit"; }
attr() { h5dump -a "$2" "$1" | sed -n 's/^ *(0): "\(.*\)"$/\1/p'; }
ck=run/ckpt-00000002.h5
case $(attr $ck train_command) in
*"hydra-fit -q --arch tiny"*"--out run"*s.h5) ;;
*) fail "train_command: $(attr $ck train_command)" ;;
esac
sz=$(wc -c < s.h5)
TAB=$(printf '\t')
h5dump -a train_inputs $ck | grep -q "$T/s.h5$TAB$sz$TAB[0-9]" ||
	{ h5dump -a train_inputs $ck; fail "train_inputs does not name $T/s.h5 with its size"; }
[ "$(attr $ck train_device)" = cpu ] || fail "train_device"
# the CPU default architecture is small, said once (issue 22 item 3)
$BIN/hydra-fit -q --device cpu --steps 1 --batch 16 --out dflt s.h5 2>dflt.err ||
	{ cat dflt.err; fail "fit with the default architecture"; }
[ "$(grep -c 'architecture small (6 blocks x 64 channels), the default on the CPU' dflt.err)" = 1 ] ||
	{ cat dflt.err; fail "the CPU default is not said once"; }
h5dump -a channels dflt/latest | grep -q '(0): 64$' || fail "the CPU default is not 64 channels"
# resume from step 2 without inputs = resume naming them (same losses)
cp -R run named && rm -f named/ckpt-00000004.h5 && ln -sf ckpt-00000002.h5 named/latest
cp -R named bare
$F --resume named --steps 4 s.h5 2>r1.err || { cat r1.err; fail "resume naming the input"; }
$BIN/hydra-fit --resume bare --steps 4 2>r2.err || { cat r2.err; fail "resume without inputs"; }
grep -q "inputs from the checkpoint: 1 file$" r2.err || { cat r2.err; fail "no notice of the recorded inputs"; }
loss() { grep '"step":4' "$1/metrics.jsonl" | sed 's/"samples_per_s":[^,}]*//; s/"elapsed_s":[^,}]*//'; }
[ -n "$(loss named)" ] && [ "$(loss named)" = "$(loss bare)" ] ||
	fail "the resume without inputs trained on other data: $(loss named) / $(loss bare)"
# typed at a terminal (script(1) gives it one), a resume without inputs
# reads the recorded files rather than refusing the terminal
if command -v script > /dev/null 2>&1; then
	cp -R run tty && rm -f tty/ckpt-00000004.h5 && ln -sf ckpt-00000002.h5 tty/latest
	script -qec "$BIN/hydra-fit -q --resume tty --steps 4" /dev/null > tty.out 2>&1 ||
		{ cat tty.out; fail "resume without inputs at a terminal"; }
	[ -f tty/ckpt-00000004.h5 ] || { cat tty.out; fail "resume at a terminal trained nothing"; }
fi
# a changed input is named
touch -d '2001-01-01' s.h5
$BIN/hydra-fit --resume bare --steps 6 2>r3.err || { cat r3.err; fail "resume after a change"; }
grep -q "changed since: $T/s.h5 (modified)" r3.err || { cat r3.err; fail "the changed input is not named"; }
# a moved input: a clear error naming it
mv s.h5 gone.h5
$BIN/hydra-fit --resume bare --steps 8 2>r4.err && fail "resume with a missing input succeeded"
grep -q "s.h5" r4.err || { cat r4.err; fail "the missing input is not named"; }
# standard input recorded as "-", read again on resume
$F --steps 2 --out srun < s.bin 2>fit.err || { cat fit.err; fail "fit from stdin"; }
h5dump -a train_inputs srun/latest | grep -q "\"-$TAB-$TAB-" || fail "standard input not recorded as -"
$BIN/hydra-fit --resume srun --steps 3 < s.bin 2>r5.err || { cat r5.err; fail "resume from stdin"; }
exit 0
