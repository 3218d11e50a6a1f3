package vm

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// The serial framing. A guest hands files to the host over its second
// 8250 port (ttyS1), which QEMU writes to a host file. A tty may turn a
// newline into CR LF and a serial line may lose or change bytes, so each
// file travels as a frame of text lines:
//
//	CONTEND-FRAME NAME LENGTH SHA256
//	base64, 76 characters a line
//	CONTEND-END NAME
//
// ReadFrames takes the frames back, ignoring carriage returns and any
// line outside a frame, and refuses a frame whose length or checksum is
// not what its first line says.
const (
	frameBegin = "CONTEND-FRAME"
	frameEnd   = "CONTEND-END"
	frameLine  = 76
)

// WriteFrame writes data as the frame called name (a word without spaces
// or control characters).
func WriteFrame(w io.Writer, name string, data []byte) error {
	if name == "" || strings.IndexFunc(name, func(r rune) bool { return r <= ' ' || r > '~' }) >= 0 {
		return fmt.Errorf("frame name %q: a word of printable ASCII", name)
	}
	sum := sha256.Sum256(data)
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s %s %d %s\n", frameBegin, name, len(data), hex.EncodeToString(sum[:]))
	enc := base64.StdEncoding.EncodeToString(data)
	for len(enc) > 0 {
		n := min(frameLine, len(enc))
		b.WriteString(enc[:n])
		b.WriteByte('\n')
		enc = enc[n:]
	}
	fmt.Fprintf(&b, "%s %s\n", frameEnd, name)
	_, err := w.Write(b.Bytes())
	return err
}

// FrameError is a frame that arrived damaged or cut short.
type FrameError struct {
	Name string
	Why  string
}

func (e *FrameError) Error() string {
	return fmt.Sprintf("frame %s from the guest's serial port: %s", e.Name, e.Why)
}

// ReadFrames returns the frames of r by name (a name sent twice: the
// last). A damaged frame (its length or checksum wrong, a bad line, no
// end) is a *FrameError; the frames read before it are returned with it.
func ReadFrames(r io.Reader) (map[string][]byte, error) {
	out := map[string][]byte{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<20)
	var (
		in        bool
		name, sum string
		length    int
		body      strings.Builder
	)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		line = strings.TrimLeft(line, "\r")
		if !in {
			f := strings.Fields(line)
			if len(f) == 4 && f[0] == frameBegin {
				n, err := strconv.Atoi(f[2])
				if err != nil || n < 0 {
					return out, &FrameError{f[1], fmt.Sprintf("a length of %q", f[2])}
				}
				in, name, length, sum = true, f[1], n, f[3]
				body.Reset()
			}
			continue
		}
		if line == frameEnd+" "+name {
			in = false
			data, err := base64.StdEncoding.DecodeString(body.String())
			if err != nil {
				return out, &FrameError{name, "not base64: " + err.Error()}
			}
			if len(data) != length {
				return out, &FrameError{name, fmt.Sprintf("%d bytes, but its header says %d", len(data), length)}
			}
			got := sha256.Sum256(data)
			if hex.EncodeToString(got[:]) != sum {
				return out, &FrameError{name, "its SHA-256 is not the one its header says (the transfer changed it)"}
			}
			out[name] = data
			continue
		}
		if strings.HasPrefix(line, frameBegin+" ") || strings.HasPrefix(line, frameEnd+" ") {
			return out, &FrameError{name, "cut short: " + strings.Fields(line)[0] + " before its end"}
		}
		body.WriteString(line)
	}
	if err := sc.Err(); err != nil {
		return out, err
	}
	if in {
		return out, &FrameError{name, "cut short: no end line (the guest stopped while sending it)"}
	}
	return out, nil
}
