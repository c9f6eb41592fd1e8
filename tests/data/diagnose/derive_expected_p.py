#!/usr/bin/env python3
"""Derives expected_p.txt, the `diagnose -p` output Maui 3.3 prints for this directory's
scenario (maui.cfg, jobs.txt, nodes.txt, fs/ at now = 1800000000).

The per-job values below are worked out by hand from MJobGetStartPriority (src/MPriority.c)
and MJobGetPE (src/MJob.c); this script only adds them up and prints them with the printf
formats of MJobGetStartPriority's three modes (header, one line per job, footer) and of
UIDiagnosePriority (src/UserI.c). It does not read the inputs: it is a worked calculation,
independent of mfprio.

Hand calculation (see also tests/cli_diagnose.cpp):
- Fair-share usage (FSDECAY 0.5 over the two windows, current first): alice 300 + 0.5 x 600
  = 600 of 1000 = 60%; bob and carol 20%; dave 0%; staff 80%; guests 20%; chem 70%;
  phys 30%; high 20%; normal 80%. Targets: alice 65 -> +5; bob, carol 10- -> -10; dave
  10- -> 10 - 0 = +10, ceiling -> 0; groups none -> 0; chem 60 -> -10; phys 30+ -> 0;
  high 10+ -> -10, floor -> 0; normal none -> 0.
- SERV: QUEUETIME in minutes (QUEUEPOLICY: job 104 from its policy block, 3600 s), XFACTOR
  (queued + WCLimit) / max(600, WCLimit) (XFMINWCLIMIT 10 minutes: every job has a QOS).
  QOS high adds QTWEIGHT 10 and XFWEIGHT 50.
- TARG: no QTTARGET; XFTARGET 4 for QOS high: (4 - XFACTOR)^-2.
- CRED: USERCFG priorities (carol, dave: DEFAULT's 0), GROUPCFG, QOS, CLASS (batch 5,
  debug 100). maui.cfg's `GROUPCFG[guests] CLASSWEIGHT=3` has no effect: MGroupProcessConfig
  (src/MGroup.c) converts the whole `CLASSWEIGHT=3` piece with strtol, storing 0, and
  MJobGetStartPriority replaces the CLASS weight only for a group ClassWeight > 0.
- RES: NODE, PROC x 10, PE x 5 with PE = 128 x max(procs / 128, mem / 256000); UJOBWEIGHT
  -100 has no effect (MJobGetStartPriority's weighted loop ends at WALLTIME).
- USAGE: not computed for idle jobs (0).
"""

def maui_abs(a):
    """MPriority.c's ABS macro, (a >= 0) ? a : 0 - a: a negative zero stays negative."""
    return a if a >= 0 else 0 - a


CW = {"serv": 1, "targ": 1, "cred": 1, "attr": 1, "fs": 1, "res": 1, "usage": 1}
# Configured subcomponent weights (mode 1 and mode 2 have no job: no QOS or group adjustment).
SW = {
    "SQT": 1, "SXF": 100, "SSPV": -50, "SBP": 10, "TQT": 1, "TXF": 1,
    "CU": 1, "CG": 1, "CA": 1, "CQ": 1, "CC": 1, "FU": 10, "FG": 20, "FA": 30, "FQ": 40, "FC": 0,
    "AAttr": 0, "AState": 0,
    "RNode": 1, "RProc": 10, "RMem": 0, "RSwap": 0, "RDisk": 0, "RPS": 0, "RPE": 5, "RWallTime": 0,
    "RUProc": 0, "RUJob": -100, "UCons": 1, "UExeTime": 0, "URem": 0, "UPerC": 10,
}
ORDER = list(SW)  # Maui's subcomponent enum order
COMPONENT_SUBS = {
    "serv": ["SQT", "SXF", "SSPV", "SBP"], "targ": ["TQT", "TXF"],
    "cred": ["CU", "CG", "CA", "CQ", "CC"], "fs": ["FU", "FG", "FA", "FQ", "FC"],
    "attr": ["AAttr", "AState"],
    "res": ["RNode", "RProc", "RMem", "RSwap", "RDisk", "RPS", "RPE", "RWallTime"],
    "usage": ["UCons", "UExeTime", "URem", "UPerC"],
}
SUM_ORDER = ["serv", "targ", "cred", "attr", "fs", "res", "usage"]
DISPLAY_ORDER = ["cred", "fs", "attr", "serv", "targ", "res", "usage"]
HEADER = {"cred": "  Cred(", "fs": "    FS(", "serv": "  Serv(", "targ": "  Targ(", "res": "   Res(",
          "usage": "   Res("}
NAMES = {"SQT": "QTime", "SXF": "XFctr", "SSPV": "SPVio", "SBP": "Bypas", "TQT": "QTime", "TXF": "XFctr",
         "CU": " User", "CG": "Group", "CA": "Accnt", "CQ": "  QOS", "CC": "Class",
         "FU": " User", "FG": "Group", "FA": "Accnt", "FQ": "  QOS", "FC": "Class",
         "RNode": " Node", "RProc": " Proc", "RMem": "  Mem", "RSwap": " Swap", "RDisk": " Disk",
         "RPS": "   PS", "RPE": "   PE", "RWallTime": "WTime", "UCons": "Cons ", "UExeTime": "",
         "URem": "Rem  ", "UPerC": "PerC "}
# QOS high has QTWEIGHT 10 > 0 and XFWEIGHT 50 > 0: QUEUETIME and XFACTOR are displayed in
# SERV (they are anyway, their weights being non-zero).
SDISPLAY = {"SQT", "SXF"}


def job(name, sysprio, sf, sw_adjust):
    """A job's capped subfactors (0 where absent) and its subcomponent weights."""
    full = {k: 0.0 for k in ORDER}
    full.update(sf)
    weights = dict(SW)
    weights.update(sw_adjust)
    return {"name": name, "sysprio": sysprio, "sf": full, "sw": weights}


HIGH = {"SQT": 1 + 10, "SXF": 100 + 50}
GUESTS = {}  # the group's CLASSWEIGHT is stored as 0 (see above)
JOBS = [
    # 101 alice staff chem high batch: queued 7200 s, WCLimit 3600, 16 procs, 32000 MB, bypassed 2.
    job("101", 0, {"SQT": 7200 / 60.0, "SXF": (7200 + 3600) / 3600, "SBP": 2.0, "TXF": (4.0 - 3.0) ** -2,
                   "CU": 2000.0, "CG": 10000.0, "CQ": 500.0, "CC": 5.0, "FU": 5.0, "FA": -10.0,
                   "RNode": 1.0, "RProc": 16.0, "RMem": 32000.0, "RPS": 16.0 * 3600, "RPE": 16.0,
                   "RWallTime": 3600.0}, HIGH),
    # 102 bob staff phys normal batch: queued 1800 s, WCLimit 14400, 64 procs on 2 nodes.
    job("102", 0, {"SQT": 1800 / 60.0, "SXF": (1800 + 14400) / 14400, "CU": 1000.0 * -1, "CG": 10000.0,
                   "CC": 5.0, "FU": -10.0, "RNode": 2.0, "RProc": 64.0, "RPS": 64.0 * 14400, "RPE": 64.0,
                   "RWallTime": 14400.0}, {}),
    # 103 carol guests chem normal debug: queued 600 s, WCLimit 300, soft-policy violation.
    job("103", 0, {"SQT": 600 / 60.0, "SXF": (600 + 300) / 600, "SSPV": 1.0, "CC": 100.0, "FU": -10.0,
                   "FA": -10.0, "RNode": 1.0, "RProc": 1.0, "RPS": 300.0, "RPE": 1.0, "RWallTime": 300.0},
        GUESTS),
    # 104 dave guests phys high debug, setspri -r 100: queued 3600 s since its policy block,
    # WCLimit 7200, 8 procs.
    job("104", 2_000_000_100, {"SQT": 3600 / 60.0, "SXF": (3600 + 7200) / 7200, "TXF": (4.0 - 1.5) ** -2,
                               "CQ": 500.0, "CC": 100.0, "RNode": 1.0, "RProc": 8.0, "RPS": 8.0 * 7200,
                               "RPE": 8.0, "RWallTime": 7200.0}, {**HIGH, **GUESTS}),
    # 106 bob staff phys normal batch, setspri 500: queued 1000 s, WCLimit 3600, 4 procs.
    job("106", 500, {"SQT": 1000 / 60.0, "SXF": (1000 + 3600) / 3600, "CU": -1000.0, "CG": 10000.0, "CC": 5.0,
                     "FU": -10.0, "RNode": 1.0, "RProc": 4.0, "RPS": 4.0 * 3600, "RPE": 4.0,
                     "RWallTime": 3600.0}, {}),
    # 107 bob guests phys normal debug: just submitted, WCLimit 1 day, 1 proc; negative sum.
    job("107", 0, {"SQT": 0.0, "SXF": (0 + 86400) / 86400, "CU": -1000.0, "CC": 100.0, "FU": -10.0,
                   "RNode": 1.0, "RProc": 1.0, "RPS": 86400.0, "RPE": 1.0, "RWallTime": 86400.0}, GUESTS),
]
CAP = {"fs": 50, "res": 2000}  # FSCAP, RESCAP (upper caps)


def cell(v):
    return "%5.5s" % ("%3.1f" % v)


def cfactor(j, comp):
    if comp == "usage":
        return 0.0  # not computed for idle jobs
    if comp == "res":
        subs = COMPONENT_SUBS["res"]  # NODE..WALLTIME only
    else:
        subs = COMPONENT_SUBS[comp]
    total = 0.0
    for s in subs:
        total += j["sw"][s] * j["sf"][s]
    if comp in CAP and CAP[comp] > 0:
        total = min(total, CAP[comp])
    return total


def main():
    out = ["diagnosing job priority information (partition: ALL)\n\n"]
    header, weights = "", ""
    for comp in DISPLAY_ORDER:
        if CW[comp] == 0 or comp not in HEADER:
            continue
        names, values = [], []
        for s in COMPONENT_SUBS[comp]:
            if SW[s] == 0 and not (comp == "serv" and s in SDISPLAY):
                continue
            names.append(NAMES[s])
            values.append("%5d" % SW[s])
        if names:
            header += HEADER[comp] + ":".join(names) + ")"
            weights += " %5d(%s)" % (CW[comp], ":".join(values))
    out.append("%-20s %10s%c " % ("Job", "PRIORITY", "*") + header + "\n")
    out.append("%20s %10s%c " % ("Weights", "--------", " ") + weights + "\n")
    out.append("\n")

    rows = []
    for j in JOBS:
        cf = {c: cfactor(j, c) for c in SUM_ORDER}
        prio = 0.0
        aprio = 0.0
        for c in SUM_ORDER:
            prio += CW[c] * cf[c]
            aprio += maui_abs(CW[c] * cf[c])
        final = max(prio, 1.0)
        final = min(final, 1e9)
        if j["sysprio"] > 0:
            final = final + (j["sysprio"] - 2e9) if j["sysprio"] > 1e9 else 1e9 + j["sysprio"]
        rows.append((int(final), j, cf, prio, aprio))
    rows.sort(key=lambda r: -r[0])  # no ties in this scenario

    total_priority = 0.0
    total_c = {c: 0.0 for c in SUM_ORDER}
    total_s = {s: 0.0 for s in ORDER}
    for _, j, cf, prio, aprio in rows:
        total_priority += aprio
        cp = {c: (maui_abs(CW[c] * cf[c]) / aprio * 100.0 if aprio != 0 else 0.0) for c in SUM_ORDER}
        for c in SUM_ORDER:
            total_c[c] += maui_abs(cf[c])
        for s in ORDER:
            total_s[s] += maui_abs(j["sf"][s] if not s.startswith("U") else 0.0)
        line = ""
        for comp in DISPLAY_ORDER:
            if CW[comp] == 0:
                continue
            cells = []
            for s in COMPONENT_SUBS[comp]:
                if j["sw"][s] == 0 and not (comp == "serv" and s in SDISPLAY):
                    continue
                if comp == "cred":
                    v = maui_abs(j["sf"][s])
                elif comp == "targ":
                    v = cp["targ"]
                elif comp == "usage":
                    v = float(CW[comp]) * j["sw"][s] * 0.0
                else:
                    v = float(CW[comp]) * j["sw"][s] * j["sf"][s]
                cells.append(cell(v))
            if cells:
                line += " %s(%s)" % (cell(cp[comp]), ":".join(cells))
        star = "*" if j["sysprio"] > 0 else " "
        out.append("%-20s %10.0f%c " % (j["name"], prio, star) + line + "\n")

    footer = ""
    for comp in DISPLAY_ORDER:
        if CW[comp] == 0:
            continue
        cells = []
        for s in COMPONENT_SUBS[comp]:
            if SW[s] == 0:
                continue
            v = maui_abs(total_s[s] * SW[s] * CW[comp] * 100.0 / total_priority) if total_priority != 0 else 0.0
            cells.append(cell(v))
        if cells:
            v = maui_abs(total_c[comp] * CW[comp] * 100.0 / total_priority) if total_priority != 0 else 0.0
            footer += " %s(%s)" % (cell(v), ":".join(cells))
    out.append("\n")
    out.append("%-20s %10s%c " % ("Percent Contribution", "--------", " ") + footer + "\n")
    out.append("\n")
    out.append("* indicates system prio set on job\n")
    # The diagnose client prints the server's text with "%s\n" (MCDiagnose, src/omclient.c).
    out.append("\n")
    return "".join(out)


if __name__ == "__main__":
    import sys
    sys.stdout.write(main())
