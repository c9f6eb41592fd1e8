#ifndef MFPRIO_BENCH_SLURM_SIDE_H
#define MFPRIO_BENCH_SLURM_SIDE_H
/*
 * The Slurm half of bench/slurm_side_by_side: Slurm's own priority/multifactor code
 * (priority_multifactor.c and fair_tree.c of the configured source tree named by
 * -Dslurm_source, compiled into slurm_side.c) driven through this small C interface, so that
 * the C++ half never sees a Slurm header. Associations, partitions, QOS and jobs are built as
 * slurmctld holds them (assoc_mgr's records, part_record_t, job_record_t); the timed calls are
 * the ones slurmctld's decay thread makes.
 */
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* PriorityWeight* and PriorityMaxAge as slurm.conf gives them. */
struct sbs_weights {
	uint32_t age, assoc, fairshare, job_size, partition, qos;
	uint32_t max_age;      /* seconds */
	const char *tres;      /* PriorityWeightTRES, e.g. "CPU=1000,Mem=500,GRES/gpu=2000" */
};

/* One association, parents before children; index 0 is the root. */
struct sbs_assoc {
	uint32_t parent;       /* index of the parent (ignored for the root) */
	uint32_t shares;       /* Fairshare= (SLURMDB_FS_USE_PARENT for "parent") */
	const char *account;   /* the account (a user's: the account it belongs to) */
	const char *user;      /* NULL for an account */
	long double usage_raw; /* RawUsage (accounts: the sum of their users) */
	uint32_t priority;     /* Priority= */
	double priority_norm;  /* priority / the largest association priority */
};

struct sbs_partition {
	uint32_t priority_job_factor, max_time;
	double norm_priority;
	const double *tres_totals;   /* one count per TRES position (sbs_tres_name) */
};

struct sbs_qos {
	uint32_t priority;
	double norm_priority;
};

struct sbs_job {
	uint32_t id, association, partition, qos; /* indexes into the arrays given */
	int64_t accrue_time;                      /* 0: not accruing */
	uint32_t min_nodes, cpus, time_limit;     /* time_limit NO_VAL: none */
	int32_t nice, site_factor;
	const double *tres;                       /* requested count per TRES position */
};

/* Reads a slurm.conf written for the run, starts logging as slurmctld does by default
 * (info), creates the TRES cpu, mem, energy, node, billing, fs/disk, vmem, pages and
 * gres/gpu in assoc_mgr and sets the weights. Returns 0, or -1 with a message in err. */
int sbs_init(const char *conf_path, const struct sbs_weights *w, char *err, size_t errlen);

/* SLURM_VERSION_STRING of the source tree compiled in ("26.05.3"). */
const char *sbs_slurm_version(void);

/* The number of TRES positions and the name of position i ("cpu", "gres/gpu", ...). */
int sbs_tres_count(void);
const char *sbs_tres_name(int i);

/* Loads the associations through assoc_mgr_update_assocs, as slurmdbd's updates reach
 * slurmctld. Returns 0, or -1 with a message in err. */
int sbs_load_assocs(const struct sbs_assoc *a, size_t n, char *err, size_t errlen);

/* PriorityFlags=FAIR_TREE (1) or NO_FAIR_TREE (0): sets the flag and normalizes the
 * shares as assoc_mgr does for that algorithm (not timed). */
void sbs_set_fair_tree(int on);

/* One fair-share pass over every association, as the decay thread makes it: Fair Tree's
 * walk from the root; classic, every account's effective usage and then every user's (what
 * each job's fair-share factor asks for). */
void sbs_fair_tree_pass(void);
void sbs_classic_pass(void);

/* The results of the last pass for association i (its index in sbs_load_assocs). */
double sbs_assoc_fs_factor(size_t i);
double sbs_assoc_shares_norm(size_t i);
long double sbs_assoc_usage_efctv(size_t i);
long double sbs_assoc_level_fs(size_t i);

/* Builds job_record_t's for the jobs (pending, priority 1, one partition, one QOS) over the
 * cluster's node and CPU counts. Returns 0, or -1 with a message in err. */
int sbs_load_jobs(const struct sbs_job *jobs, size_t n, const struct sbs_partition *parts, size_t nparts,
		  const struct sbs_qos *qos, size_t nqos, uint32_t nodes, uint32_t cpus, char *err, size_t errlen);

/* decay_apply_weighted_factors on every job at `now`, and the priority it left on job k. */
void sbs_apply_weighted_factors(int64_t now);
uint32_t sbs_job_priority(size_t k);

#ifdef __cplusplus
}
#endif
#endif
