/*
 * The Slurm half of bench/slurm_side_by_side (see slurm_side.h). Slurm's priority/multifactor
 * plugin is compiled here from the source tree the build names (-Dslurm_source): its two
 * files are included whole, so that the calls timed are the plugin's own functions, static
 * ones included, exactly as slurmctld's decay thread makes them. Nothing of Slurm is copied
 * into this repository; this file only builds the records those functions read.
 *
 * The plugin links against libslurmfull (assoc_mgr, lists, logging, slurm.conf); the few
 * slurmctld functions it names besides are stubs in slurm_stubs.c that abort if reached.
 */
#include "src/plugins/priority/multifactor/priority_multifactor.c"
#include "src/plugins/priority/multifactor/fair_tree.c"

#include "src/interfaces/accounting_storage.h"

#include "slurm_side.h"

static slurmdb_assoc_rec_t **side_assocs;  /* by the caller's index */
static size_t side_assoc_count;
static job_record_t **side_jobs;
static size_t side_job_count;

static void side_error(char *err, size_t errlen, const char *what)
{
	snprintf(err, errlen, "%s", what);
}

int sbs_init(const char *conf_path, const struct sbs_weights *w, char *err, size_t errlen)
{
	/* slurmctld's logging as it starts without SlurmctldDebug: info to stderr, so the
	 * plugin's debug calls cost what they cost there (a level test). */
	log_options_t opts = LOG_OPTS_STDERR_ONLY;
	opts.stderr_level = LOG_LEVEL_INFO;
	log_init("slurm_side_by_side", opts, 0, NULL);

	if (slurm_conf_init(conf_path) != SLURM_SUCCESS) {
		side_error(err, errlen, "slurm_conf_init failed on the generated slurm.conf");
		return -1;
	}

	/* Without AccountingStorageType no plugin is loaded: assoc_mgr starts with empty lists,
	 * which the updates below fill as slurmdbd's would. */
	if (acct_storage_g_init() != SLURM_SUCCESS) {
		side_error(err, errlen, "acct_storage_g_init failed");
		return -1;
	}
	assoc_init_args_t args = { 0 };
	args.enforce = 0;
	args.cache_level = ASSOC_MGR_CACHE_ASSOC | ASSOC_MGR_CACHE_QOS | ASSOC_MGR_CACHE_USER |
		ASSOC_MGR_CACHE_TRES;
	if (assoc_mgr_init(NULL, &args, SLURM_SUCCESS) != SLURM_SUCCESS) {
		side_error(err, errlen, "assoc_mgr_init failed");
		return -1;
	}

	/* The TRES slurmctld always has (ids 1-8), and gres/gpu as AccountingStorageTRES adds it. */
	static const char *const types[] = { "cpu", "mem", "energy", "node", "billing", "fs", "vmem", "pages", "gres" };
	static const char *const names[] = { NULL, NULL, NULL, NULL, NULL, "disk", NULL, NULL, "gpu" };
	slurmdb_update_object_t update = { 0 };
	update.type = SLURMDB_ADD_TRES;
	update.objects = list_create(slurmdb_destroy_tres_rec);
	for (int i = 0; i < 9; i++) {
		slurmdb_tres_rec_t *r = xmalloc(sizeof(*r));
		r->id = i < 8 ? (uint32_t) (i + 1) : 1001;
		r->type = xstrdup(types[i]);
		r->name = names[i] ? xstrdup(names[i]) : NULL;
		list_append(update.objects, r);
	}
	int rc = assoc_mgr_update_tres(&update, false);
	FREE_NULL_LIST(update.objects);
	if (rc != SLURM_SUCCESS || g_tres_count != 9) {
		side_error(err, errlen, "assoc_mgr_update_tres did not create the nine TRES");
		return -1;
	}
	slurmctld_tres_cnt = g_tres_count;

	slurm_conf.priority_weight_age = w->age;
	slurm_conf.priority_weight_assoc = w->assoc;
	slurm_conf.priority_weight_fs = w->fairshare;
	slurm_conf.priority_weight_js = w->job_size;
	slurm_conf.priority_weight_part = w->partition;
	slurm_conf.priority_weight_qos = w->qos;
	slurm_conf.priority_max_age = w->max_age;
	xfree(slurm_conf.priority_weight_tres);
	slurm_conf.priority_weight_tres = xstrdup(w->tres);
	slurm_conf.fs_dampening_factor = 1;
	_internal_setup();
	if (!weight_tres) {
		side_error(err, errlen, "PriorityWeightTRES was not understood");
		return -1;
	}
	return 0;
}

const char *sbs_slurm_version(void)
{
	return SLURM_VERSION_STRING;
}

int sbs_tres_count(void)
{
	return g_tres_count;
}

const char *sbs_tres_name(int i)
{
	return assoc_mgr_tres_name_array[i];
}

int sbs_load_assocs(const struct sbs_assoc *a, size_t n, char *err, size_t errlen)
{
	if (!n) {
		side_error(err, errlen, "no associations");
		return -1;
	}
	slurmdb_update_object_t update = { 0 };
	update.type = SLURMDB_ADD_ASSOC;
	update.objects = list_create(slurmdb_destroy_assoc_rec);
	for (size_t i = 0; i < n; i++) {
		slurmdb_assoc_rec_t *r = xmalloc(sizeof(*r));
		slurmdb_init_assoc_rec(r, 0);
		r->id = (uint32_t) i + 1;
		r->cluster = xstrdup(slurm_conf.cluster_name);
		r->acct = xstrdup(a[i].account);
		if (a[i].user) {
			r->user = xstrdup(a[i].user);
			r->uid = 100000 + (uint32_t) i; /* no passwd lookup */
		}
		if (i) {
			r->parent_id = a[i].parent + 1;
			r->parent_acct = xstrdup(a[a[i].parent].account);
		}
		r->shares_raw = i ? a[i].shares : 1;
		r->priority = a[i].priority;
		list_append(update.objects, r);
	}
	int rc = assoc_mgr_update_assocs(&update, false);
	FREE_NULL_LIST(update.objects);
	if (rc != SLURM_SUCCESS || !assoc_mgr_root_assoc || (size_t) list_count(assoc_mgr_assoc_list) != n) {
		side_error(err, errlen, "assoc_mgr_update_assocs did not take every association");
		return -1;
	}

	xfree(side_assocs);
	side_assocs = xcalloc(n, sizeof(*side_assocs));
	side_assoc_count = n;
	list_itr_t *itr = list_iterator_create(assoc_mgr_assoc_list);
	slurmdb_assoc_rec_t *r;
	while ((r = list_next(itr)))
		if (r->id >= 1 && r->id <= n)
			side_assocs[r->id - 1] = r;
	list_iterator_destroy(itr);
	for (size_t i = 0; i < n; i++) {
		if (!side_assocs[i]) {
			side_error(err, errlen, "an association is missing after the update");
			return -1;
		}
		side_assocs[i]->usage->usage_raw = a[i].usage_raw;
		side_assocs[i]->usage->priority_norm = a[i].priority_norm;
	}
	if (side_assocs[0] != assoc_mgr_root_assoc) {
		side_error(err, errlen, "the first association is not assoc_mgr's root");
		return -1;
	}
	return 0;
}

void sbs_set_fair_tree(int on)
{
	assoc_mgr_lock_t locks = { .assoc = WRITE_LOCK };
	if (on)
		slurm_conf.priority_flags |= PRIORITY_FLAGS_FAIR_TREE;
	else
		slurm_conf.priority_flags &= ~PRIORITY_FLAGS_FAIR_TREE;
	flags = slurm_conf.priority_flags;
	assoc_mgr_lock(&locks);
	_set_norm_shares(assoc_mgr_root_assoc->usage->children_list);
	assoc_mgr_root_assoc->usage->usage_efctv = 1.0;
	assoc_mgr_unlock(&locks);
}

void sbs_fair_tree_pass(void)
{
	/* fair_tree_decay's middle step, under the same lock. */
	assoc_mgr_lock_t locks = { .assoc = WRITE_LOCK };
	assoc_mgr_lock(&locks);
	_apply_priority_fs();
	assoc_mgr_unlock(&locks);
}

void sbs_classic_pass(void)
{
	/* The decay thread's walk of the accounts, then what each user's jobs ask of
	 * _get_fairshare_priority: the user's effective usage and factor. */
	assoc_mgr_lock_t locks = { .assoc = WRITE_LOCK };
	assoc_mgr_lock(&locks);
	_set_children_usage_efctv(assoc_mgr_root_assoc->usage->children_list);
	for (size_t i = 1; i < side_assoc_count; i++)
		if (side_assocs[i]->user && fuzzy_equal(side_assocs[i]->usage->usage_efctv, NO_VAL))
			priority_p_set_assoc_usage(side_assocs[i]);
	assoc_mgr_unlock(&locks);
}

double sbs_assoc_fs_factor(size_t i)
{
	return side_assocs[i]->usage->fs_factor;
}

double sbs_assoc_shares_norm(size_t i)
{
	return side_assocs[i]->usage->shares_norm;
}

long double sbs_assoc_usage_efctv(size_t i)
{
	return side_assocs[i]->usage->usage_efctv;
}

long double sbs_assoc_level_fs(size_t i)
{
	return side_assocs[i]->usage->level_fs;
}

static uint64_t *side_counts(const double *v)
{
	uint64_t *c = xcalloc(g_tres_count, sizeof(*c));
	for (int i = 0; i < g_tres_count; i++)
		c[i] = (uint64_t) v[i];
	return c;
}

int sbs_load_jobs(const struct sbs_job *jobs, size_t n, const struct sbs_partition *parts, size_t nparts,
		  const struct sbs_qos *qos, size_t nqos, uint32_t nodes, uint32_t cpus, char *err, size_t errlen)
{
	part_record_t **p = xcalloc(nparts, sizeof(*p));
	for (size_t i = 0; i < nparts; i++) {
		p[i] = xcalloc(1, sizeof(part_record_t));
		p[i]->priority_job_factor = (uint16_t) parts[i].priority_job_factor;
		p[i]->norm_priority = parts[i].norm_priority;
		p[i]->max_time = parts[i].max_time;
		p[i]->tres_cnt = side_counts(parts[i].tres_totals);
	}
	slurmdb_qos_rec_t **q = xcalloc(nqos, sizeof(*q));
	for (size_t i = 0; i < nqos; i++) {
		q[i] = xcalloc(1, sizeof(slurmdb_qos_rec_t));
		q[i]->priority = qos[i].priority;
		q[i]->usage = xcalloc(1, sizeof(slurmdb_qos_usage_t));
		q[i]->usage->norm_priority = qos[i].norm_priority;
	}
	active_node_record_count = (int) nodes;
	cluster_cpus = cpus;

	side_jobs = xcalloc(n, sizeof(*side_jobs));
	side_job_count = n;
	for (size_t k = 0; k < n; k++) {
		const struct sbs_job *j = &jobs[k];
		if (j->association >= side_assoc_count || !side_assocs[j->association]->user ||
		    j->partition >= nparts || j->qos >= nqos) {
			side_error(err, errlen, "a job names an association, partition or QOS out of range");
			return -1;
		}
		job_record_t *r = xcalloc(1, sizeof(job_record_t));
		r->job_id = j->id;
		r->job_state = JOB_PENDING;
		r->priority = 1;
		r->assoc_ptr = side_assocs[j->association];
		r->part_ptr = p[j->partition];
		r->qos_ptr = q[j->qos];
		r->time_limit = j->time_limit;
		r->site_factor = (uint32_t) ((int64_t) j->site_factor + NICE_OFFSET);
		r->tres_req_cnt = side_counts(j->tres);
		r->details = xcalloc(1, sizeof(job_details_t));
		r->details->accrue_time = (time_t) j->accrue_time;
		r->details->min_nodes = j->min_nodes;
		r->details->min_cpus = j->cpus;
		r->details->max_cpus = NO_VAL;
		r->details->nice = (uint32_t) ((int64_t) j->nice + NICE_OFFSET);
		side_jobs[k] = r;
	}
	return 0;
}

void sbs_apply_weighted_factors(int64_t now)
{
	time_t start = (time_t) now;
	for (size_t k = 0; k < side_job_count; k++)
		decay_apply_weighted_factors(side_jobs[k], &start);
}

uint32_t sbs_job_priority(size_t k)
{
	return side_jobs[k]->priority;
}
