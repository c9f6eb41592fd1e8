#!/bin/sh
# Facts declared in one place:
# - each letter of sprio's -o is a row of include/mfprio/slurm/sprio_fields.hpp, and no other
#   file of the sprio printer, its listing reader, its verifier or the tool's sprio command
#   names it as a character of its own (a 'X' literal): they look it up in that table;
# - each of Slurm's priority keys (a key of include/mfprio/read/slurm_keys.hpp's slurm_conf_keys
#   whose name starts with Priority or FairShare) is written as a string of its own ("Key")
#   once in the library and the tool, in that table: code takes the name from there.
# Prints each fact declared elsewhere (file:line) and fails if there is one, or if a table is
# empty.
#
# usage: declared_once.sh SOURCE_ROOT
set -eu
root=${1:?usage: declared_once.sh SOURCE_ROOT}
table=$root/include/mfprio/slurm/sprio_fields.hpp
readers="include/mfprio/report/sprio.hpp include/mfprio/report/sprio_verify.hpp
include/mfprio/read/sprio_listing.hpp examples/mfprio/commands.hpp examples/mfprio/commands.cpp"

letters=$(sed -n "s/.*\.letter = '\(.\)'.*/\1/p" "$table")
[ -n "$letters" ] || { echo "$table: no .letter = 'X' row"; exit 1; }
count=0
status=0
for l in $letters; do
    count=$((count + 1))
    n=$(grep -c "\.letter = '$l'" "$table")
    [ "$n" -eq 1 ] || { echo "$table: letter '$l' has $n rows"; status=1; }
    for f in $readers; do
        if grep -n "'$l'" "$root/$f" >/dev/null; then
            grep -n "'$l'" "$root/$f" | sed "s|^|$f:|; s|\$| (sprio letter '$l' named outside $table)|"
            status=1
        fi
    done
done
[ $status -eq 0 ] && echo "$count sprio letters, each declared once"

keys_file=$root/include/mfprio/read/slurm_keys.hpp
keys=$(sed -n '/slurm_conf_key slurm_conf_keys\[\] = {/,/^};/s/^ *{"\(Priority[A-Za-z]*\|FairShare[A-Za-z]*\)".*/\1/p' "$keys_file")
[ -n "$keys" ] || { echo "$keys_file: no Priority key in slurm_conf_keys"; exit 1; }
nkeys=0
for k in $keys; do
    nkeys=$((nkeys + 1))
    hits=$(cd "$root" && grep -rn --include='*.hpp' --include='*.cpp' --include='*.h' --include='*.c' "\"$k\"" include examples || true)
    n=$(printf '%s\n' "$hits" | sed '/^$/d' | wc -l)
    if [ "$n" -ne 1 ]; then
        printf '%s\n' "$hits" | grep -v "^include/mfprio/read/slurm_keys.hpp:" | sed "s/\$/ (slurm.conf key $k written outside slurm_conf_keys)/"
        [ "$n" -eq 0 ] && echo "$keys_file: $k not found as \"$k\""
        status=1
    fi
done
[ $status -eq 0 ] && echo "$nkeys Slurm priority keys, each declared once"
exit $status
