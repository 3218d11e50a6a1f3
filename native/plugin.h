/* plugin.h - the ABI of native/plugin.c, the runner of contend plugins
 * (see contend.h and the public contend_plugin.h). */
#ifndef CONTEND_PLUGIN_RUNNER_H
#define CONTEND_PLUGIN_RUNNER_H

#include "contend.h"
#include "contend_plugin.h"

struct ct_plugin_params {
	const char *so;          /* path given to dlopen */
	int threads;             /* workers: threads, or processes with processes */
	int processes;           /* 1: fork worker processes instead of threads */
	uint64_t duration_ns;    /* duration mode: how long the workers run */
	int pin;                 /* pin worker i to the i-th allowed CPU (mod) */
	int inject;              /* testing only: CT_INJECT_FORK_EAGAIN, 0 in real runs */
	int report_fd;
	uint64_t *per_thread;    /* out, caller's memory: threads entries */
};

struct ct_plugin_result {
	struct ct_status status;
	int mode;                /* enum contend_mode */
	uint64_t elapsed_ns;     /* start gate open .. last worker returned */
	uint64_t iterations;     /* sum over the workers */
	int ncounters;
	char counter_names[CONTEND_MAX_COUNTERS][CONTEND_NAME_MAX];
	uint64_t counters[CONTEND_MAX_COUNTERS]; /* sums over the workers */
	char description[96];
	int workers_started;     /* threads created or processes forked */
};

int ct_plugin_run(const struct ct_plugin_params *p, struct ct_plugin_result *r);

#endif
