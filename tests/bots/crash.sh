#!/bin/sh
# A scripted mjai bot for tests: plays through the bot command CMD until
# its input line N, then dies with status 3 without answering.
# usage: crash.sh N CMD [ARG...]
n=$1; shift
dir=$(mktemp -d "${TMPDIR:-/tmp}/hydra-bot.XXXXXX") || exit 1
mkfifo "$dir/in" "$dir/out" || exit 1
"$@" <"$dir/in" >"$dir/out" &
exec 3>"$dir/in" 4<"$dir/out"
rm -rf "$dir"
i=0
while IFS= read -r line; do
	i=$((i + 1))
	if [ "$i" -ge "$n" ]; then
		echo "crash.sh: crashing at input line $i" >&2
		exit 3
	fi
	printf '%s\n' "$line" >&3
	IFS= read -r answer <&4 || exit 4
	printf '%s\n' "$answer"
done
