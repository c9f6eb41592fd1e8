/*
 * The plain job record between site_factor/mfprio's two halves: the C shim
 * (site_factor_mfprio.c, the only file that includes Slurm's headers) fills it from
 * job_record_t; the C++ core (site_core.cpp, an ordinary mfprio consumer) computes the site
 * factor from it. Mirrors mfprio::queue::site_job.
 */
#ifndef MFPRIO_SITE_JOB_H
#define MFPRIO_SITE_JOB_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct mfprio_site_job {
	uint32_t id;
	int64_t submit_time;         /* details->submit_time */
	int64_t begin_time;          /* details->begin_time, 0 when none */
	uint32_t time_limit;         /* minutes; NO_VAL none, INFINITE unlimited */
	uint32_t partition_priority; /* part_ptr->priority_job_factor */
	uint32_t qos_priority;       /* qos_ptr->priority */
	int32_t nice;                /* details->nice - NICE_OFFSET */
	uint32_t cpus;               /* details->min_cpus */
	uint32_t nodes;              /* details->min_nodes */
	uint64_t mem_mb;             /* tres_req_cnt[TRES_ARRAY_MEM] */
	uint64_t gpus;               /* tres_req_cnt of gres/gpu */
	uint64_t owner_gpu_minutes;  /* assoc usage_tres_raw of gres/gpu, whole minutes */
};

/* An association as the snapshot records it (site_snapshot.hpp); strings NULL for none. */
struct mfprio_site_assoc {
	uint32_t id;
	const char *account;
	const char *user;
	const char *partition;
	uint32_t shares_raw;         /* SLURMDB_FS_USE_PARENT for Fairshare=parent */
	uint32_t level_shares;
	double shares_norm;
	long double usage_raw;
	long double usage_norm;
	long double usage_efctv;
	uint32_t fs_parent;          /* usage->fs_assoc_ptr's id, 0 for none (the root) */
	long double gpu_usage;       /* usage_tres_raw of gres/gpu, 0 without */
};

/*
 * Reads PrioritySiteFactorParameters (`policy=FILE[,snapshot=DIR]`) and the policy file. Returns 0, or -1
 * with the reason (file, line, column and what is wrong) in `error` (at most `size` bytes,
 * NUL-terminated); then no policy is loaded and every job's site factor is 0.
 */
int mfprio_site_configure(const char *parameters, char *error, size_t size);

/* Whether a policy is loaded. */
int mfprio_site_loaded(void);

/*
 * What the loaded policy reads of a job (mfprio::queue::site_reads): the shim fills only
 * those fields of struct mfprio_site_job; 0 without a policy.
 */
#define MFPRIO_SITE_READS_TIMES 1u     /* submit_time, begin_time, time_limit */
#define MFPRIO_SITE_READS_PARTITION 2u /* partition_priority */
#define MFPRIO_SITE_READS_QOS 4u       /* qos_priority */
#define MFPRIO_SITE_READS_REQUEST 8u   /* nice, cpus, nodes */
#define MFPRIO_SITE_READS_TRES 16u     /* mem_mb, gpus */
#define MFPRIO_SITE_READS_OWNER_GPU 32u /* owner_gpu_minutes */
uint32_t mfprio_site_reads(void);

/* The policy file in use ("" when none). */
const char *mfprio_site_policy_path(void);

/* The site factor of `job` at `now` (0 without a policy), not offset by NICE_OFFSET. */
int64_t mfprio_site_value(const struct mfprio_site_job *job, int64_t now);

/*
 * The snapshot (snapshot=DIR among the parameters) of an update pass, for mfprio's offline
 * twin (`mfprio sprio --live --site-policy FILE --site-snapshot DIR`):
 * mfprio_site_snapshot_wanted() says whether one is configured; mfprio_site_snapshot_add()
 * copies one association (called under slurmctld's locks, as little work as a copy);
 * mfprio_site_snapshot_commit() hands the copy to the plugin's writer thread, which writes
 * DIR/site_factor_snapshot (to a new file, then renamed) outside slurmctld's locks.
 */
int mfprio_site_snapshot_wanted(void);
void mfprio_site_snapshot_add(const struct mfprio_site_assoc *assoc);
void mfprio_site_snapshot_commit(int64_t now);

/*
 * The writer thread's last error (cannot write the snapshot), copied into `error` and
 * cleared: returns 1 when there was one, else 0.
 */
int mfprio_site_take_error(char *error, size_t size);

/* Drops the policy and stops the writer thread. */
void mfprio_site_clear(void);

#ifdef __cplusplus
}
#endif

#endif
