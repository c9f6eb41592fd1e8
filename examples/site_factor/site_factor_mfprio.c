/*
 * site_factor/mfprio: a Slurm site_factor plugin (PrioritySiteFactorPlugin) whose factor is a
 * policy file read by mfprio (site_core.cpp). This file is the only one that includes
 * Slurm's headers: it copies what the policy reads of each job into a plain
 * struct mfprio_site_job (site_job.h) and stores the value the policy gives, offset by
 * NICE_OFFSET, in job_ptr->site_factor, which priority/multifactor adds unweighted.
 *
 * slurm.conf:
 *   PrioritySiteFactorPlugin=site_factor/mfprio
 *   PrioritySiteFactorParameters=policy=/etc/slurm/site.policy[,snapshot=DIR]
 *
 * With snapshot=DIR, each update also copies every association's usage (raw, normalized,
 * effective, GPU) as slurmctld's recalculation uses it; the plugin's writer thread writes it
 * to DIR/site_factor_snapshot outside slurmctld's locks. The time the update held the job
 * lock (the pending jobs, then the copy) is logged at debug level.
 *
 * A missing or malformed policy is logged (its file, line, column and the reason) and every
 * job's site factor is 0 until `scontrol reconfigure` reads a good one; slurmctld keeps
 * running. The value is computed at submission and again at each priority recalculation
 * (site_factor_p_update, PriorityCalcPeriod) for every pending job, at the time of the call.
 *
 * MIT licensed, like the rest of mfprio. Built against the headers of the Slurm release it
 * is loaded by (plugin_version must match), it runs inside slurmctld; no Slurm code is
 * copied here.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "src/common/assoc_mgr.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/slurm_xlator.h"
#include "src/slurmctld/slurmctld.h"

#include "site_job.h"

const char plugin_name[] = "mfprio site_factor plugin";
const char plugin_type[] = "site_factor/mfprio";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

/*
 * A job's details: `struct job_details` in slurmctld.h up to 22.05; from 23.02 an anonymous
 * struct typedef'd as job_details_t (slurmctld.h, then common/job_record.h from 24.05).
 */
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0)
typedef job_details_t mfprio_job_details_t;
#else
typedef struct job_details mfprio_job_details_t;
#endif

/* The position of gres/gpu in the TRES arrays, -1 when the cluster has none. */
static int gpu_pos = -1;

static void _configure(const char *when)
{
	char reason[1024];

	if (mfprio_site_configure(slurm_conf.site_factor_params, reason, sizeof(reason))) {
		error("%s: %s: %s; every site factor is 0 until a reconfigure reads a good policy",
		      plugin_type, when, reason);
		return;
	}
	info("%s: %s: policy %s", plugin_type, when, mfprio_site_policy_path());
}

static void _find_gpu_pos(void)
{
	slurmdb_tres_rec_t tres = { .type = "gres", .name = "gpu" };
	assoc_mgr_lock_t locks = { .tres = READ_LOCK };

	assoc_mgr_lock(&locks);
	gpu_pos = assoc_mgr_find_tres_pos(&tres, true);
	assoc_mgr_unlock(&locks);
}

static int _max_partition_priority(void *x, void *arg)
{
	const part_record_t *part_ptr = x;
	uint32_t *max = arg;

	if (part_ptr && part_ptr->priority_job_factor > *max)
		*max = part_ptr->priority_job_factor;
	return SLURM_SUCCESS;
}

/* Fills what the policy reads (`reads`, MFPRIO_SITE_READS_*), nothing else. */
static void _fill(const job_record_t *job_ptr, uint32_t reads, struct mfprio_site_job *j)
{
	const mfprio_job_details_t *d = job_ptr->details;

	memset(j, 0, sizeof(*j));
	j->id = job_ptr->job_id;
	j->cpus = 1;
	j->nodes = 1;
	if (reads & MFPRIO_SITE_READS_TIMES) {
		j->time_limit = job_ptr->time_limit;
		if (d) {
			j->submit_time = d->submit_time;
			j->begin_time = d->begin_time;
		}
	}
	if ((reads & MFPRIO_SITE_READS_REQUEST) && d) {
		j->nice = (int32_t) ((int64_t) d->nice - NICE_OFFSET);
		j->cpus = d->min_cpus;
		j->nodes = d->min_nodes;
	}
	/*
	 * A job of several partitions: the highest PriorityJobFactor among them (part_ptr is
	 * the partition the scheduler tried last, which changes from one attempt to the next).
	 */
	if (reads & MFPRIO_SITE_READS_PARTITION) {
		if (job_ptr->part_ptr_list)
			list_for_each(job_ptr->part_ptr_list, _max_partition_priority,
				      &j->partition_priority);
		else if (job_ptr->part_ptr)
			j->partition_priority = job_ptr->part_ptr->priority_job_factor;
	}
	if ((reads & MFPRIO_SITE_READS_QOS) && job_ptr->qos_ptr)
		j->qos_priority = ((slurmdb_qos_rec_t *) job_ptr->qos_ptr)->priority;
	if ((reads & MFPRIO_SITE_READS_TRES) && job_ptr->tres_req_cnt) {
		j->mem_mb = job_ptr->tres_req_cnt[TRES_ARRAY_MEM];
		if (gpu_pos >= 0)
			j->gpus = job_ptr->tres_req_cnt[gpu_pos];
	}
	/* The association's GPU usage, whole minutes as assoc_mgr prints them (assoc lock held). */
	if ((reads & MFPRIO_SITE_READS_OWNER_GPU) && (gpu_pos >= 0) && job_ptr->assoc_ptr) {
		const slurmdb_assoc_rec_t *assoc = job_ptr->assoc_ptr;

		if (assoc->usage && assoc->usage->usage_tres_raw &&
		    (assoc->usage->usage_tres_raw[gpu_pos] > 0))
			j->owner_gpu_minutes =
				(uint64_t) assoc->usage->usage_tres_raw[gpu_pos] / 60;
	}
}

static void _set(job_record_t *job_ptr, uint32_t reads, time_t now)
{
	struct mfprio_site_job j;
	int64_t value;

	_fill(job_ptr, reads, &j);
	value = mfprio_site_value(&j, (int64_t) now);
	job_ptr->site_factor = (uint32_t) (value + (int64_t) NICE_OFFSET);
}

extern int init(void)
{
	_configure("init");
	debug("%s loaded", plugin_name);
	return SLURM_SUCCESS;
}

extern int fini(void)
{
	mfprio_site_clear();
	return SLURM_SUCCESS;
}

extern void site_factor_p_reconfig(void)
{
	_configure("reconfigure");
}

extern void site_factor_p_set(job_record_t *job_ptr)
{
	assoc_mgr_lock_t locks = { .assoc = READ_LOCK };

	_find_gpu_pos();
	assoc_mgr_lock(&locks);
	_set(job_ptr, mfprio_site_reads(), time(NULL));
	assoc_mgr_unlock(&locks);
}

struct update_pass {
	time_t now;
	uint32_t reads;
	int pending;
};

static int _update(void *x, void *arg)
{
	job_record_t *job_ptr = x;
	struct update_pass *pass = arg;

	if (IS_JOB_PENDING(job_ptr)) {
		_set(job_ptr, pass->reads, pass->now);
		pass->pending++;
	}
	return SLURM_SUCCESS;
}

static int _copy_assoc(void *x, void *arg)
{
	const slurmdb_assoc_rec_t *assoc = x;
	struct mfprio_site_assoc a = { 0 };
	int *count = arg;

	if (!assoc->usage)
		return SLURM_SUCCESS;
	a.id = assoc->id;
	a.account = assoc->acct;
	a.user = assoc->user;
	a.partition = assoc->partition;
	a.shares_raw = assoc->shares_raw;
	a.level_shares = assoc->usage->level_shares;
	a.shares_norm = assoc->usage->shares_norm;
	a.usage_raw = assoc->usage->usage_raw;
	a.usage_norm = assoc->usage->usage_norm;
	a.usage_efctv = assoc->usage->usage_efctv;
	if (assoc->usage->fs_assoc_ptr)
		a.fs_parent = assoc->usage->fs_assoc_ptr->id;
	if ((gpu_pos >= 0) && assoc->usage->usage_tres_raw)
		a.gpu_usage = assoc->usage->usage_tres_raw[gpu_pos];
	mfprio_site_snapshot_add(&a);
	(*count)++;
	return SLURM_SUCCESS;
}

static long _micros_since(const struct timespec *start)
{
	struct timespec end;

	clock_gettime(CLOCK_MONOTONIC, &end);
	return (long) ((end.tv_sec - start->tv_sec) * 1000000L +
		       (end.tv_nsec - start->tv_nsec) / 1000L);
}

extern void site_factor_p_update(void)
{
	struct update_pass pass = { .now = time(NULL), .reads = mfprio_site_reads() };
	assoc_mgr_lock_t locks = { .assoc = READ_LOCK };
	struct timespec start;
	long jobs_us, snapshot_us = 0;
	int assocs = 0;
	char reason[1024];

	/* Without a policy every pending job's site factor is 0. */
	_find_gpu_pos();
	clock_gettime(CLOCK_MONOTONIC, &start);
	assoc_mgr_lock(&locks);
	list_for_each(job_list, _update, &pass);
	jobs_us = _micros_since(&start);
	if (mfprio_site_snapshot_wanted()) {
		clock_gettime(CLOCK_MONOTONIC, &start);
		if (assoc_mgr_assoc_list)
			list_for_each(assoc_mgr_assoc_list, _copy_assoc, &assocs);
		mfprio_site_snapshot_commit((int64_t) pass.now);
		snapshot_us = _micros_since(&start);
	}
	assoc_mgr_unlock(&locks);
	debug("%s: update of %d pending jobs: %ld us; snapshot of %d associations: %ld us (job lock held)",
	      plugin_type, pass.pending, jobs_us, assocs, snapshot_us);
	if (mfprio_site_take_error(reason, sizeof(reason)))
		error("%s: %s", plugin_type, reason);
}
