// Package jsonl is contend's one append-only ledger: a file of JSON
// lines, one record a line, appended with O_APPEND and fsynced before the
// caller goes on, so that a kill or a power cut loses at most the line
// being written. Campaigns (internal/campaign) and bisects
// (internal/bisect) keep their events in it.
//
// The rules, the same for every ledger: a line cut short by a kill or a
// power cut (a prefix of a record: the JSON ends early) is torn; the next
// Append starts a line of its own after it, and Read skips it and counts
// it. Any other line that is not a record (garbage, a value out of range,
// a record the caller's check refuses) is damage, not a kill: Read
// refuses the file, naming the line, rather than drop evidence silently.
package jsonl

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"contend/internal/safefile"
)

// Append writes v as one line at the end of the ledger at path (created
// when missing, mode 0644, refusing symbolic links and other users'
// files), with O_APPEND and fsync. After a torn last line it starts a line
// of its own.
func Append(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("cannot append to the ledger %s: %w", path, err)
	}
	f, _, err := safefile.OpenOrCreate(path, os.O_RDWR|os.O_APPEND, 0o644, safefile.Self) // read: the last byte
	if err != nil {
		return fmt.Errorf("cannot append to the ledger %s: %w", path, err)
	}
	if st, err := f.Stat(); err == nil && st.Size() > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, st.Size()-1); err == nil && last[0] != '\n' {
			b = append([]byte{'\n'}, b...)
		}
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("cannot append to the ledger %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("cannot sync the ledger %s: %w", path, err)
	}
	return f.Close()
}

// Read returns the records of the ledger at path (none when it does not
// exist) and the number of torn lines skipped. check, when not nil, is
// asked of every record: its error refuses the ledger with the line's
// number. owners says whose file is accepted.
func Read[T any](path string, owners safefile.Owners, check func(T) error) (recs []T, torn int, err error) {
	b, err := safefile.ReadFile(path, owners)
	if errors.Is(err, os.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	for n, line := range bytes.Split(b, []byte{'\n'}) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var r T
		dec := json.NewDecoder(bytes.NewReader(line))
		err := dec.Decode(&r)
		if err == nil && dec.More() {
			err = errors.New("more than one record on the line")
		}
		switch {
		case errors.Is(err, io.ErrUnexpectedEOF):
			torn++
			continue
		case err != nil:
			return nil, 0, fmt.Errorf("the ledger %s is damaged: line %d is not a record (%v); move it away, or remove the line if you know what it held", path, n+1, err)
		}
		if check != nil {
			if err := check(r); err != nil {
				return nil, 0, fmt.Errorf("the ledger %s is damaged: line %d: %v", path, n+1, err)
			}
		}
		recs = append(recs, r)
	}
	return recs, torn, nil
}
