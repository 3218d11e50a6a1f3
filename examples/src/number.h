/*
 * number.h - the one argument parser of contend's example programs
 * (examples/src): a decimal from min to max, or the program exits 2
 * naming the argument and the range. Contend's own code.
 */
#ifndef EXAMPLES_NUMBER_H
#define EXAMPLES_NUMBER_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

static long number(const char *prog, const char *s, const char *what, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, "%s: %s %s: accepted %ld to %ld\n", prog, what, s, min, max);
		exit(2);
	}
	return v;
}

#endif
