#!/usr/bin/env bash
# mfprio quick start.
#
#   ./setup.sh        install what is missing, build the mfprio tool into build/ (nothing
#                     else), run the demo
#   ./setup.sh test   install what is missing, then the whole test suite: gcc build
#                     (-Werror, assertions on, tests + examples + benchmark smoke runs +
#                     the tool's resource limits on 1 MB worst-case inputs: tests/limits.cpp),
#                     clang build with AddressSanitizer and UBSan (with a fuzz target per
#                     reader, run 20 s each: tests/fuzz), the queue tests built with
#                     ThreadSanitizer (clang), the install and consumer checks (pkg-config,
#                     CMake package and meson subproject), the Debian packages (built, lintian,
#                     installed, used, removed; as root), and a live Slurm cluster on localhost against
#                     which mfprio's sprio and sshare are compared (as root, where apt-get
#                     installs Debian's Slurm; MFPRIO_NO_LIVE_SLURM=1 turns it off).
#                     Ends with "N passed, N failed".
#   ./setup.sh deps   install what is missing, nothing else
#
# Packages come from Debian/Ubuntu (apt-get) and are installed only if some are missing.
# Run as root, or as a user who can sudo. Environment: MFPRIO_JOBS (parallel jobs, default:
# the number of CPUs).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")"
repo=$(pwd)

# meson, ninja and the compilers; doctest (tests) and Google Benchmark (bench/); pkg-config
# for the install check; the clang runtime for the sanitizers (only a Recommends of clang);
# cmake because Debian's doctest-dev ships no pkg-config file, only a CMake package (and the
# CMake consumer check).
# libsimdjson-dev and nlohmann-json3-dev: the mfprio tool reads `squeue --json` with simdjson
# and writes JSON with nlohmann-json (the library uses neither).
# libxml2-utils: the tests check that `mfprio whatif --svg` writes well-formed XML (xmllint).
packages=(meson ninja-build pkg-config g++ clang libclang-rt-dev doctest-dev libbenchmark-dev cmake libsimdjson-dev
    nlohmann-json3-dev libxml2-utils)
# `./setup.sh test` also starts a one-host Slurm cluster on localhost (tests/live) and
# compares mfprio with the real sprio and sshare; these are its daemons and commands (and
# dpkg-dev, which the site_factor recipe (examples/site_factor/README.md) uses for apt-get source).
live_packages=(slurmctld slurmd slurmdbd slurm-client munge mariadb-server dpkg-dev)
# ... and the current Slurm release built from its source (../shared/third_party, which
# Debian does not package): what its configure looks for (munge, MariaDB, JSON for squeue
# --json, hwloc, lz4, YAML).
current_slurm_packages=(libmunge-dev libmariadb-dev libjson-c-dev libhwloc-dev liblz4-dev libyaml-dev)
current_slurm_archive=${MFPRIO_SLURM_ARCHIVE:-$repo/../shared/third_party/slurm-26.05.3.tar.xz}
# ... and Flux (flux-core and flux-accounting, which Debian does not package), built from
# their sources in ../shared/third_party for tests/live/flux.sh: what their autogen and
# configure look for, and what the test itself runs (sqlite3 edits the accounting database,
# jq reads job info).
flux_packages=(autoconf automake libtool make pkg-config libc6-dev libzmq3-dev uuid-dev libjansson-dev liblz4-dev
    libarchive-dev libhwloc-dev libsqlite3-dev lua5.1 liblua5.1-0-dev lua-posix python3-dev python3-cffi python3-ply
    python3-setuptools python3-yaml python3-jsonschema libsodium-dev jq sqlite3)
flux_core_archive=${MFPRIO_FLUX_CORE_ARCHIVE:-$repo/../shared/third_party/flux-core-0.88.0.tar.xz}
flux_accounting_archive=${MFPRIO_FLUX_ACCOUNTING_ARCHIVE:-$repo/../shared/third_party/flux-accounting-0.60.0.tar.xz}
# ... and builds the Debian packages (debian/), checks them with lintian, installs them and
# uses what they install (bash-completion: where the completion goes and how bash loads it).
package_packages=(debhelper lintian bash-completion groff-base)
jobs=${MFPRIO_JOBS:-$(nproc 2>/dev/null || echo 2)}

# say TITLE: a section's heading, with the seconds since the script started; the summary
# lists how long each section took (where a slow machine spends its time).
sections=()
say() {
    sections+=("$SECONDS $*")
    printf '\n== %s [%d s]\n' "$*" "$SECONDS"
}
# section_times: each section's seconds, from the headings say printed.
section_times() {
    local i t name next
    for ((i = 0; i < ${#sections[@]}; i++)); do
        t=${sections[i]%% *}
        name=${sections[i]#* }
        next=$SECONDS
        ((i + 1 == ${#sections[@]})) || next=${sections[i + 1]%% *}
        printf '  %5d s  %s\n' $((next - t)) "$name"
    done
}
die() { printf 'setup.sh: %s\n' "$*" >&2; exit 1; }

# missing_packages NAME...: prints those of the Debian packages NAME... not installed.
missing_packages() {
    local p
    for p in "$@"; do
        [[ $(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true) == installed ]] || printf '%s\n' "$p"
    done
}

# apt_install NAME...: apt-get update, then installs NAME... without their Recommends
# (through sudo when not root). Where another apt-get or dpkg holds apt's
# locks (unattended-upgrades on a fresh machine, a second terminal), it waits for them, at most
# MFPRIO_APT_LOCK_WAIT seconds (600 by default) in all, and says so; past that it fails naming
# the lock. (apt-get update does not wait by itself: DPkg::Lock::Timeout covers dpkg's locks only.)
apt_install() {
    local sudo=() limit=${MFPRIO_APT_LOCK_WAIT:-600} waited=0 err
    ((EUID == 0)) || sudo=(sudo)
    err=$(mktemp)
    until "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update 2>"$err"; do
        if ! grep -q 'Could not get lock' "$err"; then
            cat "$err" >&2
            rm -f "$err"
            return 1
        fi
        if ((waited >= limit)); then
            echo "setup.sh: apt's lock is still held after $waited s: $(grep -m1 'Could not get lock' "$err" | sed 's/^E: //')" >&2
            rm -f "$err"
            return 1
        fi
        ((waited > 0)) || echo "setup.sh: another apt-get or dpkg holds apt's lock; waiting for it (at most $limit s)"
        sleep 5
        waited=$((waited + 5))
    done
    cat "$err" >&2
    rm -f "$err"
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=$((limit - waited + 1)) \
        install -y --no-install-recommends "$@"
}

install_deps() {
    if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
        echo "setup.sh: no apt-get here; install the equivalents of: ${packages[*]}"
        return 0
    fi
    local missing
    mapfile -t missing < <(missing_packages "${packages[@]}")
    if ((${#missing[@]} == 0)); then
        echo "setup.sh: all packages present (${packages[*]})"
        return 0
    fi
    say "installing ${missing[*]}"
    ((EUID == 0)) || command -v sudo >/dev/null 2>&1 || die "not root and no sudo: install ${missing[*]} yourself"
    apt_install "${missing[@]}" || die "could not install ${missing[*]}"
}

# install_optional_deps WHAT NAME...: installs the packages NAME... a part of the test suite
# needs (WHAT names it), where apt-get can as root; otherwise, or when the install fails,
# that part reports itself skipped.
install_optional_deps() {
    local what=$1
    shift
    command -v apt-get >/dev/null 2>&1 && command -v dpkg-query >/dev/null 2>&1 || return 0
    ((EUID == 0)) || return 0
    local missing
    mapfile -t missing < <(missing_packages "$@")
    ((${#missing[@]} == 0)) && return 0
    say "installing ${missing[*]} ($what)"
    apt_install "${missing[@]}" || echo "setup.sh: could not install ${missing[*]}: the $what will be skipped"
}

# install_package_deps: what building and checking the Debian packages needs.
install_package_deps() { install_optional_deps "Debian package checks" "${package_packages[@]}"; }

# install_live_deps: the Slurm and database packages of the live test. No daemon is started
# by the packages here (policy-rc.d refuses): the test starts its own.
install_live_deps() {
    [[ -z ${MFPRIO_NO_LIVE_SLURM:-} ]] || return 0
    local policy=/usr/sbin/policy-rc.d created=0
    if ((EUID == 0)) && [[ ! -e $policy ]] && [[ -n $(missing_packages "${live_packages[@]}") ]]; then
        printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod +x "$policy" && created=1
    fi
    install_optional_deps "live Slurm test" "${live_packages[@]}"
    ((created == 0)) || rm -f "$policy"
    [[ ! -f $current_slurm_archive ]] || install_optional_deps "current Slurm build" "${current_slurm_packages[@]}"
    [[ ! -f $flux_core_archive || ! -f $flux_accounting_archive ]] || install_optional_deps "Flux build" "${flux_packages[@]}"
}

# configure DIR [meson options...]: a fresh setup, or a reconfigure of an existing tree
# (wiped and redone if the reconfigure fails, e.g. after a meson upgrade).
configure() {
    local dir=$1
    shift
    if [[ -f $dir/meson-private/coredata.dat ]]; then
        meson setup --reconfigure "$dir" "$@" || meson setup --wipe "$dir" "$@"
    else
        meson setup "$dir" "$@"
    fi
}

# The first run builds the mfprio tool alone (its commands' translation unit, main.cpp and
# the link); the tests and benchmarks are built by `./setup.sh test`.
cmd_build() {
    install_deps
    say "building the mfprio tool into build/"
    configure build -Dexamples=true -Dtests=false -Dbenchmarks=false
    local start=$SECONDS
    meson compile -C build -j "$jobs" mfprio
    local demo=build/examples/mfprio/mfprio
    [[ -x $demo ]] || die "$demo was not built"
    echo "setup.sh: built $demo in $((SECONDS - start)) s"
    say "$demo demo"
    "$demo" demo
}

# ---- test ------------------------------------------------------------------------------

passed=0
failed=0
failures=()
skips=()
logdir=""

pass() { passed=$((passed + 1)); printf 'PASS %s\n' "$1"; }
fail() { failed=$((failed + 1)); failures+=("$1"); printf 'FAIL %s\n' "$1"; }
# skip WHAT WHY [optional]: a part of the suite that did not run, listed in the summary. In CI
# (CI=true) a skip is a failure, but for the optional parts (Flux and Maui, which Debian does
# not package: CI replays their committed captures instead).
skip() {
    if [[ ${CI:-} == true && ${3:-} != optional ]]; then
        fail "$1: skipped in CI: $2"
    else
        skips+=("$1: $2")
        printf 'SKIP %s: %s\n' "$1" "$2"
    fi
}

# run_suite NAME DIR [ARGS...]: meson test in DIR (ARGS: more options, test names); adds its
# "Ok:" to passed and its "Fail:", "Unexpected Pass:" and "Timeout:" to failed. No summary
# at all (meson test could not start) counts as one failure.
run_suite() {
    local name=$1 dir=$2 log=$logdir/$1-test.log
    shift 2
    say "$name: meson test"
    set +e
    meson test -C "$dir" --print-errorlogs --num-processes "$jobs" "$@" 2>&1 | tee "$log"
    set -e
    local ok bad
    ok=$(sed 's/\x1b\[[0-9;]*m//g' "$log" | awk '/^Ok:/ {n += $2} END {print n + 0}')
    bad=$(sed 's/\x1b\[[0-9;]*m//g' "$log" |
          awk '/^(Fail|Unexpected Pass|Timeout):/ {n += $NF} END {print n + 0}')
    if ! grep -q '^Ok:' <(sed 's/\x1b\[[0-9;]*m//g' "$log"); then
        fail "$name: meson test produced no summary"
        return
    fi
    passed=$((passed + ok))
    failed=$((failed + bad))
    ((bad == 0)) || failures+=("$name: $bad test(s), see $log")
}

# build_and_test NAME DIR [meson options...]: configure, compile, meson test. A build that
# fails counts as one failure (its tests cannot be counted).
build_and_test() {
    local name=$1 dir=$2
    shift 2
    say "$name: configure and build ($dir)"
    if ! configure "$dir" "$@" >"$logdir/$name-setup.log" 2>&1; then
        tail -n 40 "$logdir/$name-setup.log"
        fail "$name: meson setup (see $logdir/$name-setup.log)"
        return
    fi
    if ! meson compile -C "$dir" -j "$jobs" 2>&1 | tee "$logdir/$name-build.log"; then
        fail "$name: build (see $logdir/$name-build.log)"
        return
    fi
    run_suite "$name" "$dir"
}

# build_and_test_one NAME DIR TARGET TEST [meson options...]: configure, compile only TARGET,
# and run only the meson test TEST (without rebuilding the rest). A build that fails counts
# as one failure.
build_and_test_one() {
    local name=$1 dir=$2 target=$3 test=$4
    shift 4
    say "$name: configure and build $target ($dir)"
    if ! configure "$dir" "$@" >"$logdir/$name-setup.log" 2>&1; then
        tail -n 40 "$logdir/$name-setup.log"
        fail "$name: meson setup (see $logdir/$name-setup.log)"
        return
    fi
    if ! meson compile -C "$dir" -j "$jobs" "$target" 2>&1 | tee "$logdir/$name-build.log"; then
        fail "$name: build (see $logdir/$name-build.log)"
        return
    fi
    run_suite "$name" "$dir" --no-rebuild "$test"
}

# The files of the repository as a subproject would get them: tracked and untracked, minus
# what .gitignore excludes (build trees). Falls back to a plain copy without git.
copy_repo() {
    local dest=$1
    mkdir -p "$dest"
    if git -C "$repo" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        git -C "$repo" ls-files -z --cached --others --exclude-standard |
            (cd "$repo" && xargs -0 cp --parents -t "$dest" --)
    else
        (cd "$repo" && tar cf - --exclude='./build*' --exclude=./.git .) | (cd "$dest" && tar xf -)
    fi
}

consumer_checks() {
    local tmp
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/mfprio-consumer.XXXXXX")
    local prefix=$tmp/prefix

    say "install: meson install into $prefix"
    if CXX=g++ meson setup "$tmp/build-install" --prefix "$prefix" -Dtests=false -Dexamples=false \
            -Dbenchmarks=false >"$logdir/install-setup.log" 2>&1 &&
       meson install -C "$tmp/build-install" >"$logdir/install.log" 2>&1; then
        local pc=$prefix/share/pkgconfig/mfprio.pc version cflags=""
        version=$(meson introspect --projectinfo "$tmp/build-install" |
                  python3 -c 'import json, sys; print(json.load(sys.stdin)["version"])')
        read -r cflags < <(PKG_CONFIG_PATH=$prefix/share/pkgconfig pkg-config --cflags mfprio 2>/dev/null) || true
        if [[ -f $pc ]] && PKG_CONFIG_PATH=$prefix/share/pkgconfig pkg-config --exists "mfprio = $version" &&
           [[ $cflags == "-I$prefix/include" ]]; then
            pass "install: pkg-config file (mfprio $version, Cflags -I\${includedir} only)"
        else
            fail "install: pkg-config file $pc missing or wrong (Cflags: '$cflags')"
            [[ -f $pc ]] && cat "$pc"
        fi
        local h absent=0
        while IFS= read -r h; do
            [[ -f $prefix/$h ]] || { echo "not installed: $h"; absent=$((absent + 1)); }
        done < <(cd "$repo" && find include/mfprio -name '*.hpp' | sort)
        if ((absent == 0)) && [[ -f $prefix/include/mfprio/core/engine.hpp ]]; then
            pass "install: every include/mfprio header installed"
        else
            fail "install: $absent header(s) not installed"
        fi

        say "consumer: dependency('mfprio') through pkg-config"
        cp -r "$repo/tests/consumer" "$tmp/pkgconfig-consumer"
        if PKG_CONFIG_PATH=$prefix/share/pkgconfig CXX=g++ meson setup "$tmp/pkgconfig-consumer/build" \
                "$tmp/pkgconfig-consumer" --wrap-mode=nofallback -Dwerror=true >"$logdir/consumer-pkgconfig.log" 2>&1 &&
           meson compile -C "$tmp/pkgconfig-consumer/build" >>"$logdir/consumer-pkgconfig.log" 2>&1 &&
           "$tmp/pkgconfig-consumer/build/consumer"; then
            pass "consumer: built against the installed headers via pkg-config, and ran"
        else
            tail -n 40 "$logdir/consumer-pkgconfig.log"
            fail "consumer: pkg-config build or run (see $logdir/consumer-pkgconfig.log)"
        fi
    else
        tail -n 40 "$logdir/install-setup.log" "$logdir/install.log" 2>/dev/null || true
        fail "install: meson install (see $logdir/install-setup.log, install.log)"
        fail "consumer: pkg-config build not attempted (install failed)"
    fi

    say "consumer: find_package(mfprio) with CMake"
    cp -r "$repo/tests/consumer" "$tmp/cmake-consumer"
    if [[ -f $prefix/lib/cmake/mfprio/mfprioConfig.cmake && -f $prefix/lib/cmake/mfprio/mfprioConfigVersion.cmake ]] &&
       CXX=g++ cmake -G Ninja -S "$tmp/cmake-consumer" -B "$tmp/cmake-consumer/build" -DCMAKE_PREFIX_PATH="$prefix" \
            >"$logdir/consumer-cmake.log" 2>&1 &&
       cmake --build "$tmp/cmake-consumer/build" >>"$logdir/consumer-cmake.log" 2>&1 &&
       "$tmp/cmake-consumer/build/consumer"; then
        pass "consumer: built with CMake (find_package(mfprio CONFIG), mfprio::mfprio), and ran"
    else
        tail -n 40 "$logdir/consumer-cmake.log" 2>/dev/null || true
        find "$prefix" -name '*.cmake' 2>/dev/null
        fail "consumer: CMake package build or run (see $logdir/consumer-cmake.log)"
    fi
    # A version the installed package does not satisfy is refused.
    mkdir -p "$tmp/cmake-too-new"
    printf 'cmake_minimum_required(VERSION 3.16)\nproject(too_new LANGUAGES CXX)\nfind_package(mfprio 99 CONFIG REQUIRED)\n' \
        >"$tmp/cmake-too-new/CMakeLists.txt"
    if ! CXX=g++ cmake -G Ninja -S "$tmp/cmake-too-new" -B "$tmp/cmake-too-new/build" -DCMAKE_PREFIX_PATH="$prefix" \
            >"$logdir/consumer-cmake-version.log" 2>&1; then
        pass "consumer: find_package(mfprio 99) refused by mfprioConfigVersion.cmake"
    else
        fail "consumer: find_package(mfprio 99) accepted (see $logdir/consumer-cmake-version.log)"
    fi

    say "consumer: mfprio as a meson subproject"
    cp -r "$repo/tests/consumer" "$tmp/subproject-consumer"
    copy_repo "$tmp/subproject-consumer/subprojects/mfprio"
    if CXX=g++ meson setup "$tmp/subproject-consumer/build" "$tmp/subproject-consumer" \
            --force-fallback-for=mfprio -Dwerror=true >"$logdir/consumer-subproject.log" 2>&1 &&
       meson compile -C "$tmp/subproject-consumer/build" >>"$logdir/consumer-subproject.log" 2>&1 &&
       "$tmp/subproject-consumer/build/consumer"; then
        pass "consumer: built with mfprio as a subproject, and ran"
    else
        tail -n 40 "$logdir/consumer-subproject.log"
        fail "consumer: subproject build or run (see $logdir/consumer-subproject.log)"
    fi

    rm -rf "$tmp"
}

# package_checks: the Debian packages built from the tree (dpkg-buildpackage -us -uc -b),
# lintian without an error or a warning, installed with apt-get, then what an administrator
# and a developer use of them: `mfprio --version`, `man -w mfprio`, the bash completion as
# bash-completion loads it, a CMake consumer with no prefix given and a pkg-config consumer;
# then removed. As root where apt-get and debhelper are, else skipped.
package_checks() {
    say "package: the Debian packages mfprio and libmfprio-dev"
    if ((EUID != 0)) || ! command -v apt-get >/dev/null 2>&1 || ! command -v dh >/dev/null 2>&1 ||
       ! command -v lintian >/dev/null 2>&1; then
        skip package "needs root, apt-get, debhelper and lintian"
        return 0
    fi
    local tmp version
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/mfprio-package.XXXXXX")
    version=$(sed -n "s/^  version : '\(.*\)',$/\1/p" "$repo/meson.build")
    copy_repo "$tmp/mfprio"
    if ! (cd "$tmp/mfprio" && dpkg-buildpackage -us -uc -b) >"$logdir/package-build.log" 2>&1; then
        tail -n 40 "$logdir/package-build.log"
        fail "package: dpkg-buildpackage -us -uc -b (see $logdir/package-build.log)"
        rm -rf "$tmp"
        return 0
    fi
    local debs=("$tmp/mfprio_${version}_"*.deb "$tmp/libmfprio-dev_${version}_all.deb")
    pass "package: dpkg-buildpackage built $(cd "$tmp" && ls mfprio_*.deb libmfprio-dev_*.deb | tr '\n' ' ')"
    if lintian --fail-on error,warning "${debs[@]}" >"$logdir/package-lintian.log" 2>&1; then
        pass "package: lintian, no error or warning"
    else
        cat "$logdir/package-lintian.log"
        fail "package: lintian (see $logdir/package-lintian.log)"
    fi
    if ! DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y "${debs[@]}" >"$logdir/package-install.log" 2>&1; then
        tail -n 20 "$logdir/package-install.log"
        fail "package: apt-get install (see $logdir/package-install.log)"
        rm -rf "$tmp"
        return 0
    fi
    pass "package: installed with apt-get install"
    local got
    got=$(/usr/bin/mfprio --version 2>&1 || true)
    [[ $got == "mfprio $version" ]] && pass "package: mfprio --version: $got" ||
        fail "package: mfprio --version printed '$got', not 'mfprio $version'"
    got=$(man -w mfprio 2>&1 || true)
    [[ $got == /usr/share/man/man1/mfprio.1* ]] && pass "package: man -w mfprio: $got" ||
        fail "package: man -w mfprio printed '$got'"
    # As bash-completion loads it on the first Tab: by the command's name.
    got=$(bash -c '. /usr/share/bash-completion/bash_completion; _completion_loader mfprio;
        COMP_WORDS=(mfprio sprio --li); COMP_CWORD=2; _mfprio; printf "%s " "${COMPREPLY[@]}"' 2>&1 || true)
    [[ " $got " == *" --live "* ]] && pass "package: bash completes 'mfprio sprio --li' to --live" ||
        fail "package: bash completion of 'mfprio sprio --li' gave '$got'"
    cp -r "$repo/tests/consumer" "$tmp/cmake-consumer"
    if CXX=g++ cmake -G Ninja -S "$tmp/cmake-consumer" -B "$tmp/cmake-consumer/build" >"$logdir/package-cmake.log" 2>&1 &&
       cmake --build "$tmp/cmake-consumer/build" >>"$logdir/package-cmake.log" 2>&1 && "$tmp/cmake-consumer/build/consumer"; then
        pass "package: CMake consumer, find_package(mfprio) with no prefix given"
    else
        tail -n 20 "$logdir/package-cmake.log"
        fail "package: CMake consumer (see $logdir/package-cmake.log)"
    fi
    cp -r "$repo/tests/consumer" "$tmp/pkgconfig-consumer"
    if CXX=g++ meson setup "$tmp/pkgconfig-consumer/build" "$tmp/pkgconfig-consumer" --wrap-mode=nofallback \
            -Dwerror=true >"$logdir/package-pkgconfig.log" 2>&1 &&
       meson compile -C "$tmp/pkgconfig-consumer/build" >>"$logdir/package-pkgconfig.log" 2>&1 &&
       "$tmp/pkgconfig-consumer/build/consumer"; then
        pass "package: pkg-config consumer (dependency('mfprio'))"
    else
        tail -n 20 "$logdir/package-pkgconfig.log"
        fail "package: pkg-config consumer (see $logdir/package-pkgconfig.log)"
    fi
    if DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 purge -y mfprio libmfprio-dev >"$logdir/package-remove.log" 2>&1 &&
       [[ ! -e /usr/bin/mfprio && ! -e /usr/include/mfprio ]]; then
        pass "package: removed"
    else
        fail "package: apt-get purge (see $logdir/package-remove.log)"
    fi
    rm -rf "$tmp"
}

# install_plan_checks: `meson install` of a build with the tool installs bin/mfprio, and
# -Dinstall_tool=false leaves it out (read from meson's install plan, nothing compiled).
install_plan_checks() {
    say "install: the mfprio tool"
    local plan
    plan=$(meson introspect --installed build-ci-gcc 2>/dev/null || true)
    if grep -q '/bin/mfprio"' <<<"$plan"; then
        pass "install: meson install puts the mfprio tool into bindir"
    else
        fail "install: bin/mfprio not in build-ci-gcc's install plan"
    fi
    local tmp
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/mfprio-notool.XXXXXX")
    if CXX=g++ meson setup "$tmp/build" -Dtests=false -Dbenchmarks=false -Dexamples=true -Dinstall_tool=false \
            >"$logdir/install-notool.log" 2>&1 &&
       ! meson introspect --installed "$tmp/build" | grep -q '/bin/mfprio"'; then
        pass "install: -Dinstall_tool=false leaves the tool out"
    else
        fail "install: -Dinstall_tool=false (see $logdir/install-notool.log)"
    fi
    rm -rf "$tmp"
}

# apt_lock_check: apt_install waits while another process holds apt's lock. A process holds
# /var/lib/apt/lists/lock (an fcntl lock, as apt-get takes it) for 15 s; apt_install of a package
# already installed must say that it waits, wait, and then succeed. As root where apt-get is.
apt_lock_check() {
    say "apt: setup.sh waits for apt's lock"
    if ((EUID != 0)) || ! command -v apt-get >/dev/null 2>&1; then
        skip "apt lock" "needs root and apt-get"
        return 0
    fi
    local holder out t0 took
    python3 -c 'import fcntl, sys, time
f = open("/var/lib/apt/lists/lock", "a")
fcntl.lockf(f, fcntl.LOCK_EX)
print("held", flush=True)
time.sleep(15)' >"$logdir/apt-lock-holder.log" 2>&1 &
    holder=$!
    until grep -q held "$logdir/apt-lock-holder.log" 2>/dev/null || ! kill -0 "$holder" 2>/dev/null; do sleep 0.2; done
    t0=$SECONDS
    out=$(MFPRIO_APT_LOCK_WAIT=120 apt_install --no-upgrade bash 2>&1)
    local status=$?
    took=$((SECONDS - t0))
    wait "$holder" 2>/dev/null
    printf '%s\n' "$out" >"$logdir/apt-lock.log"
    if ((status == 0 && took >= 10)) && grep -q "holds apt's lock; waiting for it" <<<"$out"; then
        pass "apt: apt_install waited $took s for a held lock, then installed"
    else
        fail "apt: apt_install with apt's lock held (status $status after $took s; see $logdir/apt-lock.log)"
    fi
}

# readme_recipe_check: tests/readme_recipe.sh, the site_factor recipe (examples/site_factor/README.md) run as written
# (apt in a scratch directory, the plugin into a scratch plugin directory): about three
# minutes. The plugin it installs is the one the live site_factor test loads into Debian's
# slurmctld (recipe_plugin_dir).
recipe_plugin_dir=""
readme_recipe_check() {
    say "readme: the site_factor recipe, as written"
    local status=0 log=$logdir/readme-recipe.log scratch=$repo/build-ci-gcc/readme-recipe
    bash "$repo/tests/readme_recipe.sh" "$scratch" >"$log" 2>&1 || status=$?
    if ((status == 0)); then
        recipe_plugin_dir=$scratch/plugins
        pass "readme: the site_factor recipe builds and installs the plugin on this Debian 12, apt intact"
    elif ((status == 77)); then
        skip "readme recipe" "$(grep -m1 -o 'skipped: .*' "$log" | sed 's/^skipped: //')"
    else
        tail -n 30 "$log"
        fail "readme: the site_factor recipe (see $log)"
    fi
}

# run_live NAME SCRIPT SUMMARY: tests/live/SCRIPT with the gcc build's mfprio, its lines
# matching SUMMARY shown; exit 77 is a skip (not a failure).
run_live() {
    local name=$1 script=$2 summary=$3 optional=${4:-} log out status=0
    log=$logdir/live-${name,,}.log
    out=$repo/build-ci-gcc/live-${name,,}
    say "live $name: tests/live/$script"
    rm -rf "$out"
    bash "$repo/tests/live/$script" "$out" "$repo/build-ci-gcc/examples/mfprio/mfprio" >"$log" 2>&1 || status=$?
    grep -E "$summary" "$log" || true
    if ((status == 0)); then
        pass "live $name: mfprio matches a real $name"
    elif ((status == 77)); then
        skip "live $name" "$(grep -m1 -o 'skipped: .*' "$log" | sed 's/^skipped: //') (see $log)" "$optional"
    else
        tail -n 60 "$log"
        fail "live $name (see $log)"
    fi
}

# live_checks: tests/live/run.sh, a real slurmctld under Fair Tree and NO_FAIR_TREE: `mfprio
# sprio/sshare --live` against sprio and sshare byte for byte, the bundles replayed offline,
# --verify; skipped where it cannot run (not root, the packages missing, or
# MFPRIO_NO_LIVE_SLURM set), about two and a half minutes. Then tests/live/flux.sh with the
# Flux on PATH or the one build_flux makes (Debian packages none): a real instance filled,
# edited and recomputed, an administrator's operations on 330 jobs, every scenario replayed
# through `mfprio queue --from --check`, and `--live --check` against the instance, and
# mfprio's own jobtap plugin in an instance (flux_plugin_check). Then
# tests/live/maui.sh where MFPRIO_MAUI names a Maui 3.3 build (none is packaged; tests/README.md, "A
# real Maui"): Maui's simulator on three scenarios, each capture replayed with `mfprio
# diagnose --from --check`; skipped otherwise (the unit tests replay tests/data/maui).
# Between them, tests/live/site_factor.sh: site_factor/mfprio as the recipe of examples/site_factor/README.md built it from
# Debian's source of the installed Slurm (readme_recipe_check), loaded by the test cluster, and sprio against
# `mfprio sprio --live --site-policy` for two policies and a malformed one, about five minutes.
live_checks() {
    run_live Slurm run.sh '^live Slurm: (skipped|mfprio and|DIFFERENT|[0-9]+ differences)'
    local plugin
    if [[ -n $recipe_plugin_dir ]]; then
        MFPRIO_SITE_PLUGIN_DIR=$recipe_plugin_dir run_live site_factor site_factor.sh '^live site_factor: '
    else
        skip "live site_factor" "the recipe of examples/site_factor/README.md did not build the plugin for the installed Slurm (see $logdir/readme-recipe.log)"
    fi
    # The same on the current Slurm release, built from its source: about 15 minutes on two
    # cores the first time, then 20 for its live tests. Where that would take the whole run
    # past CI's 90 minutes (a slow machine, nothing cached), it is skipped and says so.
    local root version budget n
    budget=$((20 + $(current_slurm_cached && echo 0 || echo 15)))
    if (((SECONDS - test_start) / 60 + budget > ${MFPRIO_CI_MINUTES:-85})); then
        skip "live Slurm (current release)" "$(((SECONDS - test_start) / 60)) minutes in, its build and tests (about $budget minutes) would pass the run's limit"
    elif [[ -z ${MFPRIO_NO_LIVE_SLURM:-} ]] && say "current Slurm: ${current_slurm_archive##*/}, built once per machine" &&
        root=$(build_current_slurm); then
        # (from its header's SLURM_VERSION_NUMBER, 0xMMmmuu: its commands want a slurm.conf
        # even for --version)
        n=$(sed -n 's/^#define SLURM_VERSION_NUMBER //p' "$root/prefix/include/slurm/slurm_version.h")
        version=$(printf '%d.%02d.%d' $((n >> 16)) $(((n >> 8) & 255)) $((n & 255)))
        MFPRIO_SLURM_PREFIX=$root/prefix run_live "Slurm-$version" run.sh '^live Slurm: (skipped|mfprio and|DIFFERENT|[0-9]+ differences)'
        side_by_side_check "$root"
        if plugin=$(build_site_plugin_for "$root"); then
            MFPRIO_SLURM_PREFIX=$root/prefix MFPRIO_SITE_PLUGIN_DIR=$plugin \
                run_live "site_factor-$version" site_factor.sh '^live site_factor: '
        else
            fail "live site_factor-$version: the plugin did not build (see $logdir/site-plugin-current.log)"
        fi
    else
        skip "live Slurm (current release)" "not built (see $logdir/slurm-current.log)"
    fi
    # Flux: as installed on PATH, else built from ../shared/third_party (about eight minutes
    # on two cores the first time, kept outside the checkout), then about five minutes of
    # tests. Without either (no archives, not root), or where the build and tests would take
    # the run past its limit, it is skipped and says so (CI replays tests/data/flux instead).
    local flux_root=""
    budget=$((6 + $([[ -f $(flux_cache_root)/built ]] && echo 0 || echo 9)))
    if ((EUID == 0)) && ! command -v flux >/dev/null 2>&1 && [[ -f $flux_core_archive && -f $flux_accounting_archive ]] &&
        (((SECONDS - test_start) / 60 + budget > ${MFPRIO_CI_MINUTES:-85})); then
        skip "live Flux" "$(((SECONDS - test_start) / 60)) minutes in, its build and tests (about $budget minutes) would pass the run's limit" optional
    elif ((EUID == 0)) && ! command -v flux >/dev/null 2>&1 && [[ -f $flux_core_archive && -f $flux_accounting_archive ]]; then
        say "Flux: ${flux_core_archive##*/} and ${flux_accounting_archive##*/}, built once per machine"
        if flux_root=$(build_flux); then
            PATH=$flux_root/prefix/bin:$PATH run_live Flux flux.sh '^live Flux: '
            PATH=$flux_root/prefix/bin:$PATH flux_plugin_check
        else
            fail "live Flux: flux-core and flux-accounting did not build (see $logdir/flux-build.log)"
        fi
    else
        run_live Flux flux.sh '^live Flux: ' optional
        ! command -v flux >/dev/null 2>&1 || flux_plugin_check
    fi
    run_live Maui maui.sh '^live Maui: ' optional
}

# flux_plugin_check: examples/flux_priority's mfprio_priority.so (and bench's
# reprioritize_timer.so) built against the flux-core on PATH (its pkg-config files beside it:
# -Dflux=enabled, those targets alone), then tests/live/flux_plugin.sh: the plugin in a real
# instance against flux-accounting's own plugin and against `mfprio queue --live/--from
# --check`, about a minute; then bench/flux_plugin/run.sh on 500 jobs, one round (it runs).
flux_plugin_check() {
    local log=$logdir/flux-plugin-build.log prefix build=$repo/build-flux
    prefix=$(dirname "$(dirname "$(command -v flux)")")
    say "mfprio_priority.so against $prefix"
    if PKG_CONFIG_PATH=$prefix/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH} \
        configure "$build" -Dflux=enabled -Dtests=false -Dbenchmarks=true -Dwerror=true >"$log" 2>&1 &&
        ninja -C "$build" examples/flux_priority/mfprio_priority.so bench/reprioritize_timer.so >>"$log" 2>&1; then
        MFPRIO_FLUX_PLUGIN=$build/examples/flux_priority/mfprio_priority.so \
            run_live Flux-plugin flux_plugin.sh '^live Flux plugin: '
        if bash "$repo/bench/flux_plugin/run.sh" "$build/examples/flux_priority/mfprio_priority.so" \
            "$build/bench/reprioritize_timer.so" 500 1 >"$logdir/flux-plugin-bench.log" 2>&1; then
            pass "bench/flux_plugin/run.sh (500 jobs, one round)"
        else
            fail "bench/flux_plugin/run.sh: see $logdir/flux-plugin-bench.log"
        fi
    else
        fail "live Flux plugin: mfprio_priority.so did not build (see $log)"
    fi
}

# build_current_slurm: the Slurm release of current_slurm_archive, configured (with munge,
# as the test cluster runs it) and installed under a directory of its own outside the
# checkout, /var/cache/mfprio/slurm-<first 16 hex digits of the archive's SHA-256> (or under
# MFPRIO_CACHE), once per machine: a later run finds it built and reuses it. Prints that
# directory (src/: the configured source tree, whose headers the site plugin needs; prefix/:
# the daemons, commands and plugins). Fails (its live tests are then skipped) without root or
# the archive, or when the build fails (the log says why).
build_current_slurm() {
    local log=$logdir/slurm-current.log root
    {
        ((EUID == 0)) && [[ -f $current_slurm_archive ]] || return 1
        root=$(current_slurm_root)
        if [[ ! -f $root/built ]]; then
            rm -rf "$root"
            mkdir -p "$root/src"
            tar xJf "$current_slurm_archive" -C "$root/src" --strip-components=1 || return 1
            (cd "$root/src" &&
                ./configure --prefix="$root/prefix" --sysconfdir="$root/prefix/etc" --disable-debug --disable-static &&
                make -j"$jobs" && make install) || return 1
            touch "$root/built"
        fi
    } >"$log" 2>&1
    echo "$root"
}

# current_slurm_root: where build_current_slurm keeps its build; current_slurm_cached: true
# when the build is there.
current_slurm_root() {
    echo "${MFPRIO_CACHE:-/var/cache/mfprio}/slurm-$(sha256sum "$current_slurm_archive" | cut -c1-16)"
}
current_slurm_cached() {
    [[ -f $current_slurm_archive && -f $(current_slurm_root)/built ]]
}

# build_flux: flux-core and flux-accounting from flux_core_archive and
# flux_accounting_archive (../shared/third_party/README.md's recipe), installed under a
# directory of their own outside the checkout, /var/cache/mfprio/flux-<first 16 hex digits of
# the SHA-256 of both archives> (or under MFPRIO_CACHE), once per machine. Prints that
# directory (prefix/ holds bin/flux). Fails without root, or when a build fails (the log says
# why).
build_flux() {
    local log=$logdir/flux-build.log root prefix
    {
        ((EUID == 0)) || return 1
        root=$(flux_cache_root)
        prefix=$root/prefix
        if [[ ! -f $root/built ]]; then
            rm -rf "$root"
            mkdir -p "$root/core" "$root/accounting"
            tar xJf "$flux_core_archive" -C "$root/core" --strip-components=1 || return 1
            tar xJf "$flux_accounting_archive" -C "$root/accounting" --strip-components=1 || return 1
            # An archive has no .git: the version comes from FLUX_VERSION, and flux-accounting's
            # AC_INIT asks git describe for its own.
            (cd "$root/core" && FLUX_VERSION=0.88.0 ./autogen.sh &&
                PYTHON=/usr/bin/python3 ./configure --prefix="$prefix" --disable-docs &&
                make -j"$jobs" && make install) || return 1
            (cd "$root/accounting" &&
                sed -i 's/m4_esyscmd(\[git describe --always | awk .*\]))/[0.60.0])/' configure.ac && ./autogen.sh &&
                PATH=$prefix/bin:$PATH PYTHON=/usr/bin/python3 PKG_CONFIG_PATH=$prefix/lib/pkgconfig \
                    ./configure --prefix="$prefix" --disable-docs &&
                make -j"$jobs" CPPFLAGS=-I"$prefix/include" && make install CPPFLAGS=-I"$prefix/include") || return 1
            touch "$root/built"
        fi
    } >"$log" 2>&1
    echo "$root"
}

# flux_cache_root: where build_flux keeps its build.
flux_cache_root() {
    echo "${MFPRIO_CACHE:-/var/cache/mfprio}/flux-$(cat "$flux_core_archive" "$flux_accounting_archive" 2>/dev/null | sha256sum | cut -c1-16)"
}

# build_site_plugin_for ROOT: site_factor/mfprio for the Slurm of build_current_slurm's ROOT
# (its configured source tree), in build-site-current/; prints the plugin's directory.
build_site_plugin_for() {
    local root=$1 log=$logdir/site-plugin-current.log
    {
        configure "$repo/build-site-current" -Dslurm_source="$root/src" -Dtests=false -Dbenchmarks=false -Dwerror=true &&
            ninja -C "$repo/build-site-current" examples/site_factor/site_factor_mfprio.so
    } >"$log" 2>&1 || return 1
    echo "$repo/build-site-current/examples/site_factor"
}

# side_by_side_check ROOT: bench/slurm_side_by_side built against build_current_slurm's
# ROOT (its source tree, built in place) and run on small inputs: Slurm's own
# priority/multifactor code and mfprio must agree to the bit on every job and association
# before it times anything (bench/README.md, "slurm_side_by_side"). In build-sbs/.
side_by_side_check() {
    local root=$1 log=$logdir/slurm-side-by-side.log
    say "slurm_side_by_side against ${current_slurm_archive##*/}"
    if {
        configure "$repo/build-sbs" -Dslurm_source="$root/src" -Dtests=false -Dbenchmarks=true -Dwerror=true &&
            ninja -C "$repo/build-sbs" bench/slurm_side_by_side &&
            MFPRIO_BENCH_SMALL=1 "$repo/build-sbs/bench/slurm_side_by_side"
    } >"$log" 2>&1; then
        pass "slurm_side_by_side (Slurm's own code, small inputs)"
    else
        fail "slurm_side_by_side: see $log"
    fi
}

cmd_test() {
    install_deps
    install_package_deps
    install_live_deps
    logdir=$repo/build-logs
    rm -rf "$logdir"
    mkdir -p "$logdir"
    local start=$SECONDS
    test_start=$SECONDS

    # gcc, warnings as errors, optimized (-O2, so that the optimizer's warnings are on) with
    # assertions on and without debug information: -g nearly doubles gcc's compile time of
    # the test files (56 against 32 s for tests/queue_dynamic.cpp), and this build's failures
    # are read from the tests' messages, not in a debugger. Benchmarks are built (always -O3
    # -DNDEBUG, see bench/meson.build) and smoke-run by meson test.
    CXX=g++ build_and_test gcc build-ci-gcc \
        -Dwerror=true -Doptimization=2 -Ddebug=false -Db_ndebug=false \
        -Dtests=true -Dexamples=true -Dbenchmarks=true

    # clang, AddressSanitizer + UBSan, debug; no benchmarks (sanitized timings mean nothing).
    export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
    export ASAN_OPTIONS=abort_on_error=1:detect_leaks=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1
    CXX=clang++ build_and_test clang-asan-ubsan build-ci-clang \
        -Dwerror=true -Dbuildtype=debug -Db_sanitize=address,undefined -Db_lundef=false \
        -Dtests=true -Dexamples=true -Dbenchmarks=false
    unset UBSAN_OPTIONS ASAN_OPTIONS

    # clang, ThreadSanitizer, only the tests of what starts threads (the reprioritizer's
    # worker thread, the snapshot channel's readers, queue and fair-share passes on several
    # threads). A race report fails the test (TSan's exit code).
    export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1
    CXX=clang++ build_and_test_one clang-tsan build-ci-tsan mfprio_queue_tests queue \
        -Dwerror=true -Dbuildtype=debugoptimized -Db_ndebug=false -Db_sanitize=thread -Db_lundef=false \
        -Dtests=true -Dexamples=false -Dbenchmarks=false
    unset TSAN_OPTIONS

    consumer_checks
    install_plan_checks
    package_checks
    apt_lock_check
    readme_recipe_check
    live_checks

    local f
    say "summary ($((SECONDS - start)) s, logs in $logdir)"
    section_times
    for f in "${failures[@]+"${failures[@]}"}"; do printf '  failed: %s\n' "$f"; done
    for f in "${skips[@]+"${skips[@]}"}"; do printf '  skipped: %s\n' "$f"; done
    printf '%d passed, %d failed, %d skipped\n' "$passed" "$failed" "${#skips[@]}"
    ((failed == 0))
}

case ${1:-build} in
    build) cmd_build ;;
    test) cmd_test ;;
    deps) install_deps ;;
    -h | --help | help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//' ;;
    *) die "unknown command '$1' (use: ./setup.sh [build|test|deps])" ;;
esac
