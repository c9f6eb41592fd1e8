#pragma once
/// \file
/// maui.cfg: the weights, caps, options and credentials of Maui's job prioritization
/// (reference B1-B5; seed 002).
///
/// File syntax:
/// - A line is `NAME VALUE...`, the pieces separated by spaces or tabs. `#` starts a comment
///   that runs to the end of the line; blank lines are skipped; a CR before the LF is
///   dropped. Errors give the 1-based line and column (in bytes) of the piece at fault.
/// - Parameter names are matched case-insensitively; values of keywords (TRUE, DEDICATEDPS,
///   QUEUEPOLICY...) too. Other parameters are ignored with the rest of their line (maui.cfg has hundreds: RMCFG, ADMIN1, SERVERHOST...), and so is any parameter
///   written with an index other than the `*CFG` ones (`QUEUETIMEWEIGHT[batch] 5`: a
///   per-partition weight, which Maui 3.3 never reads, B1).
/// - An option mfprio uses (below) needs exactly one value: no value, or text after the
///   value, is an error. So is `NAME=VALUE` for a used NAME (Maui separates name and value
///   by white space; the line would otherwise be silently ignored).
/// - The same parameter given twice: the last one wins, as in Maui (both are checked).
/// - Any malformed option value is an error naming the file, line, column of the value,
///   the parameter as written and what is wrong. On an error nothing but the error is
///   returned.
/// - Warnings (`maui_cfg::warnings`, printed by `mfprio lint` and `mfprio diagnose`) note
///   what Maui 3.3 accepts but reads otherwise than it looks: the weights and caps below,
///   FSDEPTH above 24, FSDECAY above 1, names Maui 3.3 does not know (the documentation's
///   SERVWEIGHT, TARGWEIGHT, SERVICECAP, USAGECONSUMEDWEIGHT..., PREEMPTPRIOMARGIN, which
///   Maui 3.3 ignores and so does mfprio) and unknown names ending in WEIGHT or CAP, with
///   the closest known name.
///
/// Weights and caps, as Maui 3.3 reads them (`MCfgProcessLine`, `MFSProcessOConfig`):
/// - Subcomponent weights and the caps (the `weight_key`s and `cap_key`s of
///   `maui::subcomponents` and the component caps): the first value read as C's `strtol`
///   with base 0 (`010` is octal 8, `0x10` is 16, `1.5` is 1, `10abc` is 10) and cast to a
///   32-bit int. A result of -1 is refused and the value before it stays (the code default
///   or an earlier line): `MCfgProcessLine` reports "parameter has invalid value" for an
///   integer parameter of -1 and assigns nothing. That covers a written `-1`, a value
///   `strtol` cannot read (`ten`), a 0 not written with a leading `0`, a missing value and
///   a number whose 32-bit cast is -1 (`4294967295`). Each of these, and text after the
///   value, is accepted with a warning.
/// - Component weights (SERVICEWEIGHT ... USAGEWEIGHT): `strtol` base 0 as a 64-bit long;
///   `N%` is a weight of 10; a value with no digits is 0 (warnings).
/// - ATTRATTRWEIGHT, ATTRSTATEWEIGHT and the ATTR caps are always 0 in Maui 3.3 (read as
///   strings, stored from an integer that is never set): a non-zero value is a warning.
/// - Names Maui 3.3 reads: every `weight_key` and `cap_key` above except SERVICECAP
///   (Maui's is `SERVICEWCAP`), EXECUTIONTIMEWEIGHT and EXECUTIONTIMECAP (Maui's are
///   `USAGEEXECUTIONTIMEWEIGHT` and `USAGEEXECUTIONTIMECAP`), UPROCCAP and UJOBCAP (none);
///   and the old fair-share names `UFSWEIGHT` `GFSWEIGHT` `AFSWEIGHT` (FSUSERWEIGHT ...),
///   `SERVICETARGETWEIGHT` (SERVICEWEIGHT) and `DIRECTSPECWEIGHT` (CREDWEIGHT).
/// - A cap <= 0 means no cap.
///
/// Options:
/// - `XFMINWCLIMIT`: a Maui time (see `parse_maui_time`); a negative value (`-1`) means no
///   minimum and is stored as 0.
/// - `FSPOLICY`: NONE, DEDICATEDPS, DEDICATEDPES or UTILIZEDPS; TRUE/ON/YES mean
///   DEDICATEDPS and FALSE/OFF/NO mean NONE. A trailing `%` (`DEDICATEDPS%`) turns on
///   `options::fs_percent_based`; without it the flag is off.
/// - `FSINTERVAL`: a Maui time greater than 0. `FSDEPTH`: an integer of at least 1; above
///   24 Maui 3.3 takes 24 (a warning). `FSDECAY`: a number greater than 0 (above 1 a
///   warning: older windows then weigh more).
/// - `JOBPRIOACCRUALPOLICY`: ALWAYS, QUEUEPOLICY or FULLPOLICY.
/// - `REJECTNEGPRIOJOBS`, `ENABLENEGJOBPRIORITY`: booleans (TRUE/FALSE, ON/OFF, YES/NO, 1/0).
///
/// Credentials: `USERCFG[name]`, `GROUPCFG[name]`, `ACCOUNTCFG[name]`, `QOSCFG[name]` and
/// `CLASSCFG[name]` followed by `ATTR=VALUE` pieces.
/// - The name between the brackets is non-empty and kept as written (Maui's credential
///   names are case-sensitive); `DEFAULT` is kept like any other name. Nothing may follow
///   the `]` in the same piece.
/// - Attribute names are case-insensitive. PRIORITY (signed integer) and FSTARGET (see
///   `parse_fs_target`) apply to every kind; QTWEIGHT and XFWEIGHT (signed integers),
///   QTTARGET (a Maui time) and XFTARGET (a number >= 0) to QOSCFG only; CLASSWEIGHT (signed
///   integer; no effect in Maui 3.3, see `maui_cfg::apply_group_class_weight`) to GROUPCFG
///   only. A known attribute on another kind is an error. Other
///   attributes (MAXJOB, QLIST, QDEF, FLAGS, PLIST...) are ignored, but every piece must be
///   `ATTR=VALUE` with a non-empty value, and a line needs at least one.
/// - Several lines for the same name merge (a later attribute overrides an earlier one);
///   the credential keeps its place (order of first appearance) and the line it first
///   appeared on.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <mfprio/core/expected.hpp>
#include <mfprio/read/common.hpp>
#include <mfprio/maui/model.hpp>

namespace mfprio::config {

/// One credential of maui.cfg: its name, what its `*CFG[name]` lines set, and where it
/// first appeared.
struct maui_named_credential {
    std::string name;      ///< the name between the brackets, as written
    maui::credential cred; ///< PRIORITY, FSTARGET and the QOS/group attributes
    std::size_t line = 0;  ///< line of its first `*CFG[name]` line
};

/// What mfprio uses of a maui.cfg file, with Maui 3.3's code defaults (reference B4.6).
struct maui_cfg {
    std::string file;        ///< the file name given to the reader
    maui::weights weights{}; ///< component and subcomponent weights and caps
    maui::options opts{};    ///< XFMINWCLIMIT, FSPOLICY, JOBPRIOACCRUALPOLICY, ...
    maui::fs_config fs{};    ///< FSINTERVAL, FSDEPTH, FSDECAY
    /// The credentials of each kind (indexed by `maui::index(cred_kind)`), in order of first
    /// appearance in the file.
    std::array<std::vector<maui_named_credential>, maui::cred_kind_count> creds;
    /// Whether a group's CLASSWEIGHT replaces the CLASS weight for its jobs, as the
    /// documentation says. Maui 3.3 never applies it: `MGroupProcessConfig` converts the
    /// whole `CLASSWEIGHT=3` piece with strtol, which gives 0, and only a value > 0 counts.
    /// The reader keeps the value as written (`credential::class_weight`); with false (the
    /// default, Maui 3.3) `build_maui_model` gives every group 0.
    bool apply_group_class_weight = false;
    /// What Maui 3.3 accepts but reads otherwise than it looks (see the file comment), in
    /// file order; each names the file, line, column and parameter.
    std::vector<input_error> warnings;

    /// Index in `creds[index(k)]` of the credential `name` of kind `k` (exact,
    /// case-sensitive comparison, as Maui compares credential names), or nullopt.
    [[nodiscard]] std::optional<std::size_t> find(maui::cred_kind k,
                                                  std::string_view name) const noexcept {
        const auto& list = creds[maui::index(k)];
        for (std::size_t i = 0; i < list.size(); ++i)
            if (list[i].name == name) return i;
        return std::nullopt;
    }
};

/// Maui's MAX_MTIME (msched-common.h): the time `INFINITY` stands for.
inline constexpr std::int64_t maui_infinity = 2140000000;

/// A Maui time `[[[DD:]HH:]MM:]SS` in seconds: "90" is 90, "2:00:00" is 7200,
/// "1:00:00:00" is 86400; `INFINITY` is `maui_infinity`, as MUTimeFromString reads it. Each
/// field is one or more decimal digits; fields are not limited to their clock range
/// ("0:90:00" is 5400), as Maui adds them up. nullopt for anything else (signs, empty
/// fields, more than four fields) or a total above `max_epoch` (a duration longer than
/// 1970..9999 has no meaning and could overflow time arithmetic).
[[nodiscard]] inline std::optional<std::int64_t> parse_maui_time(std::string_view s) noexcept {
    if (s == "INFINITY") return maui_infinity;
    constexpr std::int64_t unit[] = {1, 60, 3600, 86400}; // seconds, minutes, hours, days
    constexpr std::int64_t max = max_epoch;
    std::size_t fields = 1;
    for (const char c : s)
        if (c == ':') ++fields;
    if (s.empty() || fields > 4) return std::nullopt;
    std::int64_t total = 0;
    std::size_t field = fields; // counts down: the last field is seconds
    std::size_t start = 0;
    while (field > 0) {
        --field;
        std::size_t end = s.find(':', start);
        if (end == std::string_view::npos) end = s.size();
        const auto n = parse_unsigned<std::uint64_t>(s.substr(start, end - start));
        if (!n) return std::nullopt;
        const std::int64_t mult = unit[field];
        if (*n > static_cast<std::uint64_t>(max / mult)) return std::nullopt;
        const std::int64_t add = static_cast<std::int64_t>(*n) * mult;
        if (add > max - total) return std::nullopt;
        total += add;
        start = end + 1;
    }
    return total;
}

/// An FSTARGET value: a number of percent, optionally followed by one suffix that sets the
/// mode (reference B2): none = target, `+` floor, `-` ceiling, `^` absolute cap, `%`
/// relative cap. "25+" is {25, floor}. A value of 0 parses (the model then treats it as
/// "not set"). nullopt if malformed or negative.
[[nodiscard]] inline std::optional<maui::fs_target> parse_fs_target(std::string_view s) noexcept {
    maui::fs_target t;
    t.mode = maui::fs_target_mode::target;
    if (!s.empty()) {
        switch (s.back()) {
        case '+': t.mode = maui::fs_target_mode::floor; break;
        case '-': t.mode = maui::fs_target_mode::ceiling; break;
        case '^': t.mode = maui::fs_target_mode::cap_absolute; break;
        case '%': t.mode = maui::fs_target_mode::cap_relative; break;
        default: break;
        }
        if (t.mode != maui::fs_target_mode::target) s.remove_suffix(1);
    }
    const auto v = parse_double(s);
    if (!v || *v < 0) return std::nullopt;
    t.value = *v == 0 ? 0.0 : *v; // no negative zero
    return t;
}

namespace detail {

/// One white-space separated piece of a maui.cfg line and its 1-based column.
struct maui_token {
    std::string_view text;
    std::size_t column = 0;
};

/// The pieces of one line, the comment (from '#') removed.
[[nodiscard]] inline std::vector<maui_token> maui_tokens(std::string_view line) {
    if (const std::size_t hash = line.find('#'); hash != std::string_view::npos)
        line = line.substr(0, hash);
    std::vector<maui_token> out;
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && is_space(line[i])) ++i;
        if (i >= line.size()) break;
        const std::size_t start = i;
        while (i < line.size() && !is_space(line[i])) ++i;
        out.push_back({line.substr(start, i - start), start + 1});
    }
    return out;
}

/// Maui 3.3's own names that differ from `maui::components` / `maui::subcomponents`, and
/// its back-level names, with the name each stands for.
inline constexpr std::pair<std::string_view, std::string_view> maui_aliases[] = {
    {"SERVICEWCAP", "SERVICECAP"},
    {"USAGEEXECUTIONTIMEWEIGHT", "EXECUTIONTIMEWEIGHT"},
    {"USAGEEXECUTIONTIMECAP", "EXECUTIONTIMECAP"},
    {"UFSWEIGHT", "FSUSERWEIGHT"},
    {"GFSWEIGHT", "FSGROUPWEIGHT"},
    {"AFSWEIGHT", "FSACCOUNTWEIGHT"},
    {"SERVICETARGETWEIGHT", "SERVICEWEIGHT"},
    {"DIRECTSPECWEIGHT", "CREDWEIGHT"},
};

/// Names of weights, caps and options in the documentation (or Moab) that Maui 3.3 does not
/// read, with what to say about each.
inline constexpr std::pair<std::string_view, std::string_view> maui_unread[] = {
    {"SERVICECAP", "Maui 3.3's service cap is SERVICEWCAP"},
    {"SERVCAP", "Maui 3.3's service cap is SERVICEWCAP"},
    {"SERVWEIGHT", "Maui 3.3's parameter is SERVICEWEIGHT"},
    {"TARGWEIGHT", "Maui 3.3's parameter is TARGETWEIGHT"},
    {"TARGCAP", "Maui 3.3's parameter is TARGETCAP"},
    {"USAGECONSUMEDWEIGHT", "Maui 3.3's parameter is CONSUMEDWEIGHT"},
    {"USAGEREMAININGWEIGHT", "Maui 3.3's parameter is REMAININGWEIGHT"},
    {"USAGEPERCENTWEIGHT", "Maui 3.3's parameter is PERCENTWEIGHT"},
    {"EXECUTIONTIMEWEIGHT", "Maui 3.3's parameter is USAGEEXECUTIONTIMEWEIGHT"},
    {"EXECUTIONTIMECAP", "Maui 3.3's parameter is USAGEEXECUTIONTIMECAP"},
    {"QFSWEIGHT", "Maui 3.3's parameter is FSQOSWEIGHT"},
    {"CFSWEIGHT", "Maui 3.3's parameter is FSCLASSWEIGHT"},
    {"UPROCCAP", "Maui 3.3 has no UPROC cap"},
    {"UJOBCAP", "Maui 3.3 has no UJOB cap"},
    {"PREEMPTPRIOMARGIN", "Maui 3.3 has no such parameter: its run-priority margin is always 0"},
};

/// What Maui 3.3 says of `name` when it does not read it (nullopt: it does, or mfprio does
/// not know the name).
[[nodiscard]] constexpr std::optional<std::string_view> maui_unread_note(std::string_view name) noexcept {
    for (const auto& [n, note] : maui_unread)
        if (iequals(name, n)) return note;
    return std::nullopt;
}

/// C's `strtol(s, &end, 0)`: an optional sign, then hexadecimal after `0x`, octal after a
/// leading `0`, else decimal, up to the first character that is not a digit of the base;
/// saturated at the 64-bit range. `used` is 0 when no digit was read (the value is then 0).
struct c_long {
    std::int64_t value = 0;
    std::size_t used = 0;
};
[[nodiscard]] constexpr c_long c_strtol(std::string_view s) noexcept {
    std::size_t i = 0;
    bool negative = false;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
    unsigned base = 10;
    std::size_t digits_from = i;
    if (i < s.size() && s[i] == '0') {
        base = 8;
        if (i + 2 < s.size() && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
            const char h = s[i + 2];
            if ((h >= '0' && h <= '9') || (h >= 'a' && h <= 'f') || (h >= 'A' && h <= 'F')) {
                base = 16;
                digits_from = i + 2;
            }
        }
    }
    const auto digit = [base](char ch) -> int {
        int d = -1;
        if (ch >= '0' && ch <= '9') d = ch - '0';
        else if (ch >= 'a' && ch <= 'f') d = ch - 'a' + 10;
        else if (ch >= 'A' && ch <= 'F') d = ch - 'A' + 10;
        return d >= 0 && static_cast<unsigned>(d) < base ? d : -1;
    };
    constexpr std::uint64_t limit_pos = 0x7fffffffffffffffu, limit_neg = 0x8000000000000000u;
    const std::uint64_t limit = negative ? limit_neg : limit_pos;
    std::uint64_t magnitude = 0;
    bool overflow = false;
    std::size_t j = digits_from;
    while (j < s.size() && digit(s[j]) >= 0) {
        const auto d = static_cast<std::uint64_t>(digit(s[j]));
        if (magnitude > (limit - d) / base) overflow = true;
        else magnitude = magnitude * base + d;
        ++j;
    }
    if (j == digits_from) return {};
    if (overflow) magnitude = limit;
    const std::int64_t value = negative ? static_cast<std::int64_t>(0 - magnitude) : static_cast<std::int64_t>(magnitude);
    return {value, j};
}

/// Where a weight or cap parameter goes.
struct maui_weight_slot {
    bool is_cap = false;       ///< a cap (double) rather than a weight (integer)
    bool is_component = false; ///< a component rather than a subcomponent
    std::size_t index = 0;     ///< index in the matching array of `maui::weights`
};

/// The weight or cap parameter `name` (case-insensitive, aliases resolved), if it is one.
[[nodiscard]] constexpr std::optional<maui_weight_slot> maui_weight_key(std::string_view name) noexcept {
    for (const auto& [alias, canonical] : maui_aliases)
        if (iequals(name, alias)) {
            name = canonical;
            break;
        }
    for (std::size_t i = 0; i < maui::component_count; ++i) {
        if (iequals(name, maui::components[i].weight_key)) return maui_weight_slot{.is_cap = false, .is_component = true, .index = i};
        if (iequals(name, maui::components[i].cap_key)) return maui_weight_slot{.is_cap = true, .is_component = true, .index = i};
    }
    for (std::size_t i = 0; i < maui::subcomponent_count; ++i) {
        if (iequals(name, maui::subcomponents[i].weight_key)) return maui_weight_slot{.is_cap = false, .is_component = false, .index = i};
        if (iequals(name, maui::subcomponents[i].cap_key)) return maui_weight_slot{.is_cap = true, .is_component = false, .index = i};
    }
    return std::nullopt;
}

/// Every parameter name of Maui 3.3's configuration table (MConst.c, MCfg[]), sorted. A
/// maui.cfg name outside it is a warning (Maui ignores the line); one inside that mfprio does
/// not use (RMCFG, LOGLEVEL...) is read by Maui for other purposes and passes silently.
inline constexpr std::string_view maui33_parameter_names[] = {
    "ACCOUNTCAP", "ACCOUNTWEIGHT", "ADMIN1", "ADMIN2", "ADMIN3", "ADMIN4", "ADMINHOSTS", "ADMINS",
    "AFSWEIGHT", "ALLOCLOCALITYPOLICY", "APIFAILURETHRESHHOLD", "ATTRATTRCAP", "ATTRATTRWEIGHT", "ATTRCAP",
    "ATTRSTATECAP", "ATTRSTATEWEIGHT", "ATTRWEIGHT", "BACKFILLDEPTH", "BACKFILLMAXSCHEDULES",
    "BACKFILLMETRIC", "BACKFILLPOLICY", "BACKFILLPROCFACTOR", "BACKFILLTYPE", "BANKAPPENDMACHINENAME",
    "BANKCHARGEPOLICY", "BANKDEFERONJOBFAILURE", "BANKFALLBACKACCOUNT", "BANKFLUSHINTERVAL", "BANKHOST",
    "BANKPORT", "BANKPROTOCOL", "BANKSERVER", "BANKTIMEOUT", "BANKTYPE", "BFCHUNKDURATION", "BFCHUNKSIZE",
    "BFPRIORITYPOLICY", "BYPASSCAP", "BYPASSWEIGHT", "CHECKPOINTEXPIRATIONTIME", "CHECKPOINTFILE",
    "CHECKPOINTINTERVAL", "CLASSCAP", "CLASSWEIGHT", "CLIENTCFG", "CLIENTTIMEOUT", "COMINTERFRAMECOST",
    "COMINTRAFRAMECOST", "COMPUTEHOSTS", "CONSUMEDCAP", "CONSUMEDWEIGHT", "CREDCAP", "CREDWEIGHT",
    "DEFAULTACCOUNT", "DEFAULTCLASSLIST", "DEFAULTDOMAIN", "DEFAULTQMHOST", "DEFERCOUNT", "DEFERSTARTCOUNT",
    "DEFERTIME", "DIRECTORYSERVER", "DIRECTSPECWEIGHT", "DISKCAP", "DISKWEIGHT", "DISPLAYFLAGS",
    "ENABLEMULTINODEJOBS", "ENABLEMULTIREQJOBS", "ENABLENEGJOBPRIORITY", "EVENTSERVER",
    "FEATURENODETYPEHEADER", "FEATUREPARTITIONHEADER", "FEATUREPROCSPEEDHEADER", "FEEDBACKPROGRAM",
    "FSACCOUNTCAP", "FSACCOUNTWEIGHT", "FSCAP", "FSCLASSCAP", "FSCLASSWEIGHT", "FSCONFIGFILE", "FSDECAY",
    "FSDEPTH", "FSENFORCEMENT", "FSGROUPCAP", "FSGROUPWEIGHT", "FSINTERVAL", "FSPOLICY", "FSQOSCAP",
    "FSQOSWEIGHT", "FSSECONDARYGROUPS", "FSUSERCAP", "FSUSERWEIGHT", "FSWEIGHT", "GFSWEIGHT", "GROUPCAP",
    "GROUPWEIGHT", "IGNPBSGROUPLIST", "JOBAGGREGATIONTIME", "JOBMAXOVERRUN", "JOBMAXSTARTTIME",
    "JOBNODEMATCHPOLICY", "JOBPRIOACCRUALPOLICY", "JOBPRIOF", "JOBPURGETIME", "JOBSIZEPOLICY", "JOBSYNCTIME",
    "LOCKFILE", "LOGDIR", "LOGFACILITY", "LOGFILE", "LOGFILEMAXSIZE", "LOGFILEROLLDEPTH", "LOGLEVEL",
    "MACHINECONFIGFILE", "MAILPROGRAM", "MAXJOBPERACCOUNTCOUNT", "MAXJOBPERACCOUNTPOLICY",
    "MAXJOBPERGROUPCOUNT", "MAXJOBPERGROUPPOLICY", "MAXJOBPERITERATION", "MAXJOBPERUSERCOUNT",
    "MAXJOBPERUSERPOLICY", "MAXJOBQUEUEDPERACCOUNTCOUNT", "MAXJOBQUEUEDPERACCOUNTPOLICY",
    "MAXJOBQUEUEDPERGROUPCOUNT", "MAXJOBQUEUEDPERGROUPPOLICY", "MAXJOBQUEUEDPERUSERCOUNT",
    "MAXJOBQUEUEDPERUSERPOLICY", "MAXNODEPERUSERCOUNT", "MAXNODEPERUSERPOLICY", "MAXPEPERUSERCOUNT",
    "MAXPEPERUSERPOLICY", "MAXPROCPERACCOUNTCOUNT", "MAXPROCPERACCOUNTPOLICY", "MAXPROCPERGROUPCOUNT",
    "MAXPROCPERGROUPPOLICY", "MAXPROCPERUSERCOUNT", "MAXPROCPERUSERPOLICY", "MAXPROCSECONDPERACCOUNTCOUNT",
    "MAXPROCSECONDPERACCOUNTPOLICY", "MAXPROCSECONDPERGROUPCOUNT", "MAXPROCSECONDPERGROUPPOLICY",
    "MAXPROCSECONDPERUSERCOUNT", "MAXPROCSECONDPERUSERPOLICY", "MAXSLEEPITERATION", "MCSOCKETPROTOCOL",
    "MEMCAP", "MEMWEIGHT", "METAMAXTASKS", "MINADMINSTIME", "MINDISPATCHTIME", "NODEACCESSPOLICY",
    "NODEALLOCATIONPOLICY", "NODEALLOCMAXPS", "NODEAVAILABILITYPOLICY", "NODECAP", "NODECPUOVERCOMMITFACTOR",
    "NODEDOWNSTATEDELAYTIME", "NODELOADPOLICY", "NODEMAXLOAD", "NODEMEMOVERCOMMITFACTOR", "NODEPOLLFREQUENCY",
    "NODEPURGETIME", "NODESETATTRIBUTE", "NODESETDELAY", "NODESETLIST", "NODESETPOLICY",
    "NODESETPRIORITYTYPE", "NODESETTOLERANCE", "NODESYNCTIME", "NODEUNTRACKEDLOADFACTOR", "NODEWEIGHT",
    "NOTIFICATIONINTERVAL", "NOTIFICATIONPROGRAM", "PARIGNQUEUELIST", "PECAP", "PERCENTCAP", "PERCENTWEIGHT",
    "PEWEIGHT", "PLOTMAXPROC", "PLOTMAXTIME", "PLOTMINPROC", "PLOTMINTIME", "PLOTPROCSCALE", "PLOTTIMESCALE",
    "PREEMPTPOLICY", "PROCCAP", "PROCWEIGHT", "PSCAP", "PSWEIGHT", "QOSCAP", "QOSFLAGS", "QOSNAME",
    "QOSPRIORITY", "QOSQTWEIGHT", "QOSTARGETQT", "QOSTARGETXF", "QOSWEIGHT", "QOSXFWEIGHT", "QUEUETIMECAP",
    "QUEUETIMETARGETWEIGHT", "QUEUETIMEWEIGHT", "REJECTNEGPRIOJOBS", "REMAININGCAP", "REMAININGWEIGHT",
    "REMOTESTARTCOMMAND", "RESCAP", "RESCTLPOLICY", "RESDEPTH", "RESERVATIONDEPTH", "RESERVATIONPOLICY",
    "RESERVATIONQOSLIST", "RESERVATIONRETRYTIME", "RESERVATIONTHRESHOLDTYPE", "RESERVATIONTHRESHOLDVALUE",
    "RESLIMITPOLICY", "RESOURCECOLLECTIONPOLICY", "RESOURCEDAEMON", "RESOURCEDATAFILE", "RESOURCELIMITPOLICY",
    "RESOURCELOCKFILE", "RESOURCEPORT", "RESOURCEREPORTWAIT", "RESOURCESAMPLEINTERVAL", "RESWEIGHT",
    "RMAUTHTYPE", "RMCONFIGFILE", "RMEPORT", "RMHOST", "RMLOCALDISKFS", "RMNAME", "RMNMPORT",
    "RMPOLLINTERVAL", "RMPORT", "RMSERVER", "RMTIMEOUT", "RMTYPE", "SERVERCONFIGFILE", "SERVERHOMEDIR",
    "SERVERHOST", "SERVERMODE", "SERVERNAME", "SERVERPORT", "SERVICETARGETWEIGHT", "SERVICEWCAP",
    "SERVICEWEIGHT", "SIMAUTOSHUTDOWN", "SIMCHECKPOINTINTERVAL", "SIMCOMRATE", "SIMCOMTYPE",
    "SIMDEFAULTJOBFLAGS", "SIMEXITITERATION", "SIMFLAGS", "SIMIGNOREJOBFLAGS", "SIMINITIALQUEUEDEPTH",
    "SIMJOBSUBMISSIONPOLICY", "SIMNODECONFIGURATION", "SIMNODECOUNT", "SIMRANDOMIZEJOBSIZE",
    "SIMRESOURCETRACEFILE", "SIMSCALEJOBRUNTIME", "SIMSTARTTIME", "SIMSTOPITERATION", "SIMTIMEPOLICY",
    "SIMWCACCURACY", "SIMWCACCURACYCHANGE", "SIMWCSCALINGPERCENT", "SIMWORKLOADTRACEFILE",
    "SMAXJOBPERACCOUNTCOUNT", "SMAXJOBPERGROUPCOUNT", "SMAXJOBPERUSERCOUNT", "SMAXJOBQUEUEDPERACCOUNTCOUNT",
    "SMAXJOBQUEUEDPERGROUPCOUNT", "SMAXJOBQUEUEDPERUSERCOUNT", "SMAXNODEPERUSERCOUNT", "SMAXPEPERUSERCOUNT",
    "SMAXPROCPERACCOUNTCOUNT", "SMAXPROCPERGROUPCOUNT", "SMAXPROCPERUSERCOUNT",
    "SMAXPROCSECONDPERACCOUNTCOUNT", "SMAXPROCSECONDPERGROUPCOUNT", "SMAXPROCSECONDPERUSERCOUNT",
    "SPVIOLATIONCAP", "SPVIOLATIONWEIGHT", "SRACCESS", "SRACCOUNTLIST", "SRCHARGEACCOUNT", "SRCLASSLIST",
    "SRDAYS", "SRDEPTH", "SRENDTIME", "SRFEATURES", "SRFLAGS", "SRGROUPLIST", "SRHOSTLIST", "SRIDLETIME",
    "SRMAXTASKS", "SRMAXTIME", "SRMINLOAD", "SRMINTASKS", "SRNAME", "SRPARTITION", "SRPERIOD", "SRPRIORITY",
    "SRQOSLIST", "SRRESOURCES", "SRSTARTTIME", "SRTASKCOUNT", "SRTIMELOGIC", "SRTPN", "SRUSERLIST",
    "SRWENDTIME", "SRWSTARTTIME", "STATDIR", "STEPCOUNT", "SWAPCAP", "SWAPWEIGHT", "SYSTEMMAXJOBWALLTIME",
    "SYSTEMMAXPROCPERJOB", "SYSTEMMAXPROCSECONDPERJOB", "TARGETCAP", "TARGETQUEUETIMECAP",
    "TARGETQUEUETIMEWEIGHT", "TARGETWEIGHT", "TARGETXFACTORCAP", "TARGETXFACTORWEIGHT",
    "TASKDISTRIBUTIONPOLICY", "TOOLSDIR", "TRAPFUNCTION", "TRAPJOB", "TRAPNODE", "TRAPRES", "UFSWEIGHT",
    "UJOBWEIGHT", "UPROCWEIGHT", "USAGECAP", "USAGEEXECUTIONTIMECAP", "USAGEEXECUTIONTIMEWEIGHT",
    "USAGEWEIGHT", "USECPUTIME", "USEJOBREGEX", "USELOCALMACHINEPRIORITY", "USEMACHINESPEED",
    "USEMACHINESPEEDFORFS", "USERCAP", "USERWEIGHT", "USESYSLOG", "USESYSTEMQUEUETIME", "WALLTIMECAP",
    "WALLTIMEWEIGHT", "WCVIOLATIONACTION", "XFACTORCAP", "XFACTORTARGETWEIGHT", "XFACTORWEIGHT",
    "XFMINWCLIMIT",
};

/// The options mfprio reads besides weights and caps.
inline constexpr std::string_view maui_option_keys[] = {
    "XFMINWCLIMIT",      "FSPOLICY",          "FSINTERVAL",           "FSDEPTH",
    "FSDECAY",           "JOBPRIOACCRUALPOLICY", "REJECTNEGPRIOJOBS", "ENABLENEGJOBPRIORITY"};

/// True if `name` is a parameter mfprio reads (a weight, cap or option; not a `*CFG`).
[[nodiscard]] constexpr bool is_maui_scalar_key(std::string_view name) noexcept {
    if (maui_weight_key(name)) return true;
    for (const auto k : maui_option_keys)
        if (iequals(name, k)) return true;
    return false;
}

/// The credential kind whose `*CFG` key is `name` (case-insensitive), if any.
[[nodiscard]] constexpr std::optional<maui::cred_kind> maui_cfg_kind(std::string_view name) noexcept {
    for (std::size_t i = 0; i < maui::cred_kind_count; ++i)
        if (iequals(name, maui::cred_cfg_keys[i])) return static_cast<maui::cred_kind>(i);
    return std::nullopt;
}

/// A maui.cfg boolean: TRUE/FALSE, ON/OFF, YES/NO, 1/0 (any case).
[[nodiscard]] constexpr std::optional<bool> maui_bool(std::string_view v) noexcept {
    if (iequals(v, "TRUE") || iequals(v, "ON") || iequals(v, "YES") || v == "1") return true;
    if (iequals(v, "FALSE") || iequals(v, "OFF") || iequals(v, "NO") || v == "0") return false;
    return std::nullopt;
}

/// Reads maui.cfg text into a `maui_cfg`, line by line.
class maui_reader {
public:
    explicit maui_reader(std::string_view file) : file_(file) { cfg_.file = std::string(file); }

    [[nodiscard]] expected<maui_cfg> run(std::string_view text) {
        for (const text_line& line : split_lines(text)) {
            const auto tokens = maui_tokens(line.text);
            if (tokens.empty()) continue;
            if (auto r = parse_line(tokens, line.number); !r) return r.error();
        }
        return std::move(cfg_);
    }

private:
    std::string_view file_;
    maui_cfg cfg_;
    static constexpr std::size_t max_suggestions = 100;
    /// Position in `cfg_.creds` of each credential name, by kind.
    std::array<std::unordered_map<std::string, std::size_t>, maui::cred_kind_count> cred_index_;
    std::size_t suggestions_ = 0; ///< unknown names given a "did you mean" so far

    [[nodiscard]] input_error at(std::size_t line, std::size_t column, std::string_view key,
                                 std::string message) const {
        return make_error(file_, line, column, key, std::move(message));
    }

    [[nodiscard]] expected<bool> parse_line(const std::vector<maui_token>& tokens,
                                            std::size_t line) {
        const maui_token& name = tokens.front();
        const std::size_t bracket = name.text.find('[');
        const std::string_view base = name.text.substr(0, bracket);
        if (const auto kind = maui_cfg_kind(base)) return cred_line(*kind, tokens, line);
        if (bracket != std::string_view::npos) return true; // indexed parameter: not read
        if (const std::size_t eq = name.text.find('='); eq != std::string_view::npos) {
            const std::string_view before = name.text.substr(0, eq);
            if (is_maui_scalar_key(before) || maui_cfg_kind(before))
                return at(line, name.column, before,
                          "Maui parameters are written NAME VALUE (a space, not '='), got " +
                              quote(name.text));
            unknown_name(name, line);
            return true;
        }
        if (const auto note = maui_unread_note(name.text)) {
            warn(line, name.column, name.text,
                 "Maui 3.3 does not read " + std::string(name.text) + " and ignores the line (" +
                     std::string(*note) + ")");
            return true;
        }
        if (!is_maui_scalar_key(name.text)) {
            unknown_name(name, line);
            return true;
        }
        if (const auto slot = maui_weight_key(name.text)) return weight(name, *slot, tokens, line);
        if (tokens.size() < 2)
            return at(line, name.column, name.text, std::string(name.text) + " needs a value");
        if (tokens.size() > 2)
            return at(line, tokens[2].column, name.text,
                      "unexpected text " + quote(tokens[2].text) + " after the value");
        return scalar(name.text, tokens[1], line);
    }

    void warn(std::size_t line, std::size_t column, std::string_view key, std::string message) {
        cfg_.warnings.push_back(make_error(file_, line, column, key, std::move(message)));
    }

    /// A name that is not one of Maui 3.3's parameters: a warning with the closest one.
    void unknown_name(const maui_token& name, std::size_t line) {
        const std::string upper = [&] {
            std::string u(name.text);
            for (char& ch : u) ch = static_cast<char>(ch >= 'a' && ch <= 'z' ? ch - 'a' + 'A' : ch);
            return u;
        }();
        const bool identifier = std::all_of(upper.begin(), upper.end(), [](char ch) {
            return (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_';
        });
        if (!identifier) {
            warn(line, name.column, name.text,
                 quote(name.text) + " is not a parameter name (letters, digits, '_'): Maui 3.3 ignores the line");
            return;
        }
        if (std::binary_search(std::begin(maui33_parameter_names), std::end(maui33_parameter_names),
                               std::string_view(upper)))
            return; // a Maui parameter for something other than priority
        // The closest names, for the first `max_suggestions` unknown names (a file of thousands
        // of them would otherwise cost seconds).
        std::string near;
        if (suggestions_ < max_suggestions) {
            ++suggestions_;
            near = did_you_mean(upper, maui33_parameter_names, {2, 0, false, 1});
        }
        warn(line, name.column, name.text, "unknown parameter " + quote(name.text) + ": Maui 3.3 ignores it" + near);
    }

    /// A weight or cap, read as Maui 3.3 reads it (see the file comment).
    [[nodiscard]] expected<bool> weight(const maui_token& name, maui_weight_slot slot,
                                        const std::vector<maui_token>& tokens, std::size_t line) {
        maui::weights& w = cfg_.weights;
        const std::string_view key = name.text;
        const bool attr_sub = !slot.is_component && !slot.is_cap &&
                              maui::subcomponents[slot.index].parent == maui::component_id::attr;
        const bool attr_cap = slot.is_cap && (slot.is_component ? slot.index == maui::index(maui::component_id::attr)
                                                                : maui::subcomponents[slot.index].parent ==
                                                                      maui::component_id::attr);
        const bool component_weight = slot.is_component && !slot.is_cap;
        if (tokens.size() > 2)
            warn(line, tokens[2].column, key,
                 "Maui 3.3 reads only the first value and ignores " + quote(tokens[2].text) + " and what follows");
        std::int64_t value = 0;
        // Integer parameters (MCfgProcessLine's mdfInt: the subcomponent weights and the caps)
        // that come out as -1 are refused ("parameter has invalid value") and the value before
        // stays: a written -1, a value strtol cannot read, a missing value.
        const auto keep_earlier = [&](std::size_t column, const std::string& why) {
            warn(line, column, key, why + ": -1, which Maui 3.3 refuses, keeping the value before");
            return true;
        };
        if (tokens.size() < 2) {
            if (component_weight) return at(line, name.column, key, std::string(key) + " needs a value");
            if (!(attr_sub || attr_cap)) return keep_earlier(name.column, std::string(key) + " has no value");
        } else {
            const maui_token& v = tokens[1];
            const c_long n = c_strtol(v.text);
            const auto plain = parse_signed<std::int64_t>(v.text);
            if (attr_sub || attr_cap) {
                value = 0;
                if (!(plain && *plain == 0))
                    warn(line, v.column, key, "Maui 3.3 reads " + std::string(key) + " as 0 whatever its value");
            } else if (component_weight) {
                if (n.used < v.text.size() && v.text[n.used] == '%' && n.used > 0) {
                    value = 10;
                    warn(line, v.column, key, "Maui 3.3 reads a percentage weight " + quote(v.text) + " as 10");
                } else {
                    value = n.value;
                    if (n.used == 0)
                        warn(line, v.column, key, "Maui 3.3 cannot read " + quote(v.text) + " as an integer and uses 0");
                    else if (!plain || *plain != value)
                        warn(line, v.column, key,
                             "Maui 3.3 reads " + quote(v.text) + " as " + std::to_string(value));
                }
            } else {
                // (int)strtol(ptr, NULL, 0), then -1 for a 0 not written with a leading '0'.
                const auto as_int = static_cast<std::int32_t>(static_cast<std::uint32_t>(
                    static_cast<std::uint64_t>(n.value)));
                value = as_int;
                if (as_int == 0 && v.text.front() != '0') value = -1;
                if (n.used == 0)
                    return keep_earlier(v.column, "Maui 3.3 cannot read " + quote(v.text) + " as an integer");
                if (value == -1)
                    return keep_earlier(v.column, "Maui 3.3 reads " + quote(v.text) + " as -1");
                if (!plain || *plain != value)
                    warn(line, v.column, key, "Maui 3.3 reads " + quote(v.text) + " as " + std::to_string(value));
            }
        }
        if (slot.is_cap) {
            if (slot.is_component) w.component_cap[slot.index] = static_cast<double>(value);
            else w.sub_cap[slot.index] = static_cast<double>(value);
        } else {
            if (slot.is_component) w.component_weight[slot.index] = value;
            else w.sub_weight[slot.index] = value;
        }
        return true;
    }

    [[nodiscard]] expected<bool> scalar(std::string_view key, const maui_token& value,
                                        std::size_t line) {
        const std::string_view v = value.text;
        auto bad = [&](std::string message) { return at(line, value.column, key, std::move(message)); };
        auto time_value = [&]() -> expected<std::int64_t> {
            const auto t = parse_maui_time(v);
            if (!t) return bad("expected a Maui time [[[DD:]HH:]MM:]SS (at most 253402300799 s) or INFINITY, got " + quote(v));
            return *t;
        };
        auto bool_value = [&](bool& out) -> expected<bool> {
            const auto b = maui_bool(v);
            if (!b) return bad("expected TRUE or FALSE (or ON/OFF, YES/NO, 1/0), got " + quote(v));
            out = *b;
            return true;
        };

        if (iequals(key, "XFMINWCLIMIT")) {
            const bool negative = !v.empty() && v.front() == '-'; // no minimum
            const auto t = parse_maui_time(negative ? v.substr(1) : v);
            if (!t) return bad("expected a Maui time [[[DD:]HH:]MM:]SS (at most 253402300799 s), INFINITY or -1, got " + quote(v));
            cfg_.opts.xf_min_wclimit = negative ? 0.0 : static_cast<double>(*t);
        } else if (iequals(key, "FSPOLICY")) {
            std::string_view word = v;
            const bool percent = !word.empty() && word.back() == '%';
            if (percent) word.remove_suffix(1);
            static constexpr std::pair<std::string_view, maui::fs_metric> names[] = {
                {"NONE", maui::fs_metric::none},
                {"DEDICATEDPS", maui::fs_metric::dedicated_ps},
                {"DEDICATEDPES", maui::fs_metric::dedicated_pes},
                {"UTILIZEDPS", maui::fs_metric::utilized_ps},
                {"TRUE", maui::fs_metric::dedicated_ps},
                {"ON", maui::fs_metric::dedicated_ps},
                {"YES", maui::fs_metric::dedicated_ps},
                {"FALSE", maui::fs_metric::none},
                {"OFF", maui::fs_metric::none},
                {"NO", maui::fs_metric::none}};
            for (const auto& [n, metric] : names)
                if (iequals(word, n)) {
                    cfg_.opts.fs_policy = metric;
                    cfg_.opts.fs_percent_based = percent;
                    return true;
                }
            return bad("expected NONE, DEDICATEDPS, DEDICATEDPES or UTILIZEDPS (optionally "
                       "followed by '%'), or TRUE/FALSE, got " + quote(v));
        } else if (iequals(key, "FSINTERVAL")) {
            auto t = time_value();
            if (!t) return t.error();
            if (*t <= 0) return bad("FSINTERVAL must be greater than 0, got " + quote(v));
            cfg_.fs.interval = *t;
        } else if (iequals(key, "FSDEPTH")) {
            const auto n = parse_signed<std::int64_t>(v);
            if (!n) return bad("expected an integer of at least 1, got " + quote(v));
            if (*n < 1) return bad("FSDEPTH must be at least 1, got " + quote(v));
            if (static_cast<std::uint64_t>(*n) > maui::max_fs_depth) {
                // MFSProcessOConfig: FSDepth = MIN(value, MAX_MFSDEPTH).
                warn(line, value.column, key,
                     "FSDEPTH " + std::string(v) + " is above Maui 3.3's limit: it uses " +
                         std::to_string(maui::max_fs_depth) + " fair-share windows");
                cfg_.fs.depth = maui::max_fs_depth;
            } else {
                cfg_.fs.depth = static_cast<std::size_t>(*n);
            }
        } else if (iequals(key, "FSDECAY")) {
            const auto d = parse_double(v);
            if (!d) return bad("expected a number greater than 0, got " + quote(v));
            if (!(*d > 0) || !std::isfinite(*d)) return bad("FSDECAY must be greater than 0, got " + quote(v));
            if (*d > 1)
                warn(line, value.column, key,
                     "FSDECAY " + std::string(v) + " is above 1: older fair-share windows weigh more than newer ones");
            cfg_.fs.decay = *d;
        } else if (iequals(key, "JOBPRIOACCRUALPOLICY")) {
            if (iequals(v, "ALWAYS")) cfg_.opts.accrual = maui::accrual_policy::always;
            else if (iequals(v, "QUEUEPOLICY")) cfg_.opts.accrual = maui::accrual_policy::queuepolicy;
            else if (iequals(v, "FULLPOLICY")) cfg_.opts.accrual = maui::accrual_policy::fullpolicy;
            else return bad("expected ALWAYS, QUEUEPOLICY or FULLPOLICY, got " + quote(v));
        } else if (iequals(key, "REJECTNEGPRIOJOBS")) {
            return bool_value(cfg_.opts.reject_negative);
        } else if (iequals(key, "ENABLENEGJOBPRIORITY")) {
            return bool_value(cfg_.opts.enable_negative);
        }
        return true;
    }

    [[nodiscard]] expected<bool> cred_line(maui::cred_kind kind,
                                           const std::vector<maui_token>& tokens,
                                           std::size_t line) {
        const maui_token& head = tokens.front();
        const std::string_view h = head.text;
        const std::string_view cfg_key = maui::cred_cfg_keys[maui::index(kind)];
        const std::size_t open = h.find('[');
        if (open == std::string_view::npos)
            return at(line, head.column, h,
                      "expected " + std::string(cfg_key) + "[name] (the credential name in brackets)");
        const std::size_t close = h.find(']', open);
        if (close == std::string_view::npos)
            return at(line, head.column, h, "missing ']' after the name in " + quote(h));
        const std::string_view name = h.substr(open + 1, close - open - 1);
        if (name.empty())
            return at(line, head.column, h, "empty credential name in " + quote(h));
        if (close + 1 < h.size())
            return at(line, head.column + close + 1, h,
                      "unexpected text " + quote(h.substr(close + 1)) + " after ']'");
        if (tokens.size() < 2)
            return at(line, head.column, h, std::string(h) + " needs at least one ATTR=VALUE");

        // Check the whole line before changing anything.
        maui::credential cred;
        auto& index = cred_index_[maui::index(kind)];
        const auto at_index = index.find(std::string(name));
        const std::optional<std::size_t> found =
            at_index == index.end() ? std::nullopt : std::optional<std::size_t>{at_index->second};
        if (found) cred = cfg_.creds[maui::index(kind)][*found].cred;
        for (std::size_t i = 1; i < tokens.size(); ++i)
            if (auto r = attribute(kind, h, tokens[i], line, cred); !r) return r;

        auto& list = cfg_.creds[maui::index(kind)];
        if (found) {
            list[*found].cred = cred;
        } else {
            index.emplace(std::string(name), list.size());
            list.push_back({.name = std::string(name), .cred = cred, .line = line});
        }
        return true;
    }

    [[nodiscard]] expected<bool> attribute(maui::cred_kind kind, std::string_view head,
                                           const maui_token& token, std::size_t line,
                                           maui::credential& cred) {
        const std::string_view t = token.text;
        const std::size_t eq = t.find('=');
        if (eq == std::string_view::npos || eq == 0)
            return at(line, token.column, head, "expected ATTR=VALUE, got " + quote(t));
        const std::string_view attr = t.substr(0, eq);
        const std::string_view v = t.substr(eq + 1);
        const std::string key = std::string(head) + ' ' + std::string(attr);
        const std::size_t value_column = token.column + eq + 1;
        auto bad = [&](std::string message) { return at(line, value_column, key, std::move(message)); };
        if (v.empty()) return bad(std::string(attr) + " has an empty value");
        auto only = [&](maui::cred_kind k) -> std::optional<input_error> {
            if (kind == k) return std::nullopt;
            return at(line, token.column, key,
                      std::string(attr) + " applies to " +
                          std::string(maui::cred_cfg_keys[maui::index(k)]) + " only");
        };
        auto integer = [&](std::int64_t& out) -> expected<bool> {
            const auto n = parse_signed<std::int64_t>(v);
            if (!n) return bad("expected a signed integer, got " + quote(v));
            out = *n;
            return true;
        };

        if (iequals(attr, "PRIORITY")) return integer(cred.priority);
        if (iequals(attr, "FSTARGET")) {
            const auto target = parse_fs_target(v);
            if (!target)
                return bad("expected a percentage >= 0 with an optional suffix +, -, ^ or % "
                           "(25, 25+, 25-, 25^, 25%), got " + quote(v));
            cred.target = *target;
            return true;
        }
        if (iequals(attr, "QTWEIGHT") || iequals(attr, "XFWEIGHT")) {
            if (auto e = only(maui::cred_kind::qos)) return *e;
            return integer(iequals(attr, "QTWEIGHT") ? cred.qt_weight : cred.xf_weight);
        }
        if (iequals(attr, "QTTARGET")) {
            if (auto e = only(maui::cred_kind::qos)) return *e;
            const auto s = parse_maui_time(v);
            if (!s) return bad("expected a Maui time [[[DD:]HH:]MM:]SS (at most 253402300799 s) or INFINITY, got " + quote(v));
            cred.qt_target = static_cast<double>(*s);
            return true;
        }
        if (iequals(attr, "XFTARGET")) {
            if (auto e = only(maui::cred_kind::qos)) return *e;
            const auto d = parse_double(v);
            if (!d || *d < 0) return bad("expected a number >= 0, got " + quote(v));
            cred.xf_target = *d;
            return true;
        }
        if (iequals(attr, "CLASSWEIGHT")) {
            if (auto e = only(maui::cred_kind::group)) return *e;
            auto r = integer(cred.class_weight);
            if (r)
                warn(line, token.column, key,
                     "Maui 3.3 stores 0 for a group's CLASSWEIGHT (MGroupProcessConfig converts the whole "
                     "piece): no effect on the CLASS weight");
            return r;
        }
        return true; // MAXJOB, QLIST, QDEF, FLAGS, PLIST...: not used by mfprio
    }
};

} // namespace detail

/// Parses maui.cfg text (see the file comment for the rules). `file_name` names the text
/// in errors and in `maui_cfg::file`.
[[nodiscard]] inline expected<maui_cfg> parse_maui_cfg(std::string_view text,
                                                       std::string_view file_name = "<string>") {
    detail::maui_reader reader(file_name);
    return reader.run(text);
}

/// Reads and parses the maui.cfg file at `path`; "cannot open file" if it cannot be read.
[[nodiscard]] inline expected<maui_cfg> read_maui_cfg(const std::string& path) {
    auto text = read_text_file(path);
    if (!text) return text.error();
    return parse_maui_cfg(*text, path);
}

} // namespace mfprio::config
