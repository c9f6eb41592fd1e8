#pragma once
// Plain evaluations of every fair-share algorithm, written from the real systems' formulas in
// their order and floating types, one association at a time, with none of the library's
// sweeps, batches, shortcuts or threads: what the library's passes must give bit for bit.
// Sources: Slurm's priority_multifactor.c (`set_assoc_usage_norm`, `_set_assoc_usage_efctv`,
// `_set_usage_efctv`, `_depth_oblivious_set_usage_efctv`, `priority_p_calc_fs_factor`),
// assoc_mgr.c (`_normalize_assoc_shares_traditional`, `_normalize_assoc_shares_fair_tree`),
// fair_tree.c (`_calc_assoc_fs`, `_calc_tree_fs`), as summed up in reference slurm.md 3.1-3.3;
// flux-accounting's weighted tree as reference flux_maui.md A2.5 describes it.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include <mfprio/fairshare/columns.hpp>
#include <mfprio/fairshare/flux_tree.hpp>
#include <mfprio/fairshare/tree.hpp>

namespace fairshare_test {

namespace fs = mfprio::fairshare;

inline constexpr long double oracle_inf = std::numeric_limits<long double>::infinity();
inline constexpr long double oracle_no_val = 4294967294.0L; // Slurm's (long double) NO_VAL

/// pow from the C library for sure (volatile: no compiler rewrites pow(2, y) into exp2).
inline double real_pow(double x, double y) {
    volatile double base = x;
    volatile double exponent = y;
    return std::pow(base, exponent);
}

/// Slurm's `set_assoc_usage_norm` for every association: raw / root raw in long double, 0
/// when the root has no usage, capped at 1.
inline std::vector<long double> slurm_usage_norm(const fs::tree& t) {
    std::vector<long double> un(t.size(), 0.0L);
    const long double root = t.usage_raw[0];
    for (std::uint32_t a = 0; a < t.size(); ++a) {
        if (root == 0.0L) continue;
        un[a] = t.usage_raw[a] / root;
        if (un[a] > 1.0L) un[a] = 1.0L;
    }
    return un;
}

/// Slurm's `_normalize_assoc_shares_traditional` for every association, literally: a
/// FairShare=parent association copies its fs parent's value; any other starts at 1.0 and
/// walks its direct-parent chain up to (not including) the root, setting 0 where a level has
/// no shares and otherwise multiplying by (double)shares / (double)level_shares, skipping
/// FairShare=parent links. Lineage order puts every fs parent first.
inline std::vector<double> slurm_classic_shares(const fs::tree& t) {
    std::vector<double> s(t.size(), 0.0);
    for (std::uint32_t a = 0; a < t.size(); ++a) {
        if (a != 0 && t.shares_raw[a] == fs::use_parent) {
            s[a] = s[t.fs_parent[a]];
            continue;
        }
        s[a] = 1.0;
        for (std::uint32_t x = a; x != 0; x = t.parent[x]) {
            if (t.shares_raw[x] == fs::use_parent) continue;
            if (t.level_shares[x] == 0)
                s[a] = 0;
            else
                s[a] *= static_cast<double>(t.shares_raw[x]) / static_cast<double>(t.level_shares[x]);
        }
    }
    return s;
}

/// Slurm's `priority_p_calc_fs_factor(usage_efctv, shares_norm)`: 0 when S <= 0, else
/// pow(2.0, -((UE / S) / damp)) with UE and S long double, damp an unsigned 16-bit integer,
/// the exponent converted to double for C's pow.
inline double slurm_fs_factor(long double ue, long double s, std::uint16_t damp) {
    if (s <= 0) return 0.0;
    return real_pow(2.0, static_cast<double>(-((ue / s) / damp)));
}

/// The classic family's columns before the pass: Slurm's classic shares, the root's UE 1.0
/// (Slurm's init) and its factor, the formula's value at UE 1 and S 1.
inline fs::columns slurm_classic_start(const fs::tree& t, std::uint16_t damp) {
    fs::columns c;
    c.shares_norm = slurm_classic_shares(t);
    c.usage_efctv.assign(t.size(), 0.0L);
    c.fs_factor.assign(t.size(), 0.0);
    c.usage_efctv[0] = 1.0L;
    c.fs_factor[0] = slurm_fs_factor(1.0L, c.shares_norm[0], damp);
    return c;
}

/// Slurm's classic pass (PriorityFlags=NO_FAIR_TREE), association by association:
/// `_set_assoc_usage_efctv` then `_set_usage_efctv` for UE, `priority_p_calc_fs_factor` for
/// F (of the fs parent for FairShare=parent).
inline fs::columns slurm_classic(const fs::tree& t, std::uint16_t damp) {
    const std::size_t n = t.size();
    fs::columns c = slurm_classic_start(t, damp);
    const std::vector<long double> un = slurm_usage_norm(t);
    for (std::uint32_t a = 1; a < n; ++a) {
        const std::uint32_t p = t.fs_parent[a];
        if (p == 0) {
            c.usage_efctv[a] = un[a];
        } else if (t.shares_raw[a] == fs::use_parent) {
            c.usage_efctv[a] = c.usage_efctv[p];
        } else {
            const long double ua_child = un[a];
            const long double ue_parent = c.usage_efctv[p];
            const std::uint32_t s_child = t.shares_raw[a];
            const std::uint32_t s_all_siblings = t.level_shares[a];
            if (!s_all_siblings)
                c.usage_efctv[a] = ue_parent;
            else
                c.usage_efctv[a] = ua_child + (ue_parent - ua_child) * (s_child / static_cast<long double>(s_all_siblings));
        }
        const std::uint32_t f = t.shares_raw[a] == fs::use_parent ? p : a;
        c.fs_factor[a] = slurm_fs_factor(c.usage_efctv[f], c.shares_norm[f], damp);
    }
    return c;
}

/// Slurm's DEPTH_OBLIVIOUS pass (classic shares, `_depth_oblivious_set_usage_efctv`, the
/// classic factor) in the types of Slurm's Linux code (logl, long double k), with real log
/// and pow calls, except k's square, which compiled Slurm computes as a multiplication (gcc
/// and clang turn powl(y, 2) into y * y from -O1 on). The siblings' usage sum is Slurm's sum
/// over the fs parent's children list in its order, skipping FairShare=parent children; it
/// is the same for every child of a parent, so it is added up once per parent (Slurm adds it
/// up again for each child, in the same order, to the same value). `powers` counts the
/// associations whose exponent k is not 1.
inline fs::columns slurm_depth_oblivious(const fs::tree& t, std::uint16_t damp, std::size_t& powers) {
    const std::size_t n = t.size();
    fs::columns c = slurm_classic_start(t, damp);
    const std::vector<long double> un = slurm_usage_norm(t);
    std::vector<long double> sibling_un(n, 0.0L); // per fs parent
    for (std::uint32_t p = 0; p < n; ++p)
        for (const std::uint32_t x : t.children_of(p))
            if (t.shares_raw[x] != fs::use_parent) sibling_un[p] += un[x];
    for (std::uint32_t a = 1; a < n; ++a) {
        const std::uint32_t p = t.fs_parent[a];
        const double s = c.shares_norm[a];
        long double ue = un[a];
        if (p == 0) {
            ue = un[a];
        } else if (t.shares_raw[a] == fs::use_parent) {
            ue = c.usage_efctv[p];
        } else {
            const long double parent_ue = c.usage_efctv[p];
            const double parent_s = c.shares_norm[p];
            if (s != 0.0 && parent_s != 0.0 && parent_ue != 0.0L && un[a] != 0.0L) {
                const long double r_p = parent_ue / static_cast<long double>(parent_s);
                const long double r_s = sibling_un[p] / static_cast<long double>(parent_s);
                const long double r_l = (un[a] / static_cast<long double>(s)) / r_s;
                long double k = 1.0L;
                if (r_p != 0.0L && r_l != 0.0L && std::log(r_p) * std::log(r_l) < 0.0L) {
                    const long double y = 5.0L * std::log(r_p);
                    k = 1.0L / (1.0L + y * y);
                }
                if (k != 1.0L) ++powers;
                ue = r_p * real_pow(static_cast<double>(r_l), static_cast<double>(k)) * static_cast<long double>(s);
            }
        }
        c.usage_efctv[a] = ue;
        const std::uint32_t f = t.shares_raw[a] == fs::use_parent ? p : a;
        c.fs_factor[a] = slurm_fs_factor(c.usage_efctv[f], c.shares_norm[f], damp);
    }
    return c;
}

/// Slurm's Fair Tree (reference slurm.md 3.3.1, 3.3.2; with `merge`, 3.3.3 rule 3 as
/// documented): per association `_calc_assoc_fs` (S level-local, from the fs parent for
/// FairShare=parent; U = usage / fs parent's usage; LF), then the recursive ranking walk,
/// std::stable_sort on the lineage-ordered lists (mfprio's deterministic order for ties).
/// `out` holds the factors, `lf` LevelFS, `s` the shares and `u` the usage ratios.
struct naive_fair_tree {
    const fs::tree& t;
    bool merge;
    std::vector<long double> lf, u;
    std::vector<double> s, out;
    std::uint32_t rank, rnt;

    naive_fair_tree(const fs::tree& tr, bool m)
        : t(tr), merge(m), lf(tr.size(), oracle_no_val), u(tr.size(), 0.0L), s(tr.size(), 0.0), out(tr.size(), 0.0),
          rank(static_cast<std::uint32_t>(tr.user_count)), rnt(rank) {
        for (std::uint32_t a = 1; a < t.size(); ++a) {
            const std::uint32_t sa = t.shares_raw[a] == fs::use_parent ? t.fs_parent[a] : a;
            const double S = (sa == 0 || t.level_shares[sa] == 0)
                                 ? 0.0
                                 : static_cast<double>(t.shares_raw[sa]) / static_cast<double>(t.level_shares[sa]);
            const long double pu = t.usage_raw[t.fs_parent[a]];
            const long double U = pu != 0 ? t.usage_raw[a] / pu : 0.0L;
            s[a] = S;
            u[a] = U;
            if (t.shares_raw[a] == fs::use_parent)
                lf[a] = t.user[a] ? oracle_inf : oracle_no_val;
            else if (S == 0)
                lf[a] = 0;
            else if (U == 0)
                lf[a] = oracle_inf;
            else
                lf[a] = S / U;
        }
        std::vector<std::uint32_t> kids(t.children_of(0).begin(), t.children_of(0).end());
        visit(kids, false);
    }
    void visit(std::vector<std::uint32_t> sib, bool account_tied) {
        std::stable_sort(sib.begin(), sib.end(), [&](std::uint32_t x, std::uint32_t y) {
            if (lf[x] != lf[y]) return lf[x] > lf[y];
            return t.user[x] > t.user[y];
        });
        long double prev = oracle_no_val;
        for (std::size_t i = 0; i < sib.size(); ++i) {
            const std::uint32_t a = sib[i];
            const bool tied = (i == 0 && account_tied) ? true : prev == lf[a];
            if (t.user[a]) {
                if (!tied) rank = rnt;
                out[a] = rank / static_cast<double>(t.user_count);
                --rnt;
            } else {
                std::vector<std::uint32_t> kids(t.children_of(a).begin(), t.children_of(a).end());
                while (merge && i + 1 < sib.size() && !t.user[sib[i + 1]] && lf[sib[i + 1]] == lf[a]) {
                    ++i;
                    kids.insert(kids.end(), t.children_of(sib[i]).begin(), t.children_of(sib[i]).end());
                }
                visit(kids, tied);
            }
            prev = lf[a];
        }
    }
};

/// flux-accounting's weighted tree (reference flux_maui.md A2.5) with mfprio's deterministic
/// ties: usage summed up the direct parents in double, each child's weight (shares / sibling
/// shares) / (usage / sibling usage), FairShare=parent read as shares 1; recursive,
/// std::stable_sort of lineage-ordered lists by weight, tie groups as runs of neighbours
/// within the epsilon, users of a group first, tied banks merged.
struct naive_flux {
    static constexpr double two_64 = 18446744073709551616.0; // double(UINT64_MAX) + 1

    const fs::tree& t;
    std::vector<std::vector<std::uint32_t>> kids; // direct children, lineage order
    std::vector<double> usage, w, out;
    std::uint64_t rank;
    explicit naive_flux(const fs::tree& tr)
        : t(tr), kids(tr.size()), usage(tr.size(), 0.0), w(tr.size(), 0.0), out(tr.size(), 0.0), rank(tr.user_count) {
        for (std::uint32_t a = 1; a < t.size(); ++a) kids[t.parent[a]].push_back(a);
        for (std::uint32_t a = static_cast<std::uint32_t>(t.size()); a-- > 1;) {
            if (t.user[a]) usage[a] = static_cast<double>(t.usage_raw[a]);
            usage[t.parent[a]] += usage[a];
        }
        for (std::uint32_t p = 0; p < t.size(); ++p) {
            std::uint64_t ss = 0;
            double us = 0;
            for (auto k : kids[p]) {
                ss += t.shares_raw[k] == fs::use_parent ? 1u : t.shares_raw[k];
                us += usage[k];
            }
            for (auto k : kids[p]) {
                const std::uint64_t sh = t.shares_raw[k] == fs::use_parent ? 1u : t.shares_raw[k];
                w[k] = sh == 0 ? 0.0 : std::fabs(usage[k]) < 1e-9 ? two_64 : (double(sh) / double(ss)) / (usage[k] / us);
            }
        }
        visit(kids[0]);
    }
    void visit(std::vector<std::uint32_t> sib) {
        std::stable_sort(sib.begin(), sib.end(), [&](std::uint32_t x, std::uint32_t y) {
            if (w[x] != w[y]) return w[x] > w[y];
            return t.user[x] > t.user[y];
        });
        for (std::size_t i = 0; i < sib.size();) {
            std::size_t j = i + 1;
            while (j < sib.size() && fs::flux_weights_tie(w[sib[j - 1]], w[sib[j]])) ++j;
            std::uint64_t n_users = 0;
            std::vector<std::uint32_t> merged;
            for (std::size_t k = i; k < j; ++k) {
                if (t.user[sib[k]]) {
                    out[sib[k]] = double(rank) / double(t.user_count);
                    ++n_users;
                } else {
                    merged.insert(merged.end(), kids[sib[k]].begin(), kids[sib[k]].end());
                }
            }
            rank -= n_users;
            if (!merged.empty()) visit(merged);
            i = j;
        }
    }
};

/// The same bits: doubles and x87 long doubles (sign, exponent and significand; the six
/// padding bytes of an 80-bit long double are not compared).
inline bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }
inline bool same_bits(long double a, long double b) {
    if (std::isnan(a) && std::isnan(b)) return true;
    constexpr std::size_t used = std::numeric_limits<long double>::digits == 64 ? 10 : sizeof(long double);
    return std::memcmp(&a, &b, used) == 0;
}

} // namespace fairshare_test
