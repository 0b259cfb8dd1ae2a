package coord

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

// tfReference is coord/testdata/coord_tf.json, written by
// tools/tfref/coord.py.
type tfReference struct {
	Names struct {
		QueueRunnerName string   `json:"queue_runner_name"`
		Threads         []string `json:"threads"`
	} `json:"names"`
	StragglerMessage string `json:"straggler_message"`
	Cascade          []any  `json:"cascade"`
}

func readTFReference(t *testing.T) tfReference {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "coord_tf.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref tfReference
	if err := json.Unmarshal(data, &ref); err != nil {
		t.Fatal(err)
	}
	return ref
}

// QR-02, QR-09, CO-04: the runner's name, its goroutines' names and the
// straggler message are TensorFlow's, character for character.
func TestTensorFlowNames(t *testing.T) {
	ref := readTFReference(t)
	synctest.Test(t, func(t *testing.T) {
		q := fifo(t, 10, "scope/queue")
		r, _ := NewQueueRunner(q, []Step{func(ctx context.Context) error {
			time.Sleep(time.Hour) // outlives the grace period
			return nil
		}}, StepNames("enqueue"))
		if r.Name() != ref.Names.QueueRunnerName {
			t.Fatalf("name %q, TensorFlow %q", r.Name(), ref.Names.QueueRunnerName)
		}
		// Hold the CloseNow back, so that close_on_stop is
		// still running at the end of the grace period too.
		c := New()
		c.Go(t.Context(), "sleeper", func(context.Context) error {
			time.Sleep(time.Hour)
			return nil
		})
		r.Start(t.Context(), c)
		synctest.Wait()
		c.RequestStop(nil)
		err := c.Join(t.Context(), time.Second)
		if !errors.Is(err, ErrStillRunning) {
			t.Fatalf("Join = %v", err)
		}
		names := strings.Fields(strings.TrimPrefix(err.Error(), ErrStillRunning.Error()+": "))
		for _, want := range ref.Names.Threads {
			if strings.HasSuffix(want, "close_on_stop") {
				continue // it ended: the stop cancelled the queue at once
			}
			if !slices.Contains(names, want) {
				t.Errorf("goroutines %v, TensorFlow's thread %q missing", names, want)
			}
		}
		wantMsg := ref.StragglerMessage // "...: sleeper"
		if !strings.HasPrefix(err.Error(), strings.TrimSuffix(wantMsg, "sleeper")) || !slices.Contains(names, "sleeper") {
			t.Errorf("Join = %q, TensorFlow %q", err, wantMsg)
		}
		time.Sleep(2 * time.Hour)
	})
	// close_on_stop's name, seen while it waits for the stop.
	synctest.Test(t, func(t *testing.T) {
		q := fifo(t, 10, "scope/queue")
		r, _ := NewQueueRunner(q, []Step{func(ctx context.Context) error {
			<-ctx.Done()
			time.Sleep(time.Hour)
			return nil
		}}, StepNames("enqueue"))
		c := New()
		r.Start(t.Context(), c)
		synctest.Wait()
		c.mu.Lock()
		var names []string
		for m := range c.running {
			names = append(names, m.name)
		}
		c.mu.Unlock()
		slices.Sort(names)
		want := slices.Sorted(slices.Values(ref.Names.Threads))
		if !slices.Equal(names, want) {
			t.Errorf("goroutines %v, TensorFlow's threads %v", names, want)
		}
		c.RequestStop(nil)
		c.Join(t.Context(), 2*time.Hour)
	})
}

// QR-05 against TensorFlow's outcome: two values, then end of input with
// TensorFlow's message.
func TestTensorFlowCascade(t *testing.T) {
	ref := readTFReference(t)
	q0, q1 := fifo(t, 10, "q0"), fifo(t, 10, "q1")
	r, _ := NewQueueRunner(q1, []Step{func(ctx context.Context) error {
		e, err := q0.Dequeue(ctx)
		if err != nil {
			return err
		}
		return q1.Enqueue(ctx, e)
	}})
	c := New()
	r.Start(t.Context(), c)
	q0.EnqueueMany(t.Context(), queue.Element{tensor.New([]float32{10, 10})})
	q0.Close(t.Context())
	var got []any
	for range 3 {
		e, err := q1.Dequeue(t.Context())
		switch {
		case err == nil:
			got = append(got, float64(e[0].Float32s()[0]))
		case errors.Is(err, io.EOF):
			got = append(got, err)
		default:
			t.Fatal(err)
		}
	}
	tfName := regexp.MustCompile(`'_\d+_q1'`)
	for i, want := range ref.Cascade {
		if msg, ok := want.(string); ok {
			msg = tfName.ReplaceAllString(strings.TrimPrefix(msg, "OutOfRangeError: "), "'q1'")
			if err, ok := got[i].(error); !ok || !strings.HasPrefix(err.Error(), msg) {
				t.Errorf("dequeue %d = %v, TensorFlow %q", i, got[i], msg)
			}
		} else if fmt.Sprint(got[i]) != fmt.Sprint(want) {
			t.Errorf("dequeue %d = %v, TensorFlow %v", i, got[i], want)
		}
	}
	if err := c.Join(t.Context(), time.Second); err != nil {
		t.Fatal(err)
	}
}
