package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/urfave/cli/v2"

	"contend"
	"contend/internal/port"
	"contend/internal/value"
)

func portCommand() *cli.Command {
	return &cli.Command{
		Name:        "port",
		Usage:       "port a C test to contend: print the plugin header, write a template",
		Description: desc("port"),
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "header", Usage: "print the plugin header"},
			&cli.StringFlag{Name: "template", Usage: "write NAME.c, a commented starting file"},
			enumFlag("mode", &value.Enum{W: "duration", Words: port.Modes}, "the template's mode: duration or fixed"),
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
	src := port.Template(base, mode)
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
	writeHeader(c.App.ErrWriter, filepath.Join(filepath.Dir(path), "contend_plugin.h"), hdr)
	fmt.Fprintf(c.App.ErrWriter, "build: cc -O2 -fPIC -shared -o %s.so %s\nrun:   contend run plugin --so ./%s.so --threads 2 --duration 5s -n 5\n",
		strings.TrimSuffix(path, ".c"), path, strings.TrimSuffix(filepath.Base(path), ".c"))
	return nil
}

// writeHeader writes the plugin header hdr as h unless h exists, which it
// warns of when it differs.
func writeHeader(stderr io.Writer, h string, hdr []byte) {
	if old, err := os.ReadFile(h); err == nil {
		if !bytes.Equal(old, hdr) {
			fmt.Fprintf(stderr, "warning: %s differs from this contend's header; see contend port --header\n", h)
		}
	} else if err := os.WriteFile(h, hdr, 0o644); err == nil {
		fmt.Fprintf(stderr, "wrote %s\n", h)
	}
}
