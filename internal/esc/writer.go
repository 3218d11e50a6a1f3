package esc

import (
	"io"
	"sync"
	"unicode/utf8"
)

// Writer passes what is written to it on to a terminal (or a pipe, a
// file) as Text: newlines and tabs kept, every other control character
// escaped, so that a user string (a label, a parameter, a program's
// output, a file name in a message) never reaches the terminal as an
// escape sequence. A multi-byte character cut between two writes is held
// until the rest comes (Flush writes what is held). contend's own escape
// sequences (the progress line) go to Raw.
type Writer struct {
	mu   sync.Mutex
	w    io.Writer
	held []byte
}

// NewWriter returns a Writer on w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Raw returns the writer under w: w itself when it is not a *Writer.
func Raw(w io.Writer) io.Writer {
	if e, ok := w.(*Writer); ok {
		return e.w
	}
	return w
}

// Fd is the file descriptor of the writer under e, so that the width of
// the terminal it is can be asked (textfmt.Columns); ^uintptr(0), no
// descriptor, when that writer has none.
func (e *Writer) Fd() uintptr {
	if f, ok := e.w.(interface{ Fd() uintptr }); ok {
		return f.Fd()
	}
	return ^uintptr(0)
}

// Write writes p escaped; it returns len(p) when the escaped bytes were
// written.
func (e *Writer) Write(p []byte) (int, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	b := p
	if len(e.held) > 0 {
		b = append(e.held, p...)
		e.held = nil
	}
	// Hold an incomplete character at the end (at most 3 bytes).
	cut := len(b)
	for i := len(b) - 1; i >= 0 && i >= len(b)-3; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				cut = i
			}
			break
		}
	}
	e.held = append(e.held, b[cut:]...)
	b = b[:cut]
	if plain(b) {
		// ASCII without controls (the common case): as it is, no copy.
		if _, err := e.w.Write(b); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	if _, err := io.WriteString(e.w, Text(string(b))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes what is held of an incomplete character, escaped.
func (e *Writer) Flush() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.held) == 0 {
		return nil
	}
	_, err := io.WriteString(e.w, Text(string(e.held)))
	e.held = nil
	return err
}

// plain says whether b is printable ASCII, newlines and tabs.
func plain(b []byte) bool {
	for _, c := range b {
		if (c < 0x20 && c != '\n' && c != '\t') || c >= 0x7f {
			return false
		}
	}
	return true
}
