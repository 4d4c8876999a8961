#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# guac write's progress and --json (issue 36, U10). Off a terminal (a batch
# job's output file) the default prints whole lines every
# --progress-interval, with the UTC time, bytes, percent, rate and ETA, and
# an "ended" line; --progress=none prints nothing; on a terminal (script(1))
# the line is redrawn in place. A resumed fill's lines count its durable
# bytes once. --json prints one object whose numbers are the manifest's.
# The target's writes are slowed (shims/slow_pwrite.c) so that a fill lasts
# several intervals whatever the machine. TAP output.
set -u
. "$(dirname "$0")/../tap.sh"
tap_tmpdir

CC=${CC:-cc}
shims=$(cd "$(dirname "$0")/../shims" && pwd)

# slow_write FILE ARGS...: guac write ARGS with FILE's writes taking $slow_ns each (20 ms).
slow_ns=20000000
slow_write() {
	sw_file=$1
	shift
	[ -e "$sw_file" ] || : >"$sw_file"
	SLOW_INO=$(stat -c %i "$sw_file") SLOW_NS=$slow_ns LD_PRELOAD="$tmp/slow.so" "$GUAC" write "$@"
}

# The log line of a write of 4 MiB: time, target, bytes, percent, rate, ETA.
log_re="^guac write: 20[0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9]Z '[^']*': [0-9]* of 4194304 bytes ([0-9.]* \(B\|[KM]iB\) of 4.00 MiB, [0-9.]*%), [0-9.]* [MG]B/s, ETA [0-9]*:[0-5][0-9]:[0-5][0-9]\$"
end_re="^guac write: .*: 4194304 of 4194304 bytes (4.00 MiB of 4.00 MiB, 100.0%), [0-9.]* [MG]B/s, ended\$"

# increasing FILE: the byte counts of FILE's log lines never go down, and move.
increasing() {
	sed -n 's/^guac write: [^ ]* [^ ]* \([0-9]*\) of .*/\1/p' "$1" |
		awk 'NR > 1 && $1 < last { bad = 1 } { last = $1; n++ } NR == 1 { first = $1 }
		     END { exit bad || n < 2 || last == first }'
}

tap_begin
if ! $CC -shared -fPIC -o "$tmp/slow.so" "$shims/slow_pwrite.c" -ldl 2>"$tmp/cc.err"; then
	not_ok "cannot build the slow-write shim with $CC" "$tmp/cc.err"
	tap_end
	exit
fi

f=$tmp/f m=$tmp/m.json
slow_write "$f" --progress=log --progress-interval 0.2 --bs 64K -n 4M --origin 3 -m "$m" "$f" \
	>"$tmp/o" 2>"$tmp/e"
rc=$?
n=$(grep -c "$log_re" "$tmp/e")
check "--progress=log: exit 0 and 3 or more log lines with time, bytes, percent, rate and ETA ($n)" \
	"[ $rc -eq 0 ] && [ $n -ge 3 ]"
check "... whole lines, no carriage return or escape" "! grep -q \"\$(printf '[\\r\\033]')\" '$tmp/e'"
check "... the last line says ended, at 100%" "tail -n 1 '$tmp/e' | grep -q \"$end_re\""
check "... every line is a log line" "[ \$(grep -vc \"$log_re\" '$tmp/e') -eq 1 ]"
check "... the byte counts grow" "increasing '$tmp/e'"
check "... the report stays on standard output, apart" "grep -q '^OK: 4194304 of 4194304' '$tmp/o' && ! grep -q '^guac write' '$tmp/o'"

rm -f "$f" "$m"
slow_write "$f" --progress-interval 0.2 --bs 64K -n 4M --origin 3 -m "$m" "$f" >"$tmp/o" 2>"$tmp/e"
n=$(grep -c "$log_re" "$tmp/e")
check "the default off a terminal is log lines ($n)" "[ $n -ge 3 ] && tail -n 1 '$tmp/e' | grep -q \"$end_re\""

rm -f "$f" "$m"
slow_write "$f" --progress=none --progress-interval 0.2 --bs 64K -n 4M --origin 3 -m "$m" "$f" \
	>"$tmp/o" 2>"$tmp/e"
check "--progress=none: nothing on standard error, the report as ever" \
	"[ ! -s '$tmp/e' ] && grep -q '^OK: 4194304 of 4194304' '$tmp/o'"

rm -f "$f" "$m"
"$GUAC" write -n 64K --origin 3 -m "$m" "$f" >"$tmp/o" 2>"$tmp/e"
check "a write shorter than the interval prints no progress" "[ ! -s '$tmp/e' ]"

if ! command -v script >/dev/null; then
	not_ok "script(1) is available (bsdutils)"
else
	rm -f "$f" "$m"
	: >"$f"
	SLOW_INO=$(stat -c %i "$f") SLOW_NS=20000000 LD_PRELOAD="$tmp/slow.so" \
		script -qec "'$GUAC' write --bs 64K -n 4M --origin 3 '$f'" /dev/null >"$tmp/tty" 2>&1
	check "on a terminal: the line redrawn in place with bytes, percent, rate and ETA" \
		"grep -q \"\$(printf '\\r\\033')\\[Kwrite: [0-9.]* [KM]iB of 4.00 MiB ([0-9.]*%), [0-9.]* [MG]B/s, ETA [0-9]:[0-5][0-9]:[0-5][0-9]\" '$tmp/tty'"
	check "... and no log line" "! grep -q 'guac write: 20' '$tmp/tty'"
fi

for bad in "--progress=sometimes" "--progress-interval 0" "--progress-interval -1" \
	"--progress-interval x" "--progress-interval 1e9"; do
	# shellcheck disable=SC2086 # the option and its value are two words
	"$GUAC" write $bad -n 64K "$tmp/u" >"$tmp/o" 2>&1
	check "write $bad: a usage error (exit 2), nothing written" \
		"[ \$? -eq 2 ] && grep -q 'invalid --progress' '$tmp/o' && [ ! -e '$tmp/u' ]"
done

# --json: one object, its numbers the manifest's.
rm -f "$f" "$m"
"$GUAC" write --json --bs 64K -n 4M --seek 8K --offset 1M --origin 5 -j 2 -m "$m" "$f" >"$tmp/j" 2>"$tmp/e"
rc=$?
check "--json: exit 0, standard output one JSON object alone" \
	"[ $rc -eq 0 ] && [ \$(wc -l <'$tmp/j') -eq 1 ] && python3 -m json.tool '$tmp/j' >/dev/null"
cat >"$tmp/match.py" <<'PY'
import json, os, sys
j = json.load(open(sys.argv[1]))
m = json.load(open(sys.argv[2]))
want = {
    "origin": m["origin"], "offset": m["stream_offset"], "device_offset": m["device_offset"],
    "length": m["length"], "status": m["status"], "block_size": m["block_size"],
    "bytes_durable": sum(r["done"] for r in m["ranges"]), "kind": m["target"]["type"],
    "identity": m["target"]["identity"], "size": m["target"]["size"], "host": m["host"],
    "started": m["started"], "finished": m["finished"], "jobs": len(m["ranges"]),
    "manifest": sys.argv[2], "manifest_saved": True,
}
for k, v in sorted(want.items()):
    if j.get(k) != v:
        sys.exit("%s: json %r, manifest %r" % (k, j.get(k), v))
if os.path.realpath(j["target"]) != m["target"]["path"]:
    sys.exit("target %r is not %r" % (j["target"], m["target"]["path"]))
for k, v in [(a.split("=")[0], json.loads(a.split("=", 1)[1])) for a in sys.argv[3:]]:
    if j.get(k) != v:
        sys.exit("%s: %r, expected %r" % (k, j.get(k), v))
PY
# matches JSON MANIFEST [KEY=VALUE...]: the report agrees with the manifest (and has each VALUE).
matches() {
	python3 "$tmp/match.py" "$@" >"$tmp/why" 2>&1 || { sed 's/^/# /' "$tmp/why"; false; }
}
check "--json: origin, offset, seek, length, status, durable bytes, target and identity match the manifest" \
	"matches '$tmp/j' '$m' result='\"ok\"' exit_status=0 exit_reason='\"complete\"' \
	 bytes_written=4194304 not_durable='[]' fsynced=true"
check "--json: no text report on standard output" "! grep -q '^OK' '$tmp/j'"

# Interrupted: the object says so, and the resume's progress counts the durable bytes once.
rm -f "$f" "$m"
: >"$f"
SLOW_INO=$(stat -c %i "$f") SLOW_NS=20000000 LD_PRELOAD="$tmp/slow.so" \
	"$GUAC" write --json --progress=none --bs 64K -n 4M --origin 3 -m "$m" "$f" >"$tmp/j" 2>"$tmp/e" &
pid=$!
wait_written $pid 1000000
kill -INT $pid
wait $pid
rc=$?
check "--json interrupted: exit 130, status and reason interrupted, the durable bytes the manifest's" \
	"[ $rc -eq 130 ] && matches '$tmp/j' '$m' result='\"interrupted\"' exit_status=130 exit_reason='\"interrupted\"'"
check "... the bytes not durable listed" \
	"python3 -c 'import json,sys; j = json.load(open(sys.argv[1])); r = j[\"not_durable\"]; sys.exit(not (len(r) == 1 and r[0][\"first_byte\"] == j[\"bytes_durable\"] and r[0][\"last_byte\"] == 4194303))' '$tmp/j'"
done1=$(grep -o '"done": [0-9]*' "$m" | awk '{s += $2} END {print s}')
# 50 ms a write: the first line, 0.2 to 0.4 s in, has under 0.6 MB of this run's,
# fewer than the durable bytes (1 MB or more), which counted twice would show.
slow_ns=50000000
slow_write "$f" --resume --json --progress=log --progress-interval 0.2 -m "$m" "$f" >"$tmp/j2" 2>"$tmp/e2"
rc=$?
slow_ns=20000000
first=$(grep -m 1 "$log_re" "$tmp/e2" | sed 's/.* \([0-9]*\) of 4194304 bytes.*/\1/')
check "--resume: log lines from the durable bytes on, counted once ($done1 durable, first line ${first:-none})" \
	"[ $rc -eq 0 ] && [ -n '$first' ] && [ '$first' -ge $done1 ] && [ '$first' -lt \$(($done1 * 2)) ] &&
	 tail -n 1 '$tmp/e2' | grep -q \"$end_re\""
check "--resume --json: resumed_bytes the durable bytes, the 'resuming' line on standard error" \
	"matches '$tmp/j2' '$m' resumed_bytes=$done1 result='\"ok\"' &&
	 grep -q '^resuming' '$tmp/e2' && [ \$(wc -l <'$tmp/j2') -eq 1 ]"
"$GUAC" write --resume --json -m "$m" "$f" >"$tmp/j3" 2>"$tmp/e3"
check "--resume --json of a complete fill: exit 0, nothing_to_resume, the recorded bytes" \
	"[ \$? -eq 0 ] && python3 -c 'import json,sys; j = json.load(open(sys.argv[1])); sys.exit(not (j[\"nothing_to_resume\"] and j[\"bytes_durable\"] == 4194304 and j[\"status\"] == \"complete\"))' '$tmp/j3'"
"$GUAC" write --json --dry-run -n 64K "$tmp/u" >"$tmp/o" 2>&1
check "--json --dry-run: a usage error (exit 2), nothing written" \
	"[ \$? -eq 2 ] && grep -q -- '--json reports a write' '$tmp/o' && [ ! -e '$tmp/u' ]"
tap_end
