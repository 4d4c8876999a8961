#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# guac(1) (docs/man/guac.1) against the guac it documents, so that it cannot
# drift (issue 36, U11): each command's SYNOPSIS names every option of its
# --help and no other, and every suite of guac bench; each command's section
# is a subsection of COMMANDS (bench and doctor were rendered under
# MANIFEST); every option the page names anywhere is one of a command or a
# script, and the reverse; the MANIFEST section names the version guac
# writes. check-deb checks the packaged page the same way. TAP output.
set -u
. "$(dirname "$0")/../tap.sh"
tap_tmpdir
man=$(cd "$(dirname "$0")/../../.." && pwd)/docs/man/guac.1

tap_begin
cmds=$("$GUAC" --help | sed -n 's/^  \([a-z][a-z]*\)  .*/\1/p')
for c in $cmds; do
	"$GUAC" "$c" --help 2>&1 | grep -o '^ *\(-[a-zA-Z], \)\{0,1\}--[a-z][a-z-]*' | sed 's/.*--//' |
		grep -vx 'help\|version' | sort -u >"$tmp/help-$c"
	awk -v c="guac $c" '/^\.SY / { on = ($0 == ".SY \"" c "\"") } /^\.YS/ { on = 0 } on' "$man" |
		grep -o '\\-\\-[a-z][a-z-]*' | sed 's/^\\-\\-//' | sort -u >"$tmp/syn-$c"
	check "SYNOPSIS of guac $c: exactly the options of guac $c --help" \
		'cmp -s "$tmp/help-$c" "$tmp/syn-$c" || { diff "$tmp/help-$c" "$tmp/syn-$c" | sed "s/^/# /"; false; }'
done
# Every option the page names anywhere, read as check-deb reads the packaged
# page (an escaped hyphen inside a name, \-\-dry\-run, reads as --dry), is
# an option of a command's --help or of the scripts, and the reverse.
top=$(cd "$(dirname "$0")/../../.." && pwd)
{ for c in $cmds; do "$GUAC" "$c" --help; done
  "$top/scripts/rngtest.sh" --help; "$top/scripts/dieharder.sh" --help; } 2>&1 |
	grep -o -- '--[a-z][a-z-]*' | sort -u >"$tmp/help-all"
grep -o -- '\\-\\-[a-z][a-z-]*' "$man" | sed 's/\\-/-/g' | sort -u >"$tmp/man-all"
check "every option the page names is an option of a command or a script, and the reverse" \
	'[ -s "$tmp/help-all" ] && cmp -s "$tmp/help-all" "$tmp/man-all" ||
	 { diff "$tmp/help-all" "$tmp/man-all" | sed "s/^/# /"; false; }'
suites=$("$GUAC" bench --help | sed -n 's/^Usage: guac bench \[\([a-z|]*\)\].*/\1/p')
check "SYNOPSIS of guac bench: every suite of its --help ($suites)" \
	'[ -n "$suites" ] && grep -qF ".RB [ $(echo "$suites" | sed "s/|/ | /g") ]" "$man"'
check "every command's section is a subsection of COMMANDS, none under another section" \
	'awk -v want="$(echo $cmds | tr " " "\n" | sort | tr "\n" " ")" "
		/^\.SH / { sec = \$0 }
		/^\.SS \"guac / { if (sec != \".SH COMMANDS\") bad = 1; split(\$0, w, \"\\\"\"); n = split(w[2], p, \" \"); got[p[2]] = 1 }
		END { k = split(want, c, \" \"); for (i = 1; i <= k; i++) if (!(c[i] in got)) bad = 1; exit bad }" "$man"'
# Exit status: every code a command's --help names is in guac(1)'s EXIT
# STATUS and in the README's line for the disk workflow (it said "2 usage,
# refusal or I/O error" after 3 became the I/O failures' code).
readme=$(dirname "$man")/../../README.md
awk '/^\.SH "EXIT STATUS"/ { on = 1; next } /^\.SH / { on = 0 } on && /^\.B [0-9]+$/ { print $2 }' "$man" |
	sort -u >"$tmp/man-codes"
grep '^Exit status: 0 OK' "$readme" | grep -o '[0-9][0-9]* [a-zA-Z]' | cut -d' ' -f1 | sort -u >"$tmp/readme-codes"
for c in write verify; do
	"$GUAC" "$c" --help | sed -n '/^Exit status:/,/^$/p' | grep -o '\(^\|[ ,:]\)[0-9][0-9]* [a-z]' |
		grep -o '[0-9][0-9]*' | sort -u >"$tmp/codes-$c"
	check "guac(1) EXIT STATUS and README.md name every exit status guac $c --help names ($(echo $(cat "$tmp/codes-$c")))" \
		'[ -s "$tmp/codes-$c" ] && [ -z "$(comm -23 "$tmp/codes-$c" "$tmp/man-codes")" ] &&
		 [ -z "$(comm -23 "$tmp/codes-$c" "$tmp/readme-codes")" ] || { echo "# man: $(echo $(cat "$tmp/man-codes")), README: $(echo $(cat "$tmp/readme-codes"))"; false; }'
done
"$GUAC" write -n 64K -m "$tmp/m.json" "$tmp/f" >/dev/null 2>&1
v=$(sed -n 's/^ *"version": \([0-9]*\),$/\1/p' "$tmp/m.json" | head -n 1)
check "MANIFEST names the version guac writes ($v)" \
	'[ -n "$v" ] && awk "/^\.SH MANIFEST/ { on = 1; next } /^\.SH / { on = 0 } on" "$man" | grep -q "^version $v, "'
tap_end
