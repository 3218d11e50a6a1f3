/*
 * wis_shim.c - compiled by contend together with a will-it-scale test
 * (cc -O2 -fPIC -shared -pthread TEST.c wis_shim.c), never into contend.
 * It supplies what a test may take from will-it-scale's runner, written
 * from the API's description:
 *
 *   testcase_prepare(nr_tasks), testcase_cleanup()  weak no-ops a test may
 *                                                   define itself
 *   testcase_description                            weak, for a test without one
 *   new_task(func, arg)                             an extra, uncounted task,
 *                                                   started by contend's runner
 *
 * and exports ct_wis_shim, through which native/wis.c hands in its
 * new_task.
 */
#include <stddef.h>

#include "wis.h"

__attribute__((visibility("default"))) struct ct_wis_shim ct_wis_shim = { CT_WIS_MAGIC, NULL };

__attribute__((weak, visibility("default"))) char *testcase_description = "(no testcase_description)";

__attribute__((weak, visibility("default"))) void testcase_prepare(unsigned long nr_tasks)
{
	(void)nr_tasks;
}

__attribute__((weak, visibility("default"))) void testcase_cleanup(void)
{
}

__attribute__((visibility("default"))) void new_task(void *(*func)(void *), void *arg)
{
	ct_wis_shim.new_task(func, arg);
}
