#!/bin/sh
# A scripted mjai bot for tests: plays through the bot command CMD until
# its input line N, which it answers with a well-formed but illegal action
# of its own seat (an added kan of East on a pon it does not have), then
# goes on answering "none".
# usage: illegal.sh N CMD [ARG...]
n=$1; shift
dir=$(mktemp -d "${TMPDIR:-/tmp}/hydra-bot.XXXXXX") || exit 1
mkfifo "$dir/in" "$dir/out" || exit 1
"$@" <"$dir/in" >"$dir/out" &
exec 3>"$dir/in" 4<"$dir/out"
rm -rf "$dir"
i=0
seat=0
while IFS= read -r line; do
	i=$((i + 1))
	case $line in
	*'"id":1'*) seat=1 ;;
	*'"id":2'*) seat=2 ;;
	*'"id":3'*) seat=3 ;;
	esac
	if [ "$i" -ge "$n" ]; then
		printf '{"type":"kakan","actor":%d,"pai":"E","consumed":["E","E","E"]}\n' "$seat"
		continue
	fi
	printf '%s\n' "$line" >&3
	IFS= read -r answer <&4 || exit 4
	printf '%s\n' "$answer"
done
