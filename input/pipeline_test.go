package input

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sluiceml/sluice/coord"
	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/recordio"
	"github.com/sluiceml/sluice/tensor"
	"github.com/sluiceml/sluice/tfrecord"
)

// writeFiles writes files×per Examples with labels 0..files*per-1.
func writeFiles(t testing.TB, dir string, files, per int) []string {
	var names []string
	for f := range files {
		var b bytes.Buffer
		w := tfrecord.NewWriter(&b, tfrecord.None)
		for i := range per {
			w.Write(example.New().Int64("label", int64(f*per+i)).Floats("image", make([]float32, 784)).Marshal())
		}
		w.Close()
		name := filepath.Join(dir, fmt.Sprintf("part-%03d.tfrecord", f))
		if err := os.WriteFile(name, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	return names
}

func readerSteps(names queue.Queue, n int) []Step {
	spec := example.Spec{"label": example.FixedLen(tensor.Int64), "image": example.FixedLen(tensor.Float32, 784)}
	steps := make([]Step, n)
	for i := range steps {
		r := recordio.NewTFRecordReader(names, tfrecord.None)
		parser, _ := example.NewParser(spec)
		steps[i] = func(ctx context.Context) (queue.Element, error) {
			key, rec, err := r.Read(ctx)
			if err != nil {
				return nil, err
			}
			ex, err := parser.ParseSingle(rec, key)
			if err != nil {
				return nil, err
			}
			return ex.Components(), nil
		}
	}
	return steps
}

// Clean shut-down when limiting epochs: every example of every epoch is
// delivered exactly once, over many files, readers and threads, and then
// the consumer sees end of input.
func TestExactlyOncePerEpoch(t *testing.T) {
	const files, per, epochs = 13, 17, 3
	names := writeFiles(t, t.TempDir(), files, per)
	for _, readers := range []int{1, 3, 8} {
		for _, shuffle := range []bool{false, true} {
			p := NewPipeline()
			fq := p.StringInputProducer(names, NumEpochs(epochs), Shuffle(shuffle))
			b := p.ShuffleBatchJoin(readerSteps(fq, readers), 32, Capacity(200), MinAfterDequeue(50),
				AllowSmallerFinalBatch(), Names("image", "label"))
			start(t, p)
			counts := map[int64]int{}
			for _, batch := range drain(t, b) {
				for _, l := range batch.Int64("label") {
					counts[l]++
				}
			}
			if len(counts) != files*per {
				t.Fatalf("readers %d: %d distinct examples", readers, len(counts))
			}
			for l, c := range counts {
				if c != epochs {
					t.Fatalf("readers %d shuffle %v: example %d delivered %d times", readers, shuffle, l, c)
				}
			}
		}
	}
}

// A corrupt record stops the pipeline with the file and offset.
func TestCorruptRecordStopsPipeline(t *testing.T) {
	names := writeFiles(t, t.TempDir(), 2, 5)
	data, _ := os.ReadFile(names[1])
	data[len(data)-1] ^= 1 // the last record's data CRC
	os.WriteFile(names[1], data, 0o644)
	p := NewPipeline()
	fq := p.StringInputProducer(names, NumEpochs(1), Shuffle(false))
	b := p.Batch(readerSteps(fq, 1)[0], 4, Names("image", "label"))
	if err := p.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	var got error
	for _, err := range b.All(t.Context()) {
		if err != nil {
			got = err
		}
	}
	if got == nil || !strings.Contains(got.Error(), names[1]) || !strings.Contains(got.Error(), "corrupted record at") {
		t.Fatalf("consumer got %v", got)
	}
	if err := p.Join(t.Context()); err == nil || !strings.Contains(err.Error(), names[1]) {
		t.Fatalf("Join = %v", err)
	}
}

// Two pipelines in one process share nothing.
func TestTwoPipelines(t *testing.T) {
	a, b := NewPipeline(Seed(1)), NewPipeline(Seed(1))
	qa := a.StringInputProducer([]string{"a"}, NumEpochs(1))
	qb := b.StringInputProducer([]string{"b"}, NumEpochs(2))
	start(t, a)
	start(t, b)
	if got := strs(dequeueAll(t, qa)); !slices.Equal(got, []string{"a"}) {
		t.Fatalf("pipeline a: %v", got)
	}
	if got := strs(dequeueAll(t, qb)); !slices.Equal(got, []string{"b", "b"}) {
		t.Fatalf("pipeline b: %v", got)
	}
	if len(a.Metrics()) != 1 || len(b.Metrics()) != 1 {
		t.Fatal("metrics leak across pipelines")
	}
}

// Fullness metrics use TensorFlow's summary names and formulas.
func TestMetrics(t *testing.T) {
	p := NewPipeline()
	p.StringInputProducer([]string{"a", "b"}, Capacity(10), Name("files"))
	sb := p.ShuffleBatch(counter(1000), 5, Capacity(100), MinAfterDequeue(40), Name("examples"))
	start(t, p)
	if _, err := sb.Next(t.Context()); err != nil {
		t.Fatal(err)
	}
	ms := p.Metrics()
	if len(ms) != 2 || ms[0].Summary != "fraction_of_10_full" || ms[1].Summary != "fraction_over_40_of_60_full" {
		t.Fatalf("metrics %+v", ms)
	}
	m := ms[1]
	if want := float64(max(0, m.Size-40)) / 60; m.Fraction != want {
		t.Fatalf("fraction %v, want %v", m.Fraction, want)
	}
	if m.Dequeued < 5 || m.Enqueued < m.Dequeued {
		t.Fatalf("counts %+v", m)
	}
}

// A queue that is not a queue.Sizer (a remote one) is reported by name
// only: no size, capacity or fullness is made up for it.
func TestMetricsWithoutSizer(t *testing.T) {
	m := metricsOf(remoteQueue{name: "shared_files"}, false, 0)
	if m != (QueueMetrics{Name: "shared_files"}) {
		t.Fatalf("metrics %+v", m)
	}
}

// remoteQueue is a queue.Queue that, like natsqueue's, is not a Sizer.
// Only Name is called; the embedded nil interface stands for the rest.
type remoteQueue struct {
	queue.Queue
	name string
}

func (q remoteQueue) Name() string { return q.name }

// The options a kind of stage takes are kept from it by their types
// (options_test.go); the few that only some stages of a kind take are
// rejected by Start.
func TestOptionsRejected(t *testing.T) {
	cases := []struct {
		name  string
		build func(p *Pipeline)
		want  string
	}{
		{"ElementShape on string_input_producer", func(p *Pipeline) {
			p.StringInputProducer([]string{"a"}, ElementShape(tensor.Shape{}))
		}, "string_input_producer does not take the ElementShape option"},
		{"Threads on batch_join", func(p *Pipeline) {
			p.BatchJoin([]Step{counter(1)}, 1, Threads(2))
		}, "batch_join does not take the Threads option"},
		{"Threads on shuffle_batch_join", func(p *Pipeline) {
			p.ShuffleBatchJoin([]Step{counter(1)}, 1, Threads(2))
		}, "shuffle_batch_join does not take the Threads option"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := NewPipeline()
			c.build(p)
			if err := p.Start(t.Context()); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Start = %v, want %q", err, c.want)
			}
		})
	}
}

// End to end: TFRecord shards → parse → shuffle_batch(128), by readers.
func BenchmarkPipelineMNISTLike(b *testing.B) {
	names := writeFiles(b, b.TempDir(), 8, 1000)
	for _, readers := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("readers=%d", readers), func(b *testing.B) {
			total := 0
			for b.Loop() {
				p := NewPipeline()
				fq := p.StringInputProducer(names, NumEpochs(1))
				bt := p.ShuffleBatchJoin(readerSteps(fq, readers), 128, Capacity(2000+3*128), MinAfterDequeue(2000))
				p.Start(context.Background())
				for batch, err := range bt.All(context.Background()) {
					if err != nil {
						b.Fatal(err)
					}
					total += batch.Len()
				}
				p.Join(b.Context())
			}
			b.ReportMetric(float64(total)/b.Elapsed().Seconds(), "examples/s")
		})
	}
}

func TestWritePrometheus(t *testing.T) {
	p := NewPipeline()
	p.StringInputProducer([]string{"a", "b"}, Capacity(10), Name("files"), Shuffle(false))
	start(t, p)
	for p.Metrics()[0].Size < 10 {
		time.Sleep(time.Millisecond)
	}
	var b strings.Builder
	if err := p.WritePrometheus(&b, "sluice"); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"# TYPE sluice_queue_size gauge\nsluice_queue_size{queue=\"files\"} 10\n",
		"sluice_queue_capacity{queue=\"files\"} 10\n",
		"sluice_queue_fullness{queue=\"files\"} 1\n",
		"# TYPE sluice_queue_enqueued_total counter\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
}

// Join and Stop return as soon as their context ends, with an error
// wrapping ctx.Err(), while a goroutine is still running; the pipeline can
// then be stopped and joined.
func TestJoinContextEnds(t *testing.T) {
	tests := []struct {
		name string
		wait func(p *Pipeline, ctx context.Context) error
	}{
		{"Join", (*Pipeline).Join},
		{"Stop", (*Pipeline).Stop},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				p := NewPipeline(GracePeriod(time.Hour))
				release := make(chan struct{})
				p.AddQueueRunner(blockingRunner(t, release))
				if err := p.Start(t.Context()); err != nil {
					t.Fatal(err)
				}
				synctest.Wait() // the step is blocked
				ctx, cancel := context.WithTimeout(t.Context(), time.Second)
				defer cancel()
				start := time.Now()
				if err := tt.wait(p, ctx); !errors.Is(err, context.DeadlineExceeded) {
					t.Fatalf("%s = %v, want an error wrapping context.DeadlineExceeded", tt.name, err)
				}
				if d := time.Since(start); d != time.Second {
					t.Fatalf("%s returned after %v, want 1s", tt.name, d)
				}
				close(release)
				if err := p.Stop(t.Context()); err != nil {
					t.Fatalf("Stop = %v", err)
				}
			})
		})
	}
}

// blockingRunner returns a queue runner whose one step ignores stops
// until release is closed, as a step stuck in a call without a context
// would.
func blockingRunner(t *testing.T, release <-chan struct{}) *coord.QueueRunner {
	t.Helper()
	q, err := queue.NewFIFO(1, []tensor.DType{tensor.Int32})
	if err != nil {
		t.Fatal(err)
	}
	r, err := coord.NewQueueRunner(q, []coord.Step{func(context.Context) error {
		<-release
		return io.EOF
	}})
	if err != nil {
		t.Fatal(err)
	}
	return r
}
