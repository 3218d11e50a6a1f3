package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/urfave/cli/v2"

	"contend"
	"contend/internal/value"
)

func portCommand() *cli.Command {
	return &cli.Command{
		Name:  "port",
		Usage: "port a C test to contend: print the plugin header, write a template",
		Description: `--header prints native/contend_plugin.h, the contract a plugin is built
against. --template NAME writes NAME.c, a commented starting file (and
contend_plugin.h beside it when there is none); it never overwrites a file.

Examples:
   contend port --template mytest
   cc -O2 -fPIC -shared -o mytest.so mytest.c
   contend run plugin --so ./mytest.so --threads 8 --duration 10s -n 5`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "header", Usage: "print the plugin header"},
			&cli.StringFlag{Name: "template", Usage: "write NAME.c, a commented starting file"},
			enumFlag("mode", &value.Enum{W: "duration", Words: []string{"duration", "fixed"}}, "the template's mode: duration or fixed"),
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usagef("port takes no arguments (got %q); use --header or --template NAME", c.Args().First())
			}
			hdr, err := contend.Native.ReadFile("native/contend_plugin.h")
			if err != nil {
				return err
			}
			switch {
			case c.Bool("header") && c.IsSet("template"):
				return usagef("port: give --header or --template, not both")
			case c.Bool("header"):
				_, err := c.App.Writer.Write(hdr)
				return err
			case c.IsSet("template"):
				return writeTemplate(c, hdr)
			}
			return usagef("port: give --header or --template NAME")
		},
	}
}

var templateName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]*$`)

func writeTemplate(c *cli.Context, hdr []byte) error {
	path := c.String("template")
	mode := c.String("mode")
	if !strings.HasSuffix(path, ".c") {
		path += ".c"
	}
	base := strings.TrimSuffix(filepath.Base(path), ".c")
	if !templateName.MatchString(base) {
		return usagef("--template: %q is not accepted; accepted: a file name such as mytest", c.String("template"))
	}
	src := strings.ReplaceAll(pluginTemplate, "NAME", base)
	if mode == "fixed" {
		src = strings.ReplaceAll(src, "CONTEND_DURATION, \"", "CONTEND_FIXED, \"")
		src = strings.ReplaceAll(src, durationLoop, fixedLoop)
	}
	fh, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return usagef("port: %s exists; not overwritten", path)
		}
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return usagef("--template: cannot create %s: %v; accepted: a file name in an existing, writable directory", path, pe.Err)
		}
		return err
	}
	// A template that could not be written whole is removed, not left
	// half-written.
	if _, err := fh.WriteString(src); err != nil {
		fh.Close()
		os.Remove(path)
		return fmt.Errorf("port: writing %s: %v", path, err)
	}
	if err := fh.Close(); err != nil {
		os.Remove(path)
		return fmt.Errorf("port: writing %s: %v", path, err)
	}
	fmt.Fprintf(c.App.ErrWriter, "wrote %s\n", path)
	h := filepath.Join(filepath.Dir(path), "contend_plugin.h")
	if old, err := os.ReadFile(h); err == nil {
		if !bytes.Equal(old, hdr) {
			fmt.Fprintf(c.App.ErrWriter, "warning: %s differs from this contend's header; see contend port --header\n", h)
		}
	} else if err := os.WriteFile(h, hdr, 0o644); err == nil {
		fmt.Fprintf(c.App.ErrWriter, "wrote %s\n", h)
	}
	fmt.Fprintf(c.App.ErrWriter, "build: cc -O2 -fPIC -shared -o %s.so %s\nrun:   contend run plugin --so ./%s.so --threads 2 --duration 5s -n 5\n",
		strings.TrimSuffix(path, ".c"), path, strings.TrimSuffix(filepath.Base(path), ".c"))
	return nil
}

const pluginTemplate = `/*
 * NAME.c - a contend plugin (see contend port --header for the contract).
 *
 * Build and run:
 *	cc -O2 -fPIC -shared -o NAME.so NAME.c
 *	contend run plugin --so ./NAME.so --threads 2 --duration 5s -n 5
 *	contend run plugin --so ./NAME.so --threads 2 --workers processes -n 5
 *
 * contend's runner creates the workers (threads, or with --workers
 * processes forked processes), holds them at a start gate, reads the clock
 * and keeps one padded counter block per worker. You write the work of one
 * worker in contend_worker; setup and teardown are optional.
 */
#include <errno.h>
#include <stdlib.h>

#include "contend_plugin.h"

/*
 * The mode, a description, and up to 8 names of extra counters.
 * CONTEND_DURATION: loop until contend_stopped(t), count iterations.
 * CONTEND_FIXED:    do a fixed amount of work and return; contend times it.
 */
CONTEND_PLUGIN(CONTEND_DURATION, "NAME: TODO say what one iteration does", "events");

/* Shared between the threads: whatever your test contends on. Worker
 * processes each get their own copy (fork after setup): to share between
 * processes, mmap it MAP_SHARED | MAP_ANONYMOUS in contend_setup. */
struct state {
	unsigned nthreads;
	/* TODO: a lock, a mapping, a file descriptor, ... */
};

/* Optional: runs once before the workers exist, not timed. Return 0 or a
 * positive errno. */
int contend_setup(unsigned nthreads, void **state)
{
	struct state *s = calloc(1, sizeof(*s));

	if (!s)
		return ENOMEM;
	s->nthreads = nthreads;
	*state = s;
	return 0;
}

/* Runs in worker id (0 .. nthreads-1) once the start gate opens; return,
 * never exit. t->process is 1 in a worker process. */
void contend_worker(void *state, unsigned id, struct contend_thread *t)
{
	struct state *s = state;

	(void)s;
	(void)id;
` + durationLoop + `
}

/* Optional: runs once after every worker returned, not timed. */
void contend_teardown(void *state)
{
	free(state);
}
`

const durationLoop = `	while (!contend_stopped(t)) {
		/* TODO: one iteration of the test. */
		(*t->iterations)++;
		/* Extra counters: t->counters[0] is "events" above. */
		if (((*t->iterations) & 1023) == 0)
			t->counters[0]++;
	}`

const fixedLoop = `	/* TODO: this worker's share of the work; contend times all of it. */
	for (unsigned long i = 0; i < 1000000; i++) {
		(*(volatile uint64_t *)t->iterations)++;
		/* Extra counters: t->counters[0] is "events" above. */
		if ((i & 1023) == 0)
			t->counters[0]++;
	}`
