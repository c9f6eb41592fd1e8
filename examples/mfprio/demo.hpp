#pragma once
// `mfprio demo`: three clusters from the seeds, embedded, each printed as sprio would show
// it, with one --explain. The numbers the seeds give are kept; everything the seeds leave
// open (node counts, partition factors, job mixes, user names) is ours and marked so.

#include <array>
#include <string>
#include <string_view>

#include "commands.hpp"
#include "maui_commands.hpp"

namespace mfprio::cli {

/// One embedded cluster: what it shows, its four inputs, and the job to explain.
struct demo_cluster {
    std::string_view name;
    std::string_view title;
    std::array<std::string_view, 4> texts; ///< slurm.conf, QOS table, association table, jobs table
    std::string_view explain_job;
};

/// 2026-11-21T12:00:00 UTC: the demo's fixed "now", so its output never changes.
inline constexpr std::string_view demo_now = "1795262400";

// Seed 000's first example configuration (2-week half-life and max age; weights age 1000,
// fair-share 10000, job size 1000, partition 1000, QOS 0), on a small cluster of ours (10
// nodes of 32 CPUs; batch and debug partitions). The association tree and the users'
// fair-share factors are seed 000's worked example (users 1-5: 0.408479, 0.022097,
// 0.125000, 0.500000, 0.749154).
inline constexpr std::string_view seed000_conf = R"(# Seed 000: "Configuration Example", first variant (with decay)
ClusterName=example
AccountingStorageType=accounting_storage/slurmdbd
PriorityType=priority/multifactor
# 2 week half-life
PriorityDecayHalfLife=14-0
# The larger the job, the greater its job size priority.
PriorityFavorSmall=NO
# The job's age factor reaches 1.0 after waiting in the queue for 2 weeks.
PriorityMaxAge=14-0
PriorityWeightAge=1000
PriorityWeightFairshare=10000
PriorityWeightJobSize=1000
PriorityWeightPartition=1000
PriorityWeightQOS=0 # don't use the qos factor
# The seed's fair-share example is the classic algorithm.
PriorityFlags=NO_FAIR_TREE
NodeName=n[01-10] CPUs=32 RealMemory=128000
PartitionName=batch Nodes=n[01-10] Default=YES PriorityJobFactor=1 MaxTime=7-0
PartitionName=debug Nodes=n[01-02] PriorityJobFactor=2 MaxTime=01:00:00
)";
inline constexpr std::string_view seed000_qos = R"(Name|Priority|UsageFactor
normal|0|1.000000
)";
inline constexpr std::string_view seed000_assoc = R"(Account|User|RawShares|FairShare
root|||
 A||40|
  B||30|
   B|user1|1|0.408479
  C||10|
   C|user2|1|0.022097
   C|user3|1|0.125000
 D||60|
  E||25|
   E|user4|1|0.500000
  F||35|
   F|user5|1|0.749154
)";
inline constexpr std::string_view seed000_jobs = R"(JobID|User|Account|Partition|QOS|SubmitTime|EligibleTime|NumNodes|NumCPUs|TimeLimit|State
101|user1|B|batch|normal|2026-11-14T12:00:00|2026-11-14T12:00:00|1|32|1-00:00:00|PENDING
102|user2|C|debug|normal|2026-11-20T12:00:00|2026-11-20T12:00:00|2|64|30|PENDING
103|user4|E|batch|normal|2026-11-07T12:00:00|2026-11-07T12:00:00|10|320|7-00:00:00|PENDING
104|user5|F|batch,debug|normal|2026-11-19T12:00:00|2026-11-19T12:00:00|1|1|00:30:00|PENDING
105|user3|C|batch|normal|2026-11-18T12:00:00|2026-11-18T12:00:00|1|1|60|HELD
)";

// Seed 001, Limoges: fair-share 70000 and partition 30000 only; 90-day half-life; the
// account tree and shares of the seed (partenaires 100: cistem 1, ingenomix 1; unilim 900:
// XLIM 283, IPAM 283, GEIST 283, SHS 150; one lab account per institute, equal shares);
// overlapping partitions rapide/normal/long on the same nodes (normal up to 48 h, long up
// to 30 days, as the seed says) and a private partition with a very high priority. The
// partition factors (300/200/100, private 1000), the rapide time limit, the nodes, the
// labs, the users and their fair-share factors are ours.
inline constexpr std::string_view limoges_conf = R"(# Seed 001: fair-share and partition only
ClusterName=limoges
AccountingStorageType=accounting_storage/slurmdbd
PriorityType=priority/multifactor
PriorityDecayHalfLife=90-0
PriorityWeightFairshare=70000
PriorityWeightPartition=30000
NodeName=c[001-040] CPUs=32 RealMemory=192000
NodeName=xlim-gpu[01-04] CPUs=32 RealMemory=384000 Gres=gpu:4
PartitionName=rapide Nodes=c[001-040] PriorityJobFactor=300 MaxTime=04:00:00
PartitionName=normal Nodes=c[001-040] PriorityJobFactor=200 MaxTime=2-00:00:00 Default=YES
PartitionName=long Nodes=c[001-040] PriorityJobFactor=100 MaxTime=30-00:00:00
PartitionName=xlim Nodes=xlim-gpu[01-04] PriorityJobFactor=1000 MaxTime=7-00:00:00
)";
inline constexpr std::string_view limoges_qos = R"(Name|Priority|UsageFactor
normal|0|1.0
)";
inline constexpr std::string_view limoges_assoc = R"(Account|User|RawShares|FairShare
root|||
 partenaires||100|
  cistem||1|
   cistem|alice|1|0.812500
  ingenomix||1|
   ingenomix|bruno|1|0.437500
 unilim||900|
  XLIM||283|
   xlim-rf||1|
    xlim-rf|chloe|1|0.250000
    xlim-rf|denis|1|0.937500
  IPAM||283|
   ipam-chimie||1|
    ipam-chimie|emma|1|0.625000
  GEIST||283|
   geist-bio||1|
    geist-bio|fabien|1|0.500000
  SHS||150|
   shs-eco||1|
    shs-eco|gaelle|1|0.375000
)";
inline constexpr std::string_view limoges_jobs = R"(JobID|User|Account|Partition|QOS|SubmitTime|NumNodes|NumCPUs|TimeLimit|State
2001|alice|cistem|rapide|normal|2026-11-21T10:00:00|1|8|02:00:00|PENDING
2002|bruno|ingenomix|normal|normal|2026-11-21T09:00:00|2|64|1-12:00:00|PENDING
2003|chloe|xlim-rf|xlim|normal|2026-11-20T12:00:00|1|32|3-00:00:00|PENDING
2004|denis|xlim-rf|long|normal|2026-11-18T12:00:00|4|128|20-00:00:00|PENDING
2005|emma|ipam-chimie|rapide,normal|normal|2026-11-21T11:00:00|1|16|03:00:00|PENDING
2006|fabien|geist-bio|normal|normal|2026-11-21T08:00:00|1|4|12:00:00|RUNNING
2007|gaelle|shs-eco|long|normal|2026-11-19T12:00:00|1|1|10-00:00:00|PENDING
)";

// Seed 004, MSU ICER: age up to 60000 after 30 days, fair-share 60000 (one-day half-life,
// computed every five minutes), size 100 per CPU and 20 per GB (PriorityWeightTRES with
// NO_NORMAL_TRES, so the TRES factors are the raw counts), +3000 for buy-in jobs (a QOS
// holding the highest QOS priority), billing weights CPU 1.0, memory 0.152 per GB, GPU 250.
// The "general" account's fair-share priority 59727 is the seed's (factor 0.995450); the
// nodes, the other users and the jobs are ours.
inline constexpr std::string_view msu_conf = R"(# Seed 004: MSU ICER
ClusterName=msu
AccountingStorageType=accounting_storage/slurmdbd
PriorityType=priority/multifactor
PriorityDecayHalfLife=1-0
PriorityCalcPeriod=5
PriorityMaxAge=30-0
PriorityWeightAge=60000
PriorityWeightFairshare=60000
PriorityWeightQOS=3000
PriorityWeightTRES=CPU=100,Mem=20G
PriorityFlags=NO_NORMAL_TRES
NodeName=amr-[001-100] CPUs=128 RealMemory=512000
NodeName=nal-[001-010] CPUs=64 RealMemory=256000 Gres=gpu:4
PartitionName=general Nodes=ALL Default=YES MaxTime=7-00:00:00 TRESBillingWeights=CPU=1.0,Mem=0.152G,GRES/gpu=250
)";
inline constexpr std::string_view msu_qos = R"(Name|Priority|UsageFactor
normal|0|1.0
buyin|1|1.0
)";
inline constexpr std::string_view msu_assoc = R"(Account|User|RawShares|FairShare
root|||
 general||1|
  general|sparty|1|0.995450
  general|zeke|1|0.412000
 scavenger||1|
  scavenger|sparty|1|1.000000
 buyin-lab||1|
  buyin-lab|ada|1|0.750000
)";
inline constexpr std::string_view msu_jobs = R"(JobID|User|Account|Partition|QOS|SubmitTime|NumNodes|NumCPUs|TimeLimit|TRES|State
30001|sparty|general|general|normal|2026-11-20T12:00:00|1|1|60|cpu=1,mem=1G,node=1|PENDING
30002|zeke|general|general|normal|2026-10-22T12:00:00|1|128|7-00:00:00|cpu=128,mem=500G,node=1|PENDING
30003|ada|buyin-lab|general|buyin|2026-11-06T12:00:00|1|16|1-00:00:00|cpu=16,mem=64G,node=1,gres/gpu=1|PENDING
30004|sparty|scavenger|general|normal|2026-11-21T00:00:00|2|256|04:00:00|cpu=256,mem=1000G,node=2|PENDING
)";

inline constexpr std::array<demo_cluster, 3> demo_clusters{{
    {"seed000", "Seed 000: the Multifactor Priority Plugin's example configuration",
     {seed000_conf, seed000_qos, seed000_assoc, seed000_jobs}, "104"},
    {"limoges", "Seed 001: Limoges (fair-share 70000, partition 30000)",
     {limoges_conf, limoges_qos, limoges_assoc, limoges_jobs}, "2005"},
    {"msu", "Seed 004: MSU ICER (age, fair-share, size per CPU and GB, buy-in QOS)",
     {msu_conf, msu_qos, msu_assoc, msu_jobs}, "30003"},
}};

/// Seed 002: Maui's credential example (john, paul, staff), the expansion factor and a QOS
/// QTWEIGHT, on the default queue-time priority.
inline constexpr std::string_view maui_cfg = R"(# Seed 002: Maui's credential example, XFACTOR and QTWEIGHT
CREDWEIGHT      1
USERWEIGHT      1
GROUPWEIGHT     1
XFACTORWEIGHT   100
USERCFG[john]   PRIORITY=2000
USERCFG[paul]   PRIORITY=-1000
GROUPCFG[staff] PRIORITY=10000
QOSCFG[special] QTWEIGHT=5000
)";
inline constexpr std::string_view maui_jobs = R"(JobID|User|Group|QOS|SubmitTime|WCLimit|Procs
1|john|staff|normal|1795258800|1:00:00|4
2|paul|staff|normal|1795258800|4:00:00|4
3|ringo||normal|1795204800|1:00:00|1
4|george||special|1795255200|4:00:00|16
5|paul||normal|1795261800|1:00:00|1
)";
inline constexpr std::string_view maui_nodes = R"(Name|Procs|Mem
n1|64|256000
)";

/// Runs sprio (with `extra` options) on one embedded cluster.
outcome run_demo_sprio(const demo_cluster& d, std::vector<std::string_view> extra);

/// Runs diagnose (with `extra` options) on the embedded Maui cluster.
outcome run_demo_diagnose(std::vector<std::string_view> extra);

/// `mfprio demo`'s options: its --help lists them, its parser takes them and no other.
inline constexpr option_row demo_option_rows[] = {
    {"--help", "this text"},
};

inline const std::vector<option_spelling> demo_option_spellings = option_spellings_of({demo_option_rows});
inline const std::vector<std::string_view> demo_option_names = option_names_of(demo_option_spellings);

inline const std::string demo_help = render_help(
    "usage: mfprio demo\n"
    "\n"
    "Prints, for three Slurm clusters embedded from the seeds, the sprio table and one\n"
    "--explain breakdown, then Maui's diagnose -p for seed 002's examples, at the fixed time\n"
    "2026-11-21T12:00:00 UTC. Takes no other option than --help.\n"
    "\n"
    "\n",
    {demo_option_rows}, 20,
    
    "\n"
    "Example:\n"
    "  mfprio demo\n");

} // namespace mfprio::cli
