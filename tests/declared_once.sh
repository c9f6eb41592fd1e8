#!/bin/sh
# Facts declared in one place: each letter of sprio's -o is a row of
# include/mfprio/slurm/sprio_fields.hpp, and no other file of the sprio printer, its listing
# reader, its verifier or the tool's sprio command names it as a character of its own (a
# 'X' literal): they look it up in that table. Prints each letter declared elsewhere
# (file:line) and fails if there is one, or if the table holds no letter.
#
# usage: declared_once.sh SOURCE_ROOT
set -eu
root=${1:?usage: declared_once.sh SOURCE_ROOT}
table=$root/include/mfprio/slurm/sprio_fields.hpp
readers="include/mfprio/report/sprio.hpp include/mfprio/report/sprio_verify.hpp
include/mfprio/config/sprio_listing.hpp examples/mfprio/commands.hpp examples/mfprio/commands.cpp"

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
exit $status
