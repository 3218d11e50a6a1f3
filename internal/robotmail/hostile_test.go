package robotmail

import (
	"encoding/base64"
	"mime/quotedprintable"
	"os"
	"strings"
	"testing"
)

// realParts returns the headers (up to Content-Type, without it and the
// transfer encoding) and the body of a real mail.
func realParts(t *testing.T, file string) (head, body string) {
	t.Helper()
	data, err := os.ReadFile("testdata/real/" + file)
	if err != nil {
		t.Fatal(err)
	}
	h, b, ok := strings.Cut(string(data), "\n\n")
	if !ok {
		t.Fatal("no body")
	}
	var keep []string
	for _, l := range strings.Split(h, "\n") {
		if strings.HasPrefix(l, "Content-") || strings.HasPrefix(l, "MIME-Version") {
			continue
		}
		keep = append(keep, l)
	}
	return strings.Join(keep, "\n") + "\nMIME-Version: 1.0\n", b
}

func wantWisMail(t *testing.T, r *Report, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("refused: %v", err)
	}
	row, ok := r.Blocks[0].Row("will-it-scale.per_thread_ops")
	if r.Testcase != "will-it-scale" || r.Commit != "375700bab5b150e876e42d894a9a7470881f8a61" || !ok || row.Base != 3016 || row.New != 2938 {
		t.Errorf("testcase %q commit %q row %+v", r.Testcase, r.Commit, row)
	}
	if row, _ := r.Blocks[0].Row("perf-sched.wait_and_delay.avg.ms.anon_pipe_read.vfs_read.ksys_read.do_syscall_64"); row.BaseSD != 115 {
		t.Errorf("the ±115%% row after decoding: %+v", row)
	}
}

// TestEncodedBodies reads a real mail whose body is base64,
// quoted-printable, iso-8859-1 bytes ("±" as 0xB1, as the robot sends
// it), and inside a multipart nested in a multipart.
func TestEncodedBodies(t *testing.T) {
	head, body := realParts(t, "will-it-scale-tlb_flush3-375700bab5.mail")
	latin1 := func(s string) string {
		var b []byte
		for _, r := range s {
			b = append(b, byte(r))
		}
		return string(b)
	}
	b64 := base64.StdEncoding.EncodeToString([]byte(body))
	var lines []string
	for len(b64) > 76 {
		lines, b64 = append(lines, b64[:76]), b64[76:]
	}
	lines = append(lines, b64)
	var qp strings.Builder
	w := quotedprintable.NewWriter(&qp)
	w.Write([]byte(latin1(body)))
	w.Close()
	if !strings.Contains(qp.String(), "=B1") {
		t.Fatal("the quoted-printable body has no =B1")
	}
	for name, mail := range map[string]string{
		"base64":           head + "Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: base64\n\n" + strings.Join(lines, "\r\n") + "\n",
		"quoted-printable": head + "Content-Type: text/plain; charset=\"iso-8859-1\"\nContent-Transfer-Encoding: quoted-printable\n\n" + qp.String(),
		"iso-8859-1 8bit":  head + "Content-Type: text/plain; charset=\"iso-8859-1\"\nContent-Transfer-Encoding: 8bit\n\n" + latin1(body),
		"nested multipart": head + "Content-Type: multipart/mixed; boundary=\"outer\"\n\n--outer\nContent-Type: multipart/alternative; boundary=\"inner\"\n\n" +
			"--inner\nContent-Type: text/html\n\n<p>html</p>\n--inner\nContent-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: base64\n\n" +
			strings.Join(lines, "\n") + "\n--inner--\n\n--outer\nContent-Type: application/octet-stream\n\nxx\n--outer--\n",
	} {
		t.Run(name, func(t *testing.T) {
			r, err := Parse([]byte(mail))
			wantWisMail(t, r, err)
		})
	}
}

// TestHostileMails: a control character in a name that reaches a command
// line (a NUL in the test's name) is refused with the parameter named; a
// multipart nested beyond the limit is refused; an unreadable detail row
// is skipped with a note; an unreadable headline row is refused.
func TestHostileMails(t *testing.T) {
	head, body := realParts(t, "will-it-scale-tlb_flush3-375700bab5.mail")
	mail := func(b string) []byte { return []byte(head + "Content-Type: text/plain\n\n" + b) }

	_, err := Parse(mail(strings.Replace(body, "\ttest: tlb_flush3", "\ttest: tlb_flush3\x00; rm -rf ~", 1)))
	if err == nil || !strings.Contains(err.Error(), `parameter "test"`) || !strings.Contains(err.Error(), "control character") {
		t.Errorf("a NUL in the test name: %v", err)
	}
	_, err = Parse(mail(strings.Replace(body, "/lkp-csl-2sp10/tlb_flush3/", "/lkp-csl-2sp10/tlb\x1b[2Jflush3/", 1)))
	if err == nil || !strings.Contains(err.Error(), `axis "test"`) {
		t.Errorf("an escape in an axis: %v", err)
	}

	nested := head + "Content-Type: multipart/mixed; boundary=b0\n\n"
	for i := 1; i <= maxDepth+1; i++ {
		nested += "--b" + string(rune('0'+i-1)) + "\nContent-Type: multipart/mixed; boundary=b" + string(rune('0'+i)) + "\n\n"
	}
	if _, err := Parse([]byte(nested + body)); err == nil {
		t.Error("multiparts nested beyond the limit: read")
	}

	whole, err := Parse(mail(body))
	if err != nil {
		t.Fatal(err)
	}
	bad := "      9.36 ±  x%      +4.5%       9.77        perf-stat.i.MPKI"
	r, err := Parse(mail(strings.Replace(body, "      9.36            +4.5%       9.77        perf-stat.i.MPKI", bad, 1)))
	if err != nil {
		t.Fatalf("an unreadable detail row: %v", err)
	}
	if len(r.Skipped) != 1 || !strings.Contains(r.Skipped[0], "skipped") || !strings.Contains(r.Skipped[0], "perf-stat.i.MPKI") {
		t.Errorf("skipped %q", r.Skipped)
	}
	if _, ok := r.Blocks[0].Row("perf-stat.i.MPKI"); ok || len(r.Blocks[0].Rows) != len(whole.Blocks[0].Rows)-1 {
		t.Errorf("%d rows, the bad one among them: %v", len(r.Blocks[0].Rows), ok)
	}

	_, err = Parse(mail(strings.Replace(body, "      3016            -2.6%       2938        will-it-scale.per_thread_ops", "      3016            -2.6%       29x8        will-it-scale.per_thread_ops", 1)))
	if err == nil || !strings.Contains(err.Error(), "headline") {
		t.Errorf("an unreadable headline row: %v", err)
	}
}
