package cli

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/input"
	"github.com/sluiceml/sluice/tfrecord"
)

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	return string(body)
}

// The server exports a command's tally and its pipelines' queues.
func TestMetricsServer(t *testing.T) {
	m, err := startMetrics("127.0.0.1:0", true, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer m.stop()
	tl := newTally()
	m.addTally(tl)
	tl.read(100)
	tl.read(20)
	tl.failed()
	tl.wrote()
	p := input.NewPipeline()
	p.StringInputProducer([]string{"a"}, input.Name("files"))
	m.add("test", p)
	defer p.Stop(t.Context())

	body := get(t, "http://"+m.addr+"/metrics")
	for _, want := range []string{
		"sluice_records_read_total 2\n",
		"sluice_record_bytes_read_total 120\n",
		"sluice_read_errors_total 1\n",
		"sluice_records_written_total 1\n",
		`sluice_queue_capacity{pipeline="test",queue="files"} 32` + "\n",
		"go_goroutines ",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
	if body := get(t, "http://"+m.addr+"/debug/pprof/"); !strings.Contains(body, "goroutine") {
		t.Errorf("pprof index: %.200s", body)
	}
	if _, err := startMetrics("256.0.0.1:1", false, io.Discard); err == nil {
		t.Error("bad address accepted")
	}
}

// pprof is served only when asked for (--pprof): profiles expose the
// command line and the program's internals to whoever reaches the port.
func TestMetricsPprofOnlyWhenAsked(t *testing.T) {
	for _, tc := range []struct {
		pprof bool
		want  int
	}{
		{false, http.StatusNotFound},
		{true, http.StatusOK},
	} {
		m, err := startMetrics("127.0.0.1:0", tc.pprof, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range []string{"/debug/pprof/", "/debug/pprof/cmdline"} {
			resp, err := http.Get("http://" + m.addr + path)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Errorf("pprof %v: GET %s: %s, want %d", tc.pprof, path, resp.Status, tc.want)
			}
		}
		get(t, "http://"+m.addr+"/metrics") // metrics are served either way
		m.stop()
	}
}

// A command with --metrics-addr serves while it runs, counts what it read,
// and stops serving when it ends (goleak checks the server's goroutine).
func TestMetricsAddrFlag(t *testing.T) {
	dir := t.TempDir()
	p := writeExamples(t, dir, "a.tfrecord", 5, tfrecord.None)
	var out, errOut bytes.Buffer
	code := Main(context.Background(), []string{"count", "--metrics-addr", "127.0.0.1:0", p}, &out, &errOut)
	if code != 0 || out.String() != "5\t"+p+"\n" {
		t.Fatalf("exit %d: %q %q", code, out.String(), errOut.String())
	}
	m := regexp.MustCompile(`^serving metrics at http://(127\.0\.0\.1:\d+)/metrics\n$`).FindStringSubmatch(errOut.String())
	if m == nil {
		t.Fatalf("stderr %q", errOut.String())
	}
	errOut.Reset()
	code = Main(context.Background(), []string{"count", "--metrics-addr", "127.0.0.1:0", "--pprof", p}, &out, &errOut)
	if code != 0 || !regexp.MustCompile(`^serving metrics at http://127\.0\.0\.1:\d+/metrics and pprof at /debug/pprof/\n$`).MatchString(errOut.String()) {
		t.Fatalf("--pprof: exit %d: %q", code, errOut.String())
	}
	errOut.Reset()
	code = Main(context.Background(), []string{"count", "--pprof", p}, &out, &errOut)
	if code == 0 || !strings.Contains(errOut.String(), "--pprof needs --metrics-addr") {
		t.Errorf("--pprof alone: exit %d: %q", code, errOut.String())
	}
	if _, err := http.Get("http://" + m[1] + "/metrics"); err == nil {
		t.Error("still serving after the command ended")
	}
	code = Main(context.Background(), []string{"count", "--metrics-addr", "nonsense", p}, &out, &errOut)
	if code == 0 || !strings.Contains(errOut.String(), "--metrics-addr: listen tcp: address nonsense") {
		t.Errorf("bad address: %q", errOut.String())
	}
}
