#!/bin/sh
# The documentation as a reader meets it: README.md stays a front page (under 15,000 bytes;
# the manuals live beside their code), and every relative link of README.md, CONTRIBUTING.md
# and the manuals (examples/*/README.md, tests/README.md, bench/README.md) names a file or
# folder of the tree. Prints each broken link (file:line: target) and fails if there is one.
#
# usage: doc_links.sh SOURCE_ROOT
set -eu
root=${1:?usage: doc_links.sh SOURCE_ROOT}
status=0
size=$(wc -c <"$root/README.md")
if [ "$size" -ge 15000 ]; then
    echo "README.md: $size bytes, more than a front page's 15000 (move the detail to a manual)"
    status=1
fi
links=0
found=$(mktemp)
trap 'rm -f "$found"' EXIT
for doc in README.md CONTRIBUTING.md tests/README.md bench/README.md examples/*/README.md; do
    [ -f "$root/$doc" ] || continue
    dir=$(dirname "$doc")
    # Each Markdown link target outside code blocks ('](target)'), with its line number.
    awk '/^```/ { code = !code; next }
         !code { line = $0
                 while (match(line, /\]\([^)]*\)/)) {
                     print NR ":" substr(line, RSTART + 2, RLENGTH - 3)
                     line = substr(line, RSTART + RLENGTH) } }' "$root/$doc" >"$found"
    while IFS=: read -r n target; do
        case $target in http://* | https://* | mailto:* | \#*) continue ;; esac
        links=$((links + 1))
        [ -e "$root/$dir/${target%%#*}" ] || { echo "$doc:$n: $target does not exist"; status=1; }
    done <"$found"
done
[ "$links" -gt 0 ] || { echo "no relative link found: the check would pass on anything"; status=1; }
[ $status -eq 0 ] && echo "README.md $size bytes; $links links, every one resolves"
exit $status
