#!/bin/sh
# The review page in a real browser (headless Chromium, Debian's chromium,
# installed by make deps; skipped without it): after its script ran, the
# DOM holds one decision per decision of --json and shows the summary
# figures of --json; the keys move between decisions and kyoku as the man
# page says; at a phone's width nothing is wider than the screen; a
# screenshot is not blank (many colours, no colour over 95% of it). The page
# is a self-play game reviewed with no --model and no --reader, so by the
# shipped policy and wait reader (models/: what a fresh clone has); it draws
# one danger cell per tile and threatening opponent, holding --json's
# percentage; and on a
# real Tenhou game of the shared logs, converted by mjai-parse --format json
# and reviewed with no --model (the shipped policy), every decision against
# a riichi shows the danger.
# Tiers: the fast tier starts the browser once on the self-play page (and
# once more on the real game when the shared logs are there), at a phone's
# width on the page with the key script, and checks the DOM, the keys and
# the width on
# what it drew; the full tier also draws the page as it is (the DOM checks
# on it) and takes the screenshot.
. tests/shell/lib.sh
need_cmd jq
CHROME=$(command -v chromium || command -v chromium-browser || command -v google-chrome)
[ -n "$CHROME" ] || skip "chromium not installed: the browser check of the review page is skipped (make deps installs it)"
[ -x /usr/bin/python3 ] || skip "/usr/bin/python3 not installed (skipped)"
R="$BIN/hydra-review"

expect_exit 0 "$BIN/hydra-sp" --games 1 --seed 5 --policy rulebot --log-dir "$T/logs" --no-samples
G="$T/logs/game-00000000.json.gz"
# no --model, no --reader: the shipped policy and wait reader (models/), as a
# fresh clone with no trained model and no shared data reviews
[ -f "$TOP/models/policy.h5" ] && [ -f "$TOP/models/reader.h5" ] ||
	fail "no shipped models in $TOP/models (models/README.md)"
expect_exit 0 "$R" --json "$G"
grep -q "no reviewer named: the shipped one" "$T/err" || fail "not the shipped policy"
grep -q "no wait reader named: the shipped one" "$T/err" || fail "not the shipped reader"
mv "$T/out" "$T/r.json"
expect_exit 0 "$R" -q -o "$T/review.html" "$G"

# chrome URL [options]: the browser on a page, its own profile, a time limit
chrome() {
	url=$1; shift
	timeout 180 "$CHROME" --headless --no-sandbox --disable-gpu --no-first-run \
		--user-data-dir="$T/profile" --hide-scrollbars "$@" "$url" 2> "$T/chrome.err"
}

# the keys, and a phone's width: a script added at the end of a copy
sed 's|</body>|<script>(function () {\
  function key(k) { document.dispatchEvent(new KeyboardEvent("keydown", { key: k })); }\
  var out = [];\
  ["ArrowRight", "ArrowRight", "ArrowLeft", "ArrowDown", "l", "End", "k"].forEach(function (k) {\
    key(k); out.push(location.hash); });\
  document.body.setAttribute("data-nav", out.join(" "));\
  document.body.setAttribute("data-wide", document.documentElement.scrollWidth > window.innerWidth);\
})();</script></body>|' "$T/review.html" > "$T/nav.html"
chrome "file://$T/nav.html" --window-size=412,915 --virtual-time-budget=5000 --dump-dom > "$T/nav.dom" ||
	{ tail -n 5 "$T/chrome.err"; fail "chromium (keys)"; }

# the DOM after the page's script ran
if in_full; then
	chrome "file://$T/review.html" --virtual-time-budget=5000 --dump-dom > "$T/dom.html" ||
		{ tail -n 5 "$T/chrome.err"; fail "chromium --dump-dom"; }
else # (the page the key script ran on: what it drew is the same)
	cp "$T/nav.dom" "$T/dom.html"
fi
n=$(jq '.decisions | length' "$T/r.json")
[ "$n" -gt 50 ] || fail "only $n decisions"
grep -q "data-ready=\"$n\"" "$T/dom.html" || fail "the page did not finish drawing ($n decisions)"
[ "$(grep -o '<article class="dec[ "]' "$T/dom.html" | wc -l)" -eq "$n" ] ||
	fail "$(grep -o '<article class="dec[ "]' "$T/dom.html" | wc -l) decisions drawn, $n in --json"
[ "$(grep -o 'class="dec[^"]*low' "$T/dom.html" | wc -l)" -eq "$(jq '.summary.low' "$T/r.json")" ] ||
	fail "low-probability marks"
fig() { sed -n "s|.*<b id=\"$1\">\([^<]*\)</b>.*|\1|p" "$T/dom.html"; }
want_dec=$(jq '.summary.decisions' "$T/r.json")
want_agr=$(jq '.summary.agreement' "$T/r.json" | awk '{ printf "%.1f%%", $1 * 100 }')
want_mp=$(jq '.summary.mean_prob' "$T/r.json" | awk '{ printf "%.3f", $1 }')
want_low=$(jq '.summary.low' "$T/r.json")
[ "$(fig s-decisions)" = "$want_dec" ] || fail "decisions: page '$(fig s-decisions)', --json $want_dec"
[ "$(fig s-agreement)" = "$want_agr" ] || fail "agreement: page '$(fig s-agreement)', --json $want_agr"
[ "$(fig s-mean-prob)" = "$want_mp" ] || fail "mean probability: page '$(fig s-mean-prob)', --json $want_mp"
[ "$(fig s-low)" = "$want_low" ] || fail "low: page '$(fig s-low)', --json $want_low"
[ "$(grep -o '<li><a href="#d[0-9]*"' "$T/dom.html" | wc -l)" -eq "$(jq '.summary.costliest | length' "$T/r.json")" ] ||
	fail "costliest departures listed"

# the danger: a cell per tile of the hand (and the drawn one) and threat,
# the first one's text the percentage of --json
want_dg=$(jq '[.decisions[] | (.threats | length) * ((.hand | length) + (if .drawn then 1 else 0 end))] | add' "$T/r.json")
[ "$want_dg" -gt 0 ] || fail "no decision with a threat in the game (seed 5)"
[ "$(grep -o '<span class="dg"' "$T/dom.html" | wc -l)" -eq "$want_dg" ] ||
	fail "$(grep -o '<span class="dg"' "$T/dom.html" | wc -l) danger cells drawn, $want_dg in --json"
first=$(jq -r '[.decisions[] | select(.threats | length > 0)][0] | . as $x |
	($x.hand[0] | sub("r$"; "")) as $t | ["1m","2m","3m","4m","5m","6m","7m","8m","9m","1p","2p","3p","4p","5p","6p","7p","8p","9p","1s","2s","3s","4s","5s","6s","7s","8s","9s","E","S","W","N","P","F","C"] |
	index($t) as $k | $x.threats[0].deal_in[$k] | if . >= 0.005 then (. * 100 | round | tostring) else "0" end' "$T/r.json")
grep -o '<span class="dg"[^<]*<' "$T/dom.html" | head -n 1 | sed 's/.*>\([^<]*\)<$/\1/' > "$T/dg1"
[ "$(cat "$T/dg1")" = "$first" ] || fail "the first danger cell says '$(cat "$T/dg1")', --json $first"
grep -q 'class="threats"' "$T/dom.html" || fail "no line naming the threats"

# the keys went where the man page says, and nothing is wider than the phone
k1=$(jq '.decisions[1].kyoku as $k | [.kyoku[] | select(.id > $k and .decisions > 0)][0].first' "$T/r.json")
low=$(jq --argjson k "$k1" '[.decisions[] | select(.id > $k and .low) | .id][0] // $k' "$T/r.json")
want="#d1 #d2 #d1 #d$k1 #d$low #d$((n - 1)) #d$((n - 2))"
got=$(sed -n 's|.*data-nav="\([^"]*\)".*|\1|p' "$T/nav.dom")
[ "$got" = "$want" ] || fail "keys: went to '$got', expected '$want'"
grep -q 'data-wide="false"' "$T/nav.dom" || fail "the page is wider than a phone's screen"

# a real game, converted, reviewed with the shipped policy and reader
REAL="$DATA/logs/tsubakisakura_mjlog2json/data"
if [ -d "$REAL" ]; then
	F=$(find "$REAL" -name '*.xml' | sort | head -n 1)
	"$BIN/mjai-parse" --format json -o "$T/real.json" "$F" 2> "$T/p.err" || { cat "$T/p.err"; fail "mjai-parse --format json"; }
	expect_exit 0 "$R" --json --seat 0 "$T/real.json"
	grep -q "no reviewer named: the shipped one" "$T/err" || fail "real game: not the shipped policy"
	mv "$T/out" "$T/real-r.json"
	expect_exit 0 "$R" -q --seat 0 -o "$T/real.html" "$T/real.json"
	jq -e '[.decisions[] | . as $x | [range(4)] | map(select(. != $x.seat and $x.players[.].riichi)) as $r |
		select($r | length > 0) | ($r | all(. as $s | $x.threats | map(.seat) | index($s) != null))] |
		length > 0 and all' "$T/real-r.json" > /dev/null || fail "real game: a decision against a riichi without its danger"
	chrome "file://$T/real.html" --window-size=412,915 --virtual-time-budget=5000 --dump-dom > "$T/real.dom" ||
		{ tail -n 5 "$T/chrome.err"; fail "chromium (real game)"; }
	n=$(jq '.decisions | length' "$T/real-r.json")
	grep -q "data-ready=\"$n\"" "$T/real.dom" || fail "real game: the page did not finish drawing"
	want_dg=$(jq '[.decisions[] | (.threats | length) * ((.hand | length) + (if .drawn then 1 else 0 end))] | add' "$T/real-r.json")
	[ "$(grep -o '<span class="dg"' "$T/real.dom" | wc -l)" -eq "$want_dg" ] || fail "real game: danger cells"
	echo "real game $(basename "$F"): $n decisions of seat 0, $want_dg danger cells"
else
	echo "shared logs not found at $DATA/logs: no real game"
fi

in_full || exit 0
# a screenshot that is not blank
chrome "file://$T/review.html" --window-size=1000,1300 --screenshot="$T/shot.png" > /dev/null ||
	{ tail -n 5 "$T/chrome.err"; fail "chromium --screenshot"; }
set -- $(/usr/bin/python3 "$TOP/tests/shell/pngstat.py" "$T/shot.png") || fail "the screenshot is no PNG"
[ "$1" -eq 1000 ] && [ "$2" -eq 1300 ] || fail "screenshot of $1x$2"
[ "$3" -ge 200 ] || fail "a blank screenshot: $3 colours"
awk -v t="$4" 'BEGIN { exit !(t < 0.95) }' || fail "a blank screenshot: one colour covers $4 of it"
exit 0
