package main

import (
	"errors"

	"github.com/urfave/cli/v2"

	"contend"
	"contend/internal/port"
	"contend/internal/value"
)

func portCommand() *cli.Command {
	return &cli.Command{
		Name:        "port",
		Usage:       "port a C test to contend: print the plugin header, write a template",
		Description: helpText("port"),
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

// writeTemplate is 'port --template NAME' (port.WriteTemplate).
func writeTemplate(c *cli.Context, hdr []byte) error {
	err := port.WriteTemplate(c.String("template"), c.String("mode"), hdr, c.App.ErrWriter)
	var ie *port.InputError
	if errors.As(err, &ie) {
		return usagef("%v", err)
	}
	return err
}
