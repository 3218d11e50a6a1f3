/* faultme.h - the ABI of native/faultme.c (see contend.h). */
#ifndef CONTEND_FAULTME_H
#define CONTEND_FAULTME_H

#include "contend.h"

enum ct_thp { CT_THP_LEAVE = 0, CT_THP_NEVER = 1, CT_THP_HUGE = 2 };

struct ct_faultme_params {
	int threads;     /* worker threads (original: 400) */
	uint64_t mem;    /* bytes mapped (original: 10 GiB) */
	uint64_t stride; /* bytes between reads (original: 4096) */
	int thp;         /* enum ct_thp */
	int report_fd;
	int inject;      /* testing only: CT_INJECT_MADVISE_EINVAL, 0 in real runs */
};

struct ct_faultme_result {
	struct ct_status status;
	uint64_t elapsed_ns;    /* main: just before start barrier .. after stop barrier */
	uint64_t pages_touched; /* reads done by all workers */
	uint64_t minflt;        /* minor faults of the process in the timed region */
	uint64_t majflt;        /* major faults of the process in the timed region */
	uint64_t rss_anon_kb;   /* RssAnon after the timed region */
	uint64_t rss_anon_before_kb; /* RssAnon just before it, threads created */
	int threads_created;
	int thp_einval;         /* --thp never: MADV_NOHUGEPAGE said EINVAL (a kernel without THP?), run without it */
};

int ct_faultme_run(const struct ct_faultme_params *p, struct ct_faultme_result *r);

#endif
