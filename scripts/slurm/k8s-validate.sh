#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# k8s-validate.sh [--python] FILE...: validate Kubernetes manifests offline
# against the Kubernetes API schemas, with PyPI's kubernetes-validate (pinned
# below) in a venv of the project's cache, made on first use. Strict: an
# unknown field is an error. Checked against the oldest Kubernetes the recipes
# need (backoffLimitPerIndex: 1.29 beta, GA in 1.33; here 1.31) and the newest
# the package knows. --python: print the venv's python3 instead (it has PyYAML).
set -euo pipefail

spec=kubernetes-validate==1.37.0
versions="1.31.0 1.37.0"
if mkdir -p /var/cache/guacrng 2>/dev/null && [ -w /var/cache/guacrng ]; then
	cache=/var/cache/guacrng/k8s-validate
else
	cache=${XDG_CACHE_HOME:-$HOME/.cache}/guacrng/k8s-validate
fi
venv=$cache/venv
mkdir -p "$cache"
(
	flock 9
	if [ ! -x "$venv/bin/kubernetes-validate" ] || [ "$(cat "$venv/.spec" 2>/dev/null)" != "$spec" ]; then
		rm -rf "$venv"
		echo "k8s-validate: making a venv with $spec (PyPI) in $venv" >&2
		/usr/bin/python3 -m venv "$venv" >&2 ||
			{ echo "k8s-validate: python3 -m venv failed (python3-venv; run scripts/install-deps.sh)" >&2; exit 1; }
		"$venv/bin/pip" install -q "$spec" >&2 ||
			{ rm -rf "$venv"; echo "k8s-validate: pip install $spec failed" >&2; exit 1; }
		echo "$spec" >"$venv/.spec"
	fi
) 9>"$cache/venv.lock"

if [ "${1:-}" = --python ]; then
	echo "$venv/bin/python3"
	exit 0
fi
[ $# -gt 0 ] || { echo "usage: k8s-validate.sh [--python] FILE..." >&2; exit 2; }
rc=0
for v in $versions; do
	"$venv/bin/kubernetes-validate" --strict --no-warn -k "$v" "$@" || rc=1
done
exit $rc
