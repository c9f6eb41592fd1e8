#!/usr/bin/env bash
# The site_factor plugin's recipe (examples/site_factor/README.md), run as written on this Debian 12 machine:
# the fenced block after the line "<!-- tests/readme_recipe.sh runs this block as written -->"
# is executed line by line in a copy of the checkout, with apt pointed at a scratch directory
# (APT_CONFIG: its sources, lists and caches) holding a copy of the machine's debian.sources
# as a stock Debian 12 has it, and the recipe's two system paths (/etc/apt/sources.list.d and
# /usr/local/lib/slurm) moved under it. Passes when every line succeeds, apt still works
# afterwards (no conflicting entry), and the plugin is where the recipe puts it.
#
# usage: tests/readme_recipe.sh SCRATCH   (as root, with apt-get and slurmctld; exit 77 otherwise)
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
skip() { printf 'readme recipe: skipped: %s\n' "$*"; exit 77; }
((EUID == 0)) || skip "needs root"
command -v apt-get >/dev/null && command -v dpkg-query >/dev/null || skip "needs apt-get"
dpkg-query -W -f='${Status}' slurmctld 2>/dev/null | grep -q 'install ok installed' || skip "slurmctld is not installed"
[[ -f /etc/apt/sources.list.d/debian.sources ]] || skip "no /etc/apt/sources.list.d/debian.sources (not a stock Debian 12)"

scratch=${1:?usage: readme_recipe.sh SCRATCH}
rm -rf "$scratch"
mkdir -p "$scratch"/{sources.list.d,lists/partial,cache/archives/partial,plugins,checkout}
scratch=$(cd "$scratch" && pwd)
# A stock Debian 12: debian.sources only (Types: deb, Signed-By), no deb-src entry.
grep -v '^Types: deb-src' /etc/apt/sources.list.d/debian.sources |
    sed '/^Types:/s/.*/Types: deb/' >"$scratch/sources.list.d/debian.sources"
cat >"$scratch/apt.conf" <<CONF
Dir::Etc::SourceList "/dev/null";
Dir::Etc::SourceParts "$scratch/sources.list.d";
Dir::State::Lists "$scratch/lists";
Dir::Cache "$scratch/cache";
CONF
export APT_CONFIG=$scratch/apt.conf

# The block, its comment lines aside, with the two system paths moved.
recipe=$(awk '/<!-- tests\/readme_recipe.sh runs this block as written -->/ { on = 1; next }
              on && /^```$/ { if (++fence == 2) exit; next }
              on && fence == 1 && !/^#/' "$repo/examples/site_factor/README.md")
[[ -n $recipe ]] || { echo "readme recipe: no recipe block in examples/site_factor/README.md"; exit 1; }
recipe=${recipe//\/etc\/apt\/sources.list.d/$scratch/sources.list.d}
recipe=${recipe//\/usr\/local\/lib\/slurm/$scratch/plugins}

# A copy of the checkout's sources (what meson reads), so that nothing is written into it.
(cd "$repo" && cp -r include examples tests bench cmake debian meson.build meson_options.txt LICENSE README.md \
    "$scratch/checkout/")
cd "$scratch/checkout"
echo "readme recipe: running, apt in $scratch (log: $scratch/recipe.log)"
if ! bash -euo pipefail -x -c "$recipe" >"$scratch/recipe.log" 2>&1; then
    echo "readme recipe: a line failed:"
    tail -n 25 "$scratch/recipe.log"
    exit 1
fi
# apt still works with the entry the recipe wrote, and the plugin is where slurm.conf looks.
if ! apt-get update >>"$scratch/recipe.log" 2>&1 || grep -q 'Conflicting values' "$scratch/recipe.log"; then
    echo "readme recipe: apt-get fails after the recipe (see $scratch/recipe.log)"
    exit 1
fi
[[ -f $scratch/plugins/site_factor_mfprio.so ]] || { echo "readme recipe: no plugin in the plugin directory"; exit 1; }
echo "readme recipe: every line ran; apt works; the plugin is installed"
