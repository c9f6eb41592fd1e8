#!/bin/sh
# The layer order of CONTRIBUTING.md ("The layers"), checked on the headers: a header under include/mfprio/L/
# includes only headers of L and of the layers L may use. Prints each include that breaks it
# (file:line: the include) and fails if there is one. With TOOL_DIR (examples/mfprio), also
# each include of the tool's sources that reaches outside its own folder (the tool is built
# of the library and its own code; a site's factors come in through -Dsite_factors).
#
# usage: layers.sh INCLUDE_DIR [TOOL_DIR]
set -eu
root=${1:?usage: layers.sh INCLUDE_DIR [TOOL_DIR]}
tool=${2:-}

# What each layer may include besides itself (the design's diagram, from the bottom up).
uses() {
    case $1 in
        core) echo "" ;;
        text) echo "core" ;;
        fairshare) echo "core" ;;
        slurm) echo "core fairshare" ;;
        maui) echo "core fairshare" ;;
        flux) echo "core fairshare slurm" ;;
        queue) echo "core text fairshare slurm maui flux" ;;
        read) echo "core text fairshare slurm maui flux queue" ;;
        model) echo "core text fairshare slurm maui flux queue read" ;;
        replay) echo "core text fairshare slurm maui flux queue read model" ;;
        report) echo "core text fairshare slurm maui flux queue read model replay" ;;
        inputs) echo "core text fairshare slurm maui flux queue read model replay" ;;
        config) echo "core text read model replay" ;; # forwarding headers only
        *) echo "?" ;;
    esac
}

broken=$(
for dir in "$root"/mfprio/*/; do
    layer=$(basename "$dir")
    allowed="$layer $(uses "$layer")"
    case $allowed in *"?"*) echo "mfprio/$layer/: a folder the layer order does not name"; continue ;; esac
    for h in "$dir"*.hpp; do
        # Each '#include <mfprio/X/...>' with its line number.
        grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*<mfprio/' "$h" | while IFS= read -r hit; do
            target=$(printf '%s\n' "$hit" | sed 's|.*<mfprio/\([^/>]*\).*|\1|')
            case $target in *.hpp) continue ;; esac # an umbrella or version.hpp
            ok=0
            for a in $allowed; do [ "$a" = "$target" ] && ok=1; done
            [ $ok -eq 1 ] || echo "${h#"$root"/}:${hit%%:*}: layer $layer includes layer $target: ${hit#*:}"
        done
    done
done)

# The headers an umbrella reaches, by following '#include <mfprio/...>' lines.
reach() {
    reached=" $1 "
    todo=$1
    while [ -n "$todo" ]; do
        next=""
        for h in $todo; do
            for inc in $(sed -n 's|^[[:space:]]*#[[:space:]]*include[[:space:]]*<\(mfprio/[^>]*\)>.*|\1|p' "$root/$h"); do
                case $reached in *" $inc "*) ;; *) reached="$reached$inc "; next="$next $inc" ;; esac
            done
        done
        todo=$next
    done
    echo "$reached"
}
# mfprio/mfprio.hpp reaches every header but the opt-in ones (mfprio/inputs/, which need
# simdjson, and mfprio/testing.hpp); mfprio/inputs.hpp reaches those of inputs/.
everything=$(reach mfprio/mfprio.hpp)
inputs=$(reach mfprio/inputs.hpp)
missed=$(cd "$root" && find mfprio -name '*.hpp' | LC_ALL=C sort | while read -r h; do
    case $h in
        mfprio/testing.hpp) ;;
        mfprio/inputs.hpp) ;;
        mfprio/inputs/*)
            case $everything in *" $h "*) echo "$h: opt-in (simdjson), yet reached from mfprio/mfprio.hpp" ;; esac
            case $inputs in *" $h "*) ;; *) echo "$h: not reached from mfprio/inputs.hpp" ;; esac ;;
        *) case $everything in *" $h "*) ;; *) echo "$h: not reached from mfprio/mfprio.hpp" ;; esac ;;
    esac
done)
outside=""
if [ -n "$tool" ]; then
    outside=$(cd "$tool" && grep -rn '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"]*\.\./' --include='*.cpp' --include='*.hpp' . |
        sed 's|^\./|examples/mfprio/|; s|$|: the tool includes a file outside its folder|' || true)
fi
broken=$(printf '%s\n%s\n%s' "$broken" "$missed" "$outside" | sed '/^$/d')
[ -z "$broken" ] && exit 0
printf '%s\n' "$broken"
exit 1
