# SPDX-License-Identifier: GPL-2.0
# Debug kernel, last: unload, then kmemleak must find nothing the tests left.

KMEMLEAK=/sys/kernel/debug/kmemleak

if guac_loaded; then
	check "rmmod before the leak scan" guac_unload
fi
# kmemleak only reports objects older than 5 s.
sleep 6
check "kmemleak scan finds no leak" \
	sh -c "echo scan >$KMEMLEAK && head -n 60 $KMEMLEAK && ! grep -q . $KMEMLEAK"
