/*
 * taskstats-exit-cost.c - what contend's sched collector costs an exiting
 * thread: the kernel builds and sends its taskstats exit record in the
 * thread's do_exit, inside a workload's threads phase.
 *
 * Batches of N threads (each exits at once, joined), in the order A B B A,
 * without (A) and with (B) a taskstats listener registered for every CPU,
 * as the collector registers it; per batch the process CPU time
 * (CLOCK_PROCESS_CPUTIME_ID: dead threads included, from the scheduler's
 * runtime, not ticks) and its wall time. The records are drained between
 * batches, outside the measured part. Prints the CPU and wall time per
 * thread of each side and the standard error of the CPU mean.
 *
 *   cc -O2 -o /tmp/tsexit scripts/taskstats-exit-cost.c -lpthread -lm
 *   /tmp/tsexit [THREADS-PER-BATCH=500] [BATCHES=200]     (as root)
 */
#define _GNU_SOURCE
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int fd, fam, ncpu;
static char buf[1 << 16];

static int send_cmd(int cmd, int attr, const void *data, int len)
{
	struct { struct nlmsghdr n; struct genlmsghdr g; char b[256]; } m;
	struct nlattr *na;
	memset(&m, 0, sizeof(m));
	m.n.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	m.n.nlmsg_type = cmd == CTRL_CMD_GETFAMILY ? GENL_ID_CTRL : fam;
	m.n.nlmsg_flags = NLM_F_REQUEST;
	m.n.nlmsg_pid = getpid();
	m.g.cmd = cmd;
	m.g.version = 1;
	na = (struct nlattr *)((char *)&m + m.n.nlmsg_len);
	na->nla_type = attr;
	na->nla_len = len + NLA_HDRLEN;
	memcpy((char *)na + NLA_HDRLEN, data, len);
	m.n.nlmsg_len += NLMSG_ALIGN(na->nla_len);
	return send(fd, &m, m.n.nlmsg_len, 0) < 0 ? -1 : 0;
}

static void *nothing(void *a) { return a; }

static double now(clockid_t c)
{
	struct timespec t;
	clock_gettime(c, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 500, batches = argc > 2 ? atoi(argv[2]) : 200, i, b;
	char mask[32];
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	pthread_t *t = calloc(n, sizeof(*t));
	pthread_attr_t at;
	double cpu[2] = { 0, 0 }, wall[2] = { 0, 0 }, cpu2[2] = { 0, 0 };
	int cnt[2] = { 0, 0 };
	long recs = 0;

	fd = socket(AF_NETLINK, SOCK_RAW, NETLINK_GENERIC);
	bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	int rb = 32 << 20;
	setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rb, sizeof(rb));
	send_cmd(CTRL_CMD_GETFAMILY, CTRL_ATTR_FAMILY_NAME, TASKSTATS_GENL_NAME, strlen(TASKSTATS_GENL_NAME) + 1);
	int len = recv(fd, buf, sizeof(buf), 0);
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	struct nlattr *na = (struct nlattr *)((char *)NLMSG_DATA(h) + GENL_HDRLEN);
	for (; (char *)na < buf + len; na = (struct nlattr *)((char *)na + NLA_ALIGN(na->nla_len)))
		if (na->nla_type == CTRL_ATTR_FAMILY_ID) fam = *(unsigned short *)((char *)na + NLA_HDRLEN);
	if (!fam) { fprintf(stderr, "no TASKSTATS family\n"); return 1; }
	ncpu = sysconf(_SC_NPROCESSORS_CONF);
	snprintf(mask, sizeof(mask), "0-%d", ncpu - 1);
	pthread_attr_init(&at);
	pthread_attr_setstacksize(&at, 32768);
	for (b = 0; b < batches; b++) {
		int on = (b / 2 + b) % 2; /* abba */
		double c0, w0, dc;
		if (on) send_cmd(TASKSTATS_CMD_GET, TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, mask, strlen(mask) + 1);
		c0 = now(CLOCK_PROCESS_CPUTIME_ID); w0 = now(CLOCK_MONOTONIC);
		for (i = 0; i < n; i++) pthread_create(&t[i], &at, nothing, NULL);
		for (i = 0; i < n; i++) pthread_join(t[i], NULL);
		dc = now(CLOCK_PROCESS_CPUTIME_ID) - c0;
		wall[on] += now(CLOCK_MONOTONIC) - w0;
		if (on) send_cmd(TASKSTATS_CMD_GET, TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK, mask, strlen(mask) + 1);
		while ((len = recv(fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0) recs += on;
		cpu[on] += dc; cpu2[on] += dc * dc; cnt[on]++;
	}
	for (i = 0; i < 2; i++) {
		double m = cpu[i] / cnt[i], sd = (cpu2[i] / cnt[i] - m * m);
		printf("%s: %d batches of %d threads: cpu %.2f us/thread (standard error %.2f), wall %.2f us/thread\n",
		       i ? "listener" : "none    ", cnt[i], n, m / n / 1e3, sd > 0 ? __builtin_sqrt(sd / cnt[i]) / n / 1e3 : 0, wall[i] / cnt[i] / n / 1e3);
	}
	printf("messages read with the listener: %ld\n", recs);
	return 0;
}
