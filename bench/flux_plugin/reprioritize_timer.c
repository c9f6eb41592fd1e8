/* reprioritize_timer.so: a jobtap plugin for bench/flux_plugin/run.sh. Its one service,
 * job-manager.reprioritize_timer.reprioritize, has the job manager reprioritize every pending
 * job (flux_jobtap_reprioritize_all: the priority plugin in force is called for each) and
 * answers {"seconds": wall time of that call, "jobs": ...}, measured inside the job manager,
 * so that the priority plugins are compared without the RPC's own cost. */
#include <errno.h>
#include <time.h>

#include <flux/core.h>
#include <flux/jobtap.h>

static void reprioritize_cb (flux_t *h, flux_msg_handler_t *mh, const flux_msg_t *msg, void *arg)
{
    flux_plugin_t *p = arg;
    struct timespec a, b;
    (void)mh;
    clock_gettime (CLOCK_MONOTONIC, &a);
    int rc = flux_jobtap_reprioritize_all (p);
    clock_gettime (CLOCK_MONOTONIC, &b);
    double seconds = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9;
    if (rc < 0) {
        if (flux_respond_error (h, msg, errno, NULL) < 0)
            flux_log_error (h, "reprioritize_timer: flux_respond_error");
    } else if (flux_respond_pack (h, msg, "{s:f}", "seconds", seconds) < 0) {
        flux_log_error (h, "reprioritize_timer: flux_respond_pack");
    }
}

__attribute__((visibility ("default"))) int flux_plugin_init (flux_plugin_t *p)
{
    if (flux_plugin_set_name (p, "reprioritize_timer") < 0)
        return -1;
    return flux_jobtap_service_register (p, "reprioritize", reprioritize_cb, p);
}
