#!/bin/sh
# Lists the seed files a tests/fuzz/NAME.seeds file names, one path a line.
#   SHARED=../shared sh tests/fuzz/seeds.sh tests/fuzz/NAME.seeds
# Each non-comment line is a glob: relative to the project top, or starting
# with "shared/" for the shared test data ($SHARED, read in place and never
# copied into the repository; silently absent when $SHARED is).
SHARED=${SHARED:-../shared}
[ -f "$1" ] || { echo "usage: seeds.sh FILE.seeds" >&2; exit 2; }
grep -v '^#' "$1" | while IFS= read -r glob; do
	case $glob in
	'') continue ;;
	shared/*) pat="$SHARED/${glob#shared/}" ;;
	*) pat=$glob ;;
	esac
	# shellcheck disable=SC2086
	for f in $pat; do [ -f "$f" ] && echo "$f"; done
done
exit 0
