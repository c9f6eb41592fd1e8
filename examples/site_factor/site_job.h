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
};

/*
 * Reads PrioritySiteFactorParameters (`policy=FILE[,snapshot=DIR]`) and the policy file. Returns 0, or -1
 * with the reason (file, line, column and what is wrong) in `error` (at most `size` bytes,
 * NUL-terminated); then no policy is loaded and every job's site factor is 0.
 */
int mfprio_site_configure(const char *parameters, char *error, size_t size);

/* Whether a policy is loaded. */
int mfprio_site_loaded(void);

/* The policy file in use ("" when none). */
const char *mfprio_site_policy_path(void);

/* The site factor of `job` at `now` (0 without a policy), not offset by NICE_OFFSET. */
int64_t mfprio_site_value(const struct mfprio_site_job *job, int64_t now);

/*
 * With snapshot=DIR among the parameters, records the time of an update pass in
 * DIR/site_factor_pass ("pass=EPOCH", written to a new file, then renamed), for mfprio's
 * offline twin (`mfprio sprio --live --site-policy FILE --site-snapshot DIR`). Returns 0, or
 * -1 with the reason in `error`.
 */
int mfprio_site_note_pass(int64_t now, char *error, size_t size);

/* Drops the policy. */
void mfprio_site_clear(void);

#ifdef __cplusplus
}
#endif

#endif
