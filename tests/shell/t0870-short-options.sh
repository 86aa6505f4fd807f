#!/bin/sh
# A short option means the same thing in every program: each "-x, --long"
# pair in the programs' --help has the same long option everywhere.
# (--out, hydra-fit's output directory, counts as --output: -o names where
# a program's output goes in every program.)
. tests/shell/lib.sh
for p in "$BIN"/*; do
	[ -x "$p" ] || continue
	"$p" --help 2>/dev/null | grep -oE '^ +-[a-zA-Z], --[a-z0-9-]+' |
		sed "s|^ *||; s|,||; s|--out\$|--output|; s|\$| $(basename "$p")|"
done > "$T/pairs"
[ "$(wc -l < "$T/pairs")" -ge 30 ] || fail "only $(wc -l < "$T/pairs") short options found"
awk '{ if (($1 in long) && long[$1] != $2) { print "FAIL: " $1 " is " long[$1] " in " who[$1] " but " $2 " in " $3; bad = 1 }
       if (!($1 in long)) { long[$1] = $2; who[$1] = $3 } }
     END { exit bad }' "$T/pairs" || exit 1
exit 0
