package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/pprof"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/sluiceml/sluice/input"
	"github.com/spf13/cobra"
)

// A tally counts what a data command did: records and bytes read, records
// written, and records that failed. It is always kept (an atomic add per
// record) and exported when --metrics-addr is given. A nil *tally counts
// nothing.
type tally struct {
	records, bytes, written, errors prometheus.Counter
}

func newTally() *tally {
	c := func(name, help string) prometheus.Counter {
		return prometheus.NewCounter(prometheus.CounterOpts{Namespace: "sluice", Name: name, Help: help})
	}
	return &tally{
		records: c("records_read_total", "Records read."),
		bytes:   c("record_bytes_read_total", "Bytes of record data read (uncompressed, without framing)."),
		written: c("records_written_total", "Records written."),
		errors:  c("read_errors_total", "Corrupt, truncated or unreadable records met."),
	}
}

func (t *tally) read(n int) {
	if t != nil {
		t.records.Inc()
		t.bytes.Add(float64(n))
	}
}

func (t *tally) wrote() {
	if t != nil {
		t.written.Inc()
	}
}

func (t *tally) failed() {
	if t != nil {
		t.errors.Inc()
	}
}

func (t *tally) collectors() []prometheus.Collector {
	return []prometheus.Collector{t.records, t.bytes, t.written, t.errors}
}

// metricsServer serves, while a command runs (--metrics-addr), Prometheus
// metrics — the command's tally, the queues of the pipelines it runs, and
// the Go runtime's — at /metrics, and, only with --pprof, net/http/pprof
// at /debug/pprof/. Profiles expose the command line and the program's
// internals, so they are not served unless asked for.
type metricsServer struct {
	reg   *prometheus.Registry
	pipes *pipelineCollector
	srv   *http.Server
	done  chan struct{}
	addr  string // the address actually bound, e.g. for port 0
}

// startMetrics listens on addr (exactly as given: the user chooses the
// interface, and ":PORT" means every one) and serves until stop; with
// withPprof it serves net/http/pprof too.
func startMetrics(addr string, withPprof bool, log io.Writer) (*metricsServer, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--metrics-addr: %w", err)
	}
	m := &metricsServer{reg: prometheus.NewRegistry(), pipes: &pipelineCollector{}, done: make(chan struct{}), addr: ln.Addr().String()}
	m.reg.MustRegister(m.pipes, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{}))
	if withPprof {
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	}
	m.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(m.done)
		m.srv.Serve(ln)
	}()
	if withPprof {
		fmt.Fprintf(log, "serving metrics at http://%s/metrics and pprof at /debug/pprof/\n", m.addr)
	} else {
		fmt.Fprintf(log, "serving metrics at http://%s/metrics\n", m.addr)
	}
	return m, nil
}

// add makes a pipeline's queue metrics visible, labelled with name.
func (m *metricsServer) add(name string, p *input.Pipeline) {
	if m != nil {
		m.pipes.add(name, p)
	}
}

// addTally exports a command's counts.
func (m *metricsServer) addTally(t *tally) {
	if m != nil {
		m.reg.MustRegister(t.collectors()...)
	}
}

// stop shuts the server down and waits for it, so that no goroutine
// outlives the command.
func (m *metricsServer) stop() {
	if m == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := m.srv.Shutdown(ctx); err != nil {
		m.srv.Close()
	}
	<-m.done
}

// pipelineMetrics starts the metrics server if the command has
// --metrics-addr, and returns the hook that makes a pipeline's queues
// visible there (a no-op without the flag) and the func that stops it.
func pipelineMetrics(cmd *cobra.Command) (add func(name string, p *input.Pipeline), stop func(), err error) {
	addr, _ := cmd.Flags().GetString("metrics-addr")
	if addr == "" {
		if wantPprof(cmd) {
			return nil, nil, errPprofAlone
		}
		return func(string, *input.Pipeline) {}, func() {}, nil
	}
	m, err := startMetrics(addr, wantPprof(cmd), cmd.ErrOrStderr())
	if err != nil {
		return nil, nil, err
	}
	return m.add, m.stop, nil
}

// errPprofAlone reports --pprof without the server it would be served by.
var errPprofAlone = errors.New("--pprof needs --metrics-addr")

// wantPprof reports whether the command has --pprof.
func wantPprof(cmd *cobra.Command) bool {
	on, _ := cmd.Flags().GetBool("pprof")
	return on
}

// withTally wraps a data command's body: it gives the body a tally and,
// with --metrics-addr, serves the tally while the body runs.
func withTally(run func(cmd *cobra.Command, args []string, t *tally) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		t := newTally()
		if addr, _ := cmd.Flags().GetString("metrics-addr"); addr == "" && wantPprof(cmd) {
			return errPprofAlone
		} else if addr != "" {
			m, err := startMetrics(addr, wantPprof(cmd), cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer m.stop()
			m.addTally(t)
		}
		return run(cmd, args, t)
	}
}

// pipelineCollector exports the queue metrics of running pipelines. It
// reads them at scrape time, so the pipelines pay nothing in between.
type pipelineCollector struct {
	mu    sync.Mutex
	names []string
	pipes []*input.Pipeline
}

var (
	queueLabels   = []string{"pipeline", "queue"}
	queueSize     = prometheus.NewDesc("sluice_queue_size", "Elements in the queue.", queueLabels, nil)
	queueCapacity = prometheus.NewDesc("sluice_queue_capacity", "Capacity of the queue.", queueLabels, nil)
	queueFullness = prometheus.NewDesc("sluice_queue_fullness", "TensorFlow's queue summary: fraction_of_<capacity>_full, or the fraction over min_after_dequeue.", queueLabels, nil)
	queueEnq      = prometheus.NewDesc("sluice_queue_enqueued_total", "Elements enqueued.", queueLabels, nil)
	queueDeq      = prometheus.NewDesc("sluice_queue_dequeued_total", "Elements dequeued.", queueLabels, nil)
	queueEnqWait  = prometheus.NewDesc("sluice_queue_enqueue_blocked_seconds_total", "Time producers waited on a full queue.", queueLabels, nil)
	queueDeqWait  = prometheus.NewDesc("sluice_queue_dequeue_blocked_seconds_total", "Time consumers waited on an empty queue.", queueLabels, nil)
)

func (c *pipelineCollector) add(name string, p *input.Pipeline) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.names = append(c.names, name)
	c.pipes = append(c.pipes, p)
}

func (c *pipelineCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{queueSize, queueCapacity, queueFullness, queueEnq, queueDeq, queueEnqWait, queueDeqWait} {
		ch <- d
	}
}

func (c *pipelineCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	names, pipes := append([]string(nil), c.names...), append([]*input.Pipeline(nil), c.pipes...)
	c.mu.Unlock()
	for i, p := range pipes {
		for _, q := range p.Metrics() {
			l := []string{names[i], q.Name}
			gauge := func(d *prometheus.Desc, v float64) {
				ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, l...)
			}
			counter := func(d *prometheus.Desc, v float64) {
				ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, l...)
			}
			gauge(queueSize, float64(q.Size))
			gauge(queueCapacity, float64(q.Capacity))
			gauge(queueFullness, q.Fraction)
			counter(queueEnq, float64(q.Enqueued))
			counter(queueDeq, float64(q.Dequeued))
			counter(queueEnqWait, q.EnqueueBlocked.Seconds())
			counter(queueDeqWait, q.DequeueBlocked.Seconds())
		}
	}
}
