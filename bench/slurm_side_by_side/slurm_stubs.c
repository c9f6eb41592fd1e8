/*
 * The slurmctld functions Slurm's priority/multifactor plugin names that libslurmfull does
 * not provide. None lies on the paths bench/slurm_side_by_side times (decay_apply_weighted_factors
 * on single-partition jobs, the Fair Tree and classic passes): each stops the program if it is
 * ever reached, rather than returning something made up. Declared here without Slurm's
 * headers, whose prototypes for them differ between releases; only the symbols matter.
 */
#include <stdio.h>
#include <stdlib.h>

static void reached(const char *name)
{
	fprintf(stderr, "slurm_side_by_side: slurmctld's %s was called; the harness does not provide it\n", name);
	abort();
}

#define SBS_STUB(name) \
	void name(void); \
	void name(void) { reached(#name); }

SBS_STUB(acct_policy_get_acct_used_limits)
SBS_STUB(acct_policy_get_user_used_limits)
SBS_STUB(calc_job_billable_tres)
SBS_STUB(lock_slurmctld)
SBS_STUB(unlock_slurmctld)
SBS_STUB(part_list_to_xstr)
SBS_STUB(validate_operator)
