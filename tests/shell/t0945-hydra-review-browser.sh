#!/bin/sh
# The review page in a real browser (headless Chromium, Debian's chromium,
# installed by make deps; skipped without it): after its script ran, the
# DOM holds one decision per decision of --json and shows the summary
# figures of --json; the keys move between decisions and kyoku as the man
# page says; at a phone's width nothing is wider than the screen; a
# screenshot is not blank (many colours, no colour over 95% of it).
# Tiers: the fast tier starts the browser once, at a phone's width on the
# page with the key script, and checks the DOM, the keys and the width on
# what it drew; the full tier also draws the page as it is (the DOM checks
# on it) and takes the screenshot.
. tests/shell/lib.sh
need_cmd jq
CHROME=$(command -v chromium || command -v chromium-browser || command -v google-chrome)
[ -n "$CHROME" ] || skip "chromium not installed: the browser check of the review page is skipped (make deps installs it)"
[ -x /usr/bin/python3 ] || skip "/usr/bin/python3 not installed (skipped)"
R="$BIN/hydra-review"

expect_exit 0 "$BIN/hydra-sp" --games 1 --seed 5 --policy rulebot --log-dir "$T/logs" -o "$T/s.bin"
G="$T/logs/game-00000000.json.gz"
M=baseline
if [ -x "$BIN/hydra-fit" ]; then
	"$BIN/hydra-fit" --arch tiny --steps 2 --batch 32 --out "$T/run" "$T/s.bin" 2> "$T/fit" ||
		{ cat "$T/fit" >&2; fail "hydra-fit"; }
	M="$T/run/latest"
fi
expect_exit 0 "$R" --model "$M" --json "$G"
mv "$T/out" "$T/r.json"
expect_exit 0 "$R" --model "$M" -o "$T/review.html" "$G"

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

# the keys went where the man page says, and nothing is wider than the phone
k1=$(jq '.decisions[1].kyoku as $k | [.kyoku[] | select(.id > $k and .decisions > 0)][0].first' "$T/r.json")
low=$(jq --argjson k "$k1" '[.decisions[] | select(.id > $k and .low) | .id][0] // $k' "$T/r.json")
want="#d1 #d2 #d1 #d$k1 #d$low #d$((n - 1)) #d$((n - 2))"
got=$(sed -n 's|.*data-nav="\([^"]*\)".*|\1|p' "$T/nav.dom")
[ "$got" = "$want" ] || fail "keys: went to '$got', expected '$want'"
grep -q 'data-wide="false"' "$T/nav.dom" || fail "the page is wider than a phone's screen"

in_full || exit 0
# a screenshot that is not blank
chrome "file://$T/review.html" --window-size=1000,1300 --screenshot="$T/shot.png" > /dev/null ||
	{ tail -n 5 "$T/chrome.err"; fail "chromium --screenshot"; }
set -- $(/usr/bin/python3 "$TOP/tests/shell/pngstat.py" "$T/shot.png") || fail "the screenshot is no PNG"
[ "$1" -eq 1000 ] && [ "$2" -eq 1300 ] || fail "screenshot of $1x$2"
[ "$3" -ge 200 ] || fail "a blank screenshot: $3 colours"
awk -v t="$4" 'BEGIN { exit !(t < 0.95) }' || fail "a blank screenshot: one colour covers $4 of it"
exit 0
