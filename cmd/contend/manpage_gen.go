//go:build contend_man

package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"contend"
	"contend/cmd/contend/internal/manpage"
)

// The man page generator: 'go run -tags contend_man ./cmd/contend' writes
// contend.1 to standard output and exits (make man, make install). Built
// with the tag only, so the contend binary carries none of it.
func init() {
	if err := writeManPage(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "contend man page:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// writeManPage writes contend.1 to w, dated SOURCE_DATE_EPOCH when set (a
// reproducible build), today otherwise.
func writeManPage(w io.Writer) error {
	date := time.Now().UTC()
	if s := os.Getenv("SOURCE_DATE_EPOCH"); s != "" {
		var sec int64
		if _, err := fmt.Sscan(s, &sec); err != nil {
			return fmt.Errorf("SOURCE_DATE_EPOCH %q: not a number of seconds", s)
		}
		date = time.Unix(sec, 0).UTC()
	}
	return manpage.Write(w, manApp(newApp(io.Discard, io.Discard)), manPage(date.Format("2006-01-02")))
}

// manPage is contend.1's page description, dated date.
func manPage(date string) manpage.Page {
	p := manpage.Page{Section: "1", Date: date, Version: contend.Version}
	for _, s := range manPageSections() {
		p.Extra = append(p.Extra, manpage.Section{Title: s[0], Text: s[1]})
	}
	return p
}
