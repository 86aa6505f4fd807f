#!/bin/sh
# hydra-hand: the man page EXAMPLES give exactly the output shown; --help and
# the man page agree; exit codes for bad input; the second winner of a double
# ron; --json and --batch write valid JSON, one object per line.
. "${HY_TOP:-.}/tests/shell/lib.sh"
HH="$BIN/hydra-hand"
MAN="$TOP/man/hydra-hand.1"
[ -x "$HH" ] || fail "$HH not built"

# ---------------------------------------------------------------- examples
# Commands are the '$ ' lines of the .EX blocks under EXAMPLES; the lines up
# to the next command or .EE are the expected output (roff escapes \- and \e
# undone).
sed -n '/^\.SH EXAMPLES/,/^\.SH SEE ALSO/p' "$MAN" | awk -v dir="$T" '
	/^\.EX/ { inex = 1; next }
	/^\.EE/ { inex = 0; next }
	!inex { next }
	{ gsub(/\\-/, "-"); gsub(/\\e/, "\\") }
	/^\$ / { n++; print substr($0, 3) > (dir "/cmd." n); next }
	{ print > (dir "/want." n) }
	END { print n > (dir "/count") }'
count=$(cat "$T/count")
[ "$count" -ge 5 ] || fail "only ${count:-0} examples found in $MAN"
i=1
while [ "$i" -le "$count" ]; do
	[ -f "$T/want.$i" ] || : > "$T/want.$i"
	PATH="$BIN:$PATH" sh "$T/cmd.$i" > "$T/got.$i" 2> "$T/err.$i" ||
		{ cat "$T/err.$i" >&2; fail "example $i exited non-zero: $(cat "$T/cmd.$i")"; }
	if ! cmp -s "$T/want.$i" "$T/got.$i"; then
		diff "$T/want.$i" "$T/got.$i" >&2
		fail "example $i differs: $(cat "$T/cmd.$i")"
	fi
	i=$((i + 1))
done

# ---------------------------------------------------------------- help and man
expect_exit 0 "$HH" --help
grep -q '^usage: hydra-hand \[options\] HAND \[TILE\]$' "$T/out" || fail "--help: no usage line"
# The SYNOPSIS, fonts and escapes removed, must hold both usage forms.
syn=$(sed -n '/^\.SH SYNOPSIS/,/^\.SH DESCRIPTION/p' "$MAN" | sed '1d;$d;/^\.br/d' |
	sed 's/^\.B //; s/\\f[BIR]//g; s/\\-/-/g' | tr '\n' ' ' | tr -s ' ')
for form in 'hydra-hand [options] HAND [TILE]' 'hydra-hand --batch [options] < QUERIES'; do
	case "$syn" in *"$form"*) ;; *) fail "man SYNOPSIS lacks '$form' ($syn)";; esac
	grep -qF -- "$form" "$T/out" || fail "--help lacks '$form'"
done
# Every long option is in both, and nothing else.
grep -o -- '--[a-z][a-z-]*' "$T/out" | sort -u > "$T/help.opts"
sed -n '/^\.SH OPTIONS/,/^\.SH EXIT/p' "$MAN" | sed 's/\\-/-/g' |
	grep -o -- '--[a-z][a-z-]*' | sort -u > "$T/man.opts"
cmp -s "$T/help.opts" "$T/man.opts" || { diff "$T/help.opts" "$T/man.opts" >&2;
	fail "--help and the man page OPTIONS list different options"; }
expect_exit 0 "$HH" -V
grep -q '^hydra-hand (hydra-c) [0-9]' "$T/out" || fail "-V: no version"

# ---------------------------------------------------------------- exit codes
expect_exit 2 "$HH"
expect_err 'no hand given'
expect_exit 2 "$HH" --bogus 123m
expect_err "unknown option '--bogus'"
expect_exit 2 "$HH" --honba abc 123m456p789s1122z
expect_err "bad --honba 'abc': 0 to 99"
expect_exit 2 "$HH" --honba 100 123m456p789s1122z
expect_exit 2 "$HH" --seat X 123m456p789s1122z
expect_err "'X' is not a seat"
expect_exit 2 "$HH" 123m456p789s1122z 1z
expect_err 'needs --tsumo or --ron'
expect_exit 2 "$HH" --dora
expect_err 'needs an argument'
expect_exit 1 "$HH" 123x
expect_err "bad hand '123x'"
expect_exit 1 "$HH" 11111m456p789s11z
expect_err '5 tiles of 1m'
expect_exit 1 "$HH" 123m456p789s11z --ron 4z
expect_err 'winning hand needs'
expect_exit 1 "$HH" 123m456p789s11z222z --ron 5z
expect_err 'not in the concealed hand'
expect_exit 1 "$HH" --meld chi:135m 123m456p78s
expect_err "meld 'chi:135m'"
expect_exit 1 "$HH" 123m456p789s1122z --ron 2z --haitei
expect_err 'haitei'
expect_exit 1 "$HH" 123m456p78s11z --meld pon:222z --riichi --ron 9s
expect_err 'riichi with an open hand'
# not winning: an answer, exit 0
expect_exit 0 "$HH" 123m456p789s1123z --ron 4z
grep -q 'not a complete hand' "$T/out" || fail "incomplete hand not reported"
expect_exit 0 "$HH" 123m456p789s99s --meld chi:678m --ron 9s
grep -q 'no yaku' "$T/out" || fail "no-yaku hand not reported"

# ---------------------------------------------------------------- double ron
# Tenhou pays honba and sticks of a double ron to the first winner in turn
# order after the discarder only. The real double ron of mjx's double-ron.mjlog
# (East 4, 0 honba, 2 sticks; East discards 1m): South is paid 7700 + 2000
# (sc +97), North, the second winner, 8000 alone (sc +80).
expect_exit 0 "$HH" 2344567m234p567s --ron 1m --from E --seat S --riichi --dora 6s --ura 1p --sticks 2
grep -q '^deltas: E -7700, S +9700, W +0, N +0$' "$T/out" || fail "double ron: first winner"
expect_exit 0 "$HH" 12233m77p340s789s --ron 1m --from E --seat N --riichi --dora 6s --ura 1p --sticks 2 --double-ron
grep -q '^deltas: E -8000, S +0, W +0, N +8000$' "$T/out" || fail "double ron: second winner"
# the same hand as a single winner takes the sticks
expect_exit 0 "$HH" 12233m77p340s789s --ron 1m --from E --seat N --riichi --dora 6s --ura 1p --sticks 2
grep -q '^deltas: E -8000, S +0, W +0, N +10000$' "$T/out" || fail "single ron with sticks"
# --double-ron is --honba 0 --sticks 0, whatever they say
expect_exit 0 "$HH" --json 234m345p22234588s --ron 8s --from E --seat W --honba 5 --sticks 3 --double-ron
mv "$T/out" "$T/dr.json"
expect_exit 0 "$HH" --json 234m345p22234588s --ron 8s --from E --seat W
same_file "$T/dr.json" "$T/out"
grep -q '"deltas":\[-1300,0,1300,0\]' "$T/out" || fail "double ron: JSON deltas"
expect_exit 2 "$HH" 234m345p22234588s --tsumo 8s --double-ron
expect_err '--double-ron needs --ron'
expect_exit 2 "$HH" 234m345p22234588s --double-ron
expect_err '--double-ron needs --ron'
# -j is --threads in the programs that have threads: not --json here
expect_exit 2 "$HH" -j 123m456p789s1122z
expect_err "unknown option '-j'"

# ---------------------------------------------------------------- JSON
need_cmd python3
check_json() { # file, expected line count
	python3 -c '
import json, sys
n = 0
for line in open(sys.argv[1]):
    json.loads(line); n += 1
sys.exit(0 if n == int(sys.argv[2]) else 3)' "$1" "$2" || fail "$1: not $2 valid JSON lines"
}
expect_exit 0 "$HH" --json 123m456p789s1122z
check_json "$T/out" 1
expect_exit 0 "$HH" --json 22334455m66778p --tsumo 8p --riichi
check_json "$T/out" 1
grep -q '"points":18000' "$T/out" || fail "--json: wrong points (haneman 18000)"
cat > "$T/batch" <<'EOF'
# analysis, then scoring
123m456p789s1122z
234m567p55m345678s --tsumo --seat S

19m19p19s1234567z --ron 1m --seat S
123x
11p -m pon:555z- -m pon:666z= -m pon:777z+ -m chi:123m --tsumo --seat S --pao E
EOF
"$HH" --batch --dora 1m < "$T/batch" > "$T/out" 2> "$T/err"
rc=$?
[ $rc -eq 1 ] || fail "--batch with a bad line exited $rc, expected 1"
expect_err '<stdin>:6: bad hand'
check_json "$T/out" 5
grep -q '"error":.*"line":6' "$T/out" || fail "--batch: no error object for line 6"
grep -q '"tsumo_dealer":2600.*"line":3' "$T/out" || fail "--batch: line 3 (pinfu tsumo, dora 2m)"
grep -q '"deltas":\[-32000,32000,0,0\],"line":7' "$T/out" || fail "--batch: pao line 7"
printf '123m456p789s1122z\n' | "$HH" --batch > "$T/out" || fail "--batch: good input failed"
check_json "$T/out" 1
# a chi of tiles far apart is refused (found by fuzzing: an undefined shift)
expect_exit 1 "$BIN/hydra-hand" -m chi:47z1m 123m456p789s11z
expect_err "chi needs three consecutive tiles"
exit 0
