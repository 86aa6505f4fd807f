#!/bin/sh
# The layering of lib/ (ARCHITECTURE.md §11) holds: tests/layering.sh finds
# no include of a module above, and none of another module's private header;
# and it does catch each kind of violation, in a copy of lib/ broken on
# purpose, and a loop in its own table; every file of lib/ and cmd/ opens
# with its comment, and none of their functions is over 120 lines.
. tests/shell/lib.sh
L="$TOP/tests/layering.sh"

expect_exit 0 sh "$L" "$TOP"
grep -q 'goes down' "$T/out" || fail "layering: no summary line"

mkdir "$T/top"
cp -R "$TOP/lib" "$T/top/lib" || fail "copy lib"
expect_exit 0 sh "$L" "$T/top"

# an upward include: events (core, io) includes the mjai parser above it
cp "$T/top/lib/events/event.c" "$T/event.c"
printf '#include "mjai/mjai.h"\n' >> "$T/top/lib/events/event.c"
expect_exit 1 sh "$L" "$T/top"
expect_err '^layering: lib/events/event\.c:[0-9]+: events includes "mjai/mjai\.h": events may use core, io'
expect_err '^layering: 1 violation'
cp "$T/event.c" "$T/top/lib/events/event.c"

# in a header, spaced and with angle brackets: samples includes encode
printf '#  include <encode/encode.h>\n' >> "$T/top/lib/samples/sample.h"
expect_exit 1 sh "$L" "$T/top"
expect_err '^layering: lib/samples/sample\.h:[0-9]+: samples includes "encode/encode\.h"'
cp "$TOP/lib/samples/sample.h" "$T/top/lib/samples/sample.h"

# the bottom module uses nothing
printf '#include "io/lines.h"\n' >> "$T/top/lib/core/num.c"
expect_exit 1 sh "$L" "$T/top"
expect_err 'core includes "io/lines\.h": core may use no module'
cp "$TOP/lib/core/num.c" "$T/top/lib/core/num.c"

# a private header of nn, included by a program and by another module
mkdir "$T/top/cmd"
printf '#include "nn/ckptfile.h"\n' > "$T/top/cmd/x.c"
expect_exit 1 sh "$L" "$T/top"
expect_err '^layering: cmd/x\.c:1: includes "nn/ckptfile\.h", private to lib/nn'
rm "$T/top/cmd/x.c"
printf '#include "engine/win.h"\n' >> "$T/top/lib/review/review.c"
expect_exit 1 sh "$L" "$T/top"
expect_err 'lib/review/review\.c:[0-9]+: includes "engine/win\.h", private to lib/engine'
cp "$TOP/lib/review/review.c" "$T/top/lib/review/review.c"

# a module the table does not know
mkdir "$T/top/lib/newmod"
printf '#include "core/status.h"\n' > "$T/top/lib/newmod/a.c"
expect_exit 1 sh "$L" "$T/top"
expect_err 'lib/newmod/: a module the table does not know'
rm -r "$T/top/lib/newmod"

# the table cannot be bent upward: events may use mjai makes a loop
sed 's/^events:  core io$/events:  core io mjai/' "$L" > "$T/layering.sh"
cmp -s "$L" "$T/layering.sh" && fail "the events row of tests/layering.sh changed shape"
expect_exit 1 sh "$T/layering.sh" "$T/top"
expect_err 'the table has a loop'

# and the copy, restored, passes again
expect_exit 0 sh "$L" "$T/top"

# every source file of lib/ and cmd/ opens with the comment that says what
# it holds (STYLE.md)
bare=$(cd "$TOP" && find lib cmd \( -name '*.c' -o -name '*.h' -o -name '*.cu' \) -print | sort |
	while read -r f; do head -c 2 "$f" | grep -q '^/\*' || echo "$f"; done)
[ -z "$bare" ] || fail "these files do not open with a comment: $bare"
# and no function of lib/ or cmd/ is over 120 lines (STYLE.md; a body runs
# from a '{' to a '}' at the start of a line)
long=$(cd "$TOP" && find lib cmd \( -name '*.c' -o -name '*.cu' \) -print | sort | while read -r f; do
	awk -v f="$f" '/^\{/ { s = NR; name = prev } /^\}/ && s { if (NR - s > 120) print f ": " name " (" NR - s " lines)"; s = 0 } { prev = $0 }' "$f"
done)
[ -z "$long" ] || fail "functions over 120 lines: $long"
echo "layering: ok"
