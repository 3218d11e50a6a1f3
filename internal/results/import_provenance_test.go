package results

import (
	"testing"
)

// TestImportParamsReadAsProvenance: an import file written before the
// log, its lines and the records read were stored as the environment
// carried them as parameters (log, lines, select); they are read as the
// environment (log.path kept when present), so that compare of two such
// files no longer says "the parameters differ".
func TestImportParamsReadAsProvenance(t *testing.T) {
	old := `{"format":"contend-result","version":1,"kind":"import","workload":"import:faultme","configs":[{"name":"","params":[` +
		`{"name":"log","value":"a.txt"},{"name":"lines","value":"0..60"},{"name":"select","value":"1..5"}],` +
		`"env":{"log.path":"mails/a.txt"}}],"metrics":[{"name":"t"}],"reps":[{"config":0,"status":"ok","metrics":{"t":1}}]}`
	f, err := Parse([]byte(old))
	if err != nil {
		t.Fatal(err)
	}
	c := f.Configs[0]
	if len(c.Params) != 0 || c.Env["log.path"] != "mails/a.txt" || c.Env["log.lines"] != "0..60" || c.Env["log.select"] != "1..5" {
		t.Errorf("config %+v; want no parameters, env log.path mails/a.txt, log.lines 0..60, log.select 1..5", c)
	}
	// A run's parameter of one of these names stays a parameter.
	run := `{"format":"contend-result","version":1,"kind":"run","workload":"x","configs":[{"params":[{"name":"select","value":"2"}]}],"metrics":[{"name":"t"}],"reps":[]}`
	if f, err := Parse([]byte(run)); err != nil || len(f.Configs[0].Params) != 1 {
		t.Errorf("run with a parameter 'select': %v, %+v", err, f)
	}
}
