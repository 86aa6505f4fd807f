#!/bin/sh
# hydra-bot refuses events that cannot happen in its seat's game, with exit
# status 1 and the input line: its own hora on a hand that does not win, a
# hora whose target did not just give the tile, a second win after a tsumo
# or a third ron, reach_accepted without a reach (or twice), a ryukyoku
# where nothing ends the kyoku, end_kyoku without a result, a dora without
# a kan, a start_kyoku inside a kyoku, events after end_game, a draw out of
# turn, a discard of a tile the seat does not hold, a call of a tile not
# just discarded. The legal versions of the same lines (own tsumo and ron,
# another seat's ron and a double ron on the bot's discard, the bot's reach
# accepted) pass. A line over 1 MiB fails at once without being read whole;
# a line of exactly 1 MiB is read. Hand-written lines only (no shared data).
. tests/shell/lib.sh
H="$BIN/hydra-bot"
[ -x "$H" ] || skip "hydra-bot not built (skipped)"

# seat 0 is the East-1 dealer; HAND does not win on anything it can draw
# here, TENPAI waits on N (EEE: a yaku)
HAND='"1m","2m","3m","5p","6p","7p","2s","3s","4s","E","E","W","N"'
TENPAI='"1m","2m","3m","5p","6p","7p","2s","3s","4s","E","E","E","N"'
Q='"?","?","?","?","?","?","?","?","?","?","?","?","?"'
kyoku() { # the seat's 13 tiles
	printf '{"type":"start_kyoku","bakaze":"E","dora_marker":"1p","kyoku":1,"honba":0,"kyotaku":0,"oya":0,"scores":[25000,25000,25000,25000],"tehais":[[%s],[%s],[%s],[%s]]}' \
		"$1" "$Q" "$Q" "$Q"
}
# line 1: the deal and the dealer's draw (9m, or $DRAW)
first() {
	printf '[{"type":"start_game","id":0},%s,{"type":"tsumo","actor":0,"pai":"%s"}]\n' \
		"$(kyoku "$1")" "${DRAW:-9m}"
}
D9='{"type":"dahai","actor":0,"pai":"9m","tsumogiri":true}'
NORTH='{"type":"tsumo","actor":1,"pai":"?"},{"type":"dahai","actor":1,"pai":"N","tsumogiri":false}'

ok() { # name, hand, lines after the first
	n=$1 h=$2; shift 2
	{ first "$h"; for l in "$@"; do printf '%s\n' "$l"; done; } > "$T/$n.in"
	expect_exit 0 "$H" baseline < "$T/$n.in"
	[ "$(wc -l < "$T/out")" -eq $(($# + 1)) ] || fail "$n: one answer per line"
}
bad() { # name, hand, regex of the message, lines after the first (the last fails)
	n=$1 h=$2 why=$3; shift 3
	{ first "$h"; for l in "$@"; do printf '%s\n' "$l"; done; } > "$T/$n.in"
	expect_exit 1 "$H" baseline < "$T/$n.in"
	expect_err "^hydra-bot: line $(($# + 1)): .*$why"
	[ "$(wc -l < "$T/out")" -eq "$#" ] || fail "$n: answers before the bad line"
}

# the bot's own hora: on a hand that wins (tsumo, ron), not on one that does not
DRAW=N ok own-tsumo "$TENPAI" '[{"type":"hora","actor":0,"target":0,"pai":"N"},{"type":"end_kyoku"}]'
ok own-ron "$TENPAI" "[$D9]" "[$NORTH]" \
	'[{"type":"hora","actor":0,"target":1,"pai":"N"},{"type":"end_kyoku"}]'
bad own-tsumo-nowin "$HAND" 'event 1 \(hora\):.*does not win' \
	'[{"type":"hora","actor":0,"target":0,"pai":"9m"}]'
bad own-ron-nowin "$HAND" 'event 1 \(hora\):.*does not win' \
	"[$D9]" "[$NORTH]" '[{"type":"hora","actor":0,"target":1,"pai":"N"}]'
bad own-tsumo-tile "$TENPAI" 'not the tile the seat drew' \
	'[{"type":"hora","actor":0,"target":0,"pai":"N"}]'

# another seat's hora: on the tile its target just discarded, once per seat
ok their-ron "$HAND" "[$D9,{\"type\":\"hora\",\"actor\":2,\"target\":0,\"pai\":\"9m\"},{\"type\":\"end_kyoku\"}]"
ok double-ron "$HAND" "[$D9,{\"type\":\"hora\",\"actor\":1,\"target\":0,\"pai\":\"9m\"},{\"type\":\"hora\",\"actor\":2,\"target\":0,\"pai\":\"9m\"},{\"type\":\"end_kyoku\"}]"
bad target "$HAND" 'event 2 \(hora\):.*target did not just discard' \
	"[$D9,{\"type\":\"hora\",\"actor\":2,\"target\":3,\"pai\":\"9m\"}]"
bad target-old "$HAND" 'event 3 \(hora\):.*target did not just discard' \
	"[$D9,{\"type\":\"tsumo\",\"actor\":1,\"pai\":\"?\"},{\"type\":\"hora\",\"actor\":2,\"target\":0,\"pai\":\"9m\"}]"
bad ron-tile "$HAND" 'event 2 \(hora\):.*not the tile the target just gave' \
	"[$D9,{\"type\":\"hora\",\"actor\":2,\"target\":0,\"pai\":\"1m\"}]"
bad their-tsumo "$HAND" 'event 1 \(hora\):.*not a draw of this seat' \
	'[{"type":"hora","actor":2,"target":2,"pai":"9m"}]'
bad third-ron "$HAND" 'event 4 \(hora\):.*second win' \
	"[$D9,{\"type\":\"hora\",\"actor\":1,\"target\":0,\"pai\":\"9m\"},{\"type\":\"hora\",\"actor\":2,\"target\":0,\"pai\":\"9m\"},{\"type\":\"hora\",\"actor\":3,\"target\":0,\"pai\":\"9m\"}]"
DRAW=N bad after-tsumo "$TENPAI" 'event 2 \(hora\):.*second win' \
	'[{"type":"hora","actor":0,"target":0,"pai":"N"},{"type":"hora","actor":2,"target":0,"pai":"N"}]'

# reach_accepted: only after that seat's reach and its discard, once
ok reach "$TENPAI" '[{"type":"reach","actor":0}]' \
	"[$D9,{\"type\":\"reach_accepted\",\"actor\":0}]"
bad accept-noreach "$HAND" 'event 2 \(reach_accepted\):.*no reach of this seat' \
	"[$D9,{\"type\":\"reach_accepted\",\"actor\":1}]"
bad accept-twice "$TENPAI" 'event 3 \(reach_accepted\):.*no reach of this seat' \
	'[{"type":"reach","actor":0}]' \
	"[$D9,{\"type\":\"reach_accepted\",\"actor\":0},{\"type\":\"reach_accepted\",\"actor\":0}]"
bad accept-early "$TENPAI" 'event 2 \(reach_accepted\):.*discard has not been made' \
	'[{"type":"reach","actor":0},{"type":"reach_accepted","actor":0}]'

# the kyoku's end: a result first; ryukyoku only where the kyoku can end
bad end-noresult "$HAND" 'event 2 \(end_kyoku\):.*no result' "[$D9,{\"type\":\"end_kyoku\"}]"
bad ryukyoku "$HAND" 'event 1 \(ryukyoku\):.*no nine-terminal draw' '[{"type":"ryukyoku"}]'
bad hora-after-draw "$HAND" 'event 3 \(hora\):.*ended in a ryukyoku' \
	'[{"type":"dahai","actor":0,"pai":"9m","tsumogiri":true},{"type":"ryukyoku"},{"type":"hora","actor":1,"target":0,"pai":"9m"}]'
bad restart "$HAND" 'event 1 \(start_kyoku\):.*no result' "[$(kyoku "$HAND")]"
bad after-end "$HAND" 'event 2 \(start_kyoku\):.*game has ended' \
	"[{\"type\":\"end_game\"},$(kyoku "$HAND")]"
bad dora "$HAND" 'event 1 \(dora\):.*no kan' '[{"type":"dora","dora_marker":"3p"}]'

# draws, discards and calls the engine does not allow
bad draw-turn "$HAND" 'event 2 \(tsumo\):.*not this seat.s draw' \
	"[$D9,{\"type\":\"tsumo\",\"actor\":2,\"pai\":\"?\"}]"
bad not-held "$HAND" 'event 1 \(dahai\):.*not among the seat.s legal actions' \
	'[{"type":"dahai","actor":0,"pai":"9p","tsumogiri":false}]'
bad call-tile "$HAND" 'event 2 \(pon\):.*not the tile just discarded' \
	"[$D9,{\"type\":\"pon\",\"actor\":2,\"target\":0,\"pai\":\"1m\",\"consumed\":[\"1m\",\"1m\"]}]"

# one line is at most 1 MiB (1048576 bytes before its newline)
pad() { head -c "$1" /dev/zero | tr '\0' ' '; }
{ printf '[{"type":"start_game","id":0}]'; pad $((1048576 - 30)); echo; } > "$T/cap"
[ "$(wc -c < "$T/cap")" -eq 1048577 ] || fail "the 1 MiB line is not 1 MiB"
expect_exit 0 "$H" baseline < "$T/cap"
{ echo '[{"type":"start_game","id":0}]'; printf '[{"type":"start_game","id":0}]'
	pad $((1048576 - 29)); echo; } > "$T/cap1"
expect_exit 1 "$H" baseline < "$T/cap1"
expect_err "^hydra-bot: line 2: longer than 1048576 bytes"
# a 4 MiB line: the bot stops reading soon after the cap (the rest of the
# file is left to the next reader of the same descriptor)
pad 4194304 > "$T/long"
{ "$H" baseline > "$T/out" 2> "$T/err"; echo $? > "$T/rc"; wc -c > "$T/rest"; } < "$T/long"
[ "$(cat "$T/rc")" -eq 1 ] || fail "a 4 MiB line exited $(cat "$T/rc")"
expect_err "^hydra-bot: line 1: longer than 1048576 bytes"
[ "$(cat "$T/rest")" -ge $((4194304 - 2097152)) ] ||
	fail "the bot read $((4194304 - $(cat "$T/rest"))) bytes of a 4 MiB line"
# an endless line ends too (no memory grows with it)
yes x | tr -d '\n' | "$H" baseline > "$T/out" 2> "$T/err" && fail "an endless line exited 0"
expect_err "^hydra-bot: line 1: longer than 1048576 bytes"
exit 0
